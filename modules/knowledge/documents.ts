import crypto from 'node:crypto';
import { isRefusedLiteral } from '../../lib/net/target-guard.js';
import type { Db, PrismaClient } from '../../prisma/client.js';
import { Prisma } from '../../prisma/generated/client.js';
import { AppError, notFound, ValidationFailed } from '../../lib/errors.js';
import { paginationOf } from '../../lib/pagination.js';
import type { DocumentIndex } from './index-specs.js';
import { queueProcessing } from './processing.js';
import { MAX_DOCUMENT_BYTES, type DocumentCreateIn, type DocumentOutT, type DocumentUpdateIn } from './schemas.js';
import { crawlOf } from './url-source-settings.js';

// The organisation's knowledge documents. A document is created from text (its Markdown at once), from an uploaded
// file (kept until the processing job converts it) or from a URL (fetched by the job, and again at its refresh
// interval), and queued; the job fetches or parses, chunks and embeds it (process-document.ts). The same source twice
// in an organisation is refused, naming the document that has it.

type DocumentRow = {
  id: number;
  name: string;
  sourceKind: string;
  filename: string | null;
  mediaType: string;
  sizeBytes: number;
  sha256: string | null;
  status: string;
  failedStage: string | null;
  error: string | null;
  chunkCount: number;
  tokenCount: number;
  embeddingModel: string | null;
  indexes: unknown;
  sourceUrl: string | null;
  crawl: unknown;
  refreshIntervalHours: number | null;
  fetchedAt: Date | null;
  nextRefreshAt: Date | null;
  metadata: unknown;
  processedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
};

/** Every column but the source bytes and the Markdown, which lists never need. */
const SUMMARY = {
  id: true,
  name: true,
  sourceKind: true,
  filename: true,
  mediaType: true,
  sizeBytes: true,
  sha256: true,
  status: true,
  failedStage: true,
  error: true,
  chunkCount: true,
  tokenCount: true,
  embeddingModel: true,
  indexes: true,
  sourceUrl: true,
  crawl: true,
  refreshIntervalHours: true,
  fetchedAt: true,
  nextRefreshAt: true,
  metadata: true,
  processedAt: true,
  createdAt: true,
  updatedAt: true,
} as const;

function toApi(row: DocumentRow): DocumentOutT {
  return {
    id: row.id,
    name: row.name,
    source_kind: row.sourceKind as DocumentOutT['source_kind'],
    filename: row.filename,
    media_type: row.mediaType,
    size_bytes: row.sizeBytes,
    sha256: row.sha256,
    status: row.status as DocumentOutT['status'],
    failed_stage: row.failedStage as DocumentOutT['failed_stage'],
    error: row.error,
    chunk_count: row.chunkCount,
    token_count: row.tokenCount,
    embedding_model: row.embeddingModel,
    indexes: (Array.isArray(row.indexes) ? row.indexes : []) as DocumentIndex[],
    source_url: row.sourceUrl,
    crawl: crawlOf(row.crawl) ?? null,
    refresh_interval_hours: row.refreshIntervalHours,
    fetched_at: row.fetchedAt?.toISOString() ?? null,
    next_refresh_at: row.nextRefreshAt?.toISOString() ?? null,
    metadata: (row.metadata ?? {}) as Record<string, string>,
    processed_at: row.processedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

const UPLOAD_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  html: 'text/html',
  htm: 'text/html',
  csv: 'text/csv',
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
};
const SUPPORTED_TYPES = new Set(Object.values(UPLOAD_TYPES));
const GENERIC_TYPES = new Set(['', 'application/octet-stream']);
const SUPPORTED_LIST = 'PDF, Word (.docx), HTML, CSV, Markdown or plain text';

/** The type an upload is converted as: the declared one when it names a format we read, else the file's extension. */
function uploadType(filename: string | null, declared: string | undefined): string {
  const type = (declared ?? '').split(';')[0]!.trim().toLowerCase();
  if (SUPPORTED_TYPES.has(type)) return type;
  if (!GENERIC_TYPES.has(type)) {
    throw new ValidationFailed([
      { loc: ['body', 'media_type'], msg: `Documents of type ${type} are not supported: upload ${SUPPORTED_LIST}`, type: 'value_error' },
    ]);
  }
  const extension = /\.([a-z0-9]+)$/i.exec(filename ?? '')?.[1]?.toLowerCase();
  const byName = extension === undefined ? undefined : UPLOAD_TYPES[extension];
  if (byName) return byName;
  throw new ValidationFailed([
    {
      loc: ['body', 'filename'],
      msg:
        extension === undefined
          ? `Give the file an extension or a media_type: ${SUPPORTED_LIST}`
          : `Files ending in .${extension} are not supported: upload ${SUPPORTED_LIST}`,
      type: 'value_error',
    },
  ]);
}

function tooLarge(bytes: number): AppError {
  return new AppError('payload_too_large', `The document is ${bytes} bytes; documents are at most ${MAX_DOCUMENT_BYTES} bytes (10 MiB)`, {
    limit_bytes: MAX_DOCUMENT_BYTES,
  });
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function decoded(base64: string): Buffer {
  const compact = base64.replace(/\s+/g, '');
  // A quick bound before decoding: 4 characters carry 3 bytes.
  if (Math.floor((compact.length * 3) / 4) > MAX_DOCUMENT_BYTES + 2) throw tooLarge(Math.floor((compact.length * 3) / 4));
  if (!BASE64.test(compact) || compact.length % 4 === 1) {
    throw new ValidationFailed([{ loc: ['body', 'content_base64'], msg: 'Must be the file in base64', type: 'value_error' }]);
  }
  return Buffer.from(compact, 'base64');
}

interface Source {
  name: string;
  sourceKind: 'upload' | 'text' | 'url';
  filename: string | null;
  mediaType: string;
  bytes: Buffer;
  content: string;
  sourceBytes: Buffer | null;
  url?: { sourceUrl: string; crawl: unknown; refreshIntervalHours: number | null };
}

const URL_ONLY = ['crawl', 'refresh_interval_hours'] as const;

function sourceOf(input: DocumentCreateIn, policy: UrlSourcePolicy): Source {
  const given = (['text', 'content_base64', 'source_url'] as const).filter((k) => input[k] !== undefined);
  if (given.length !== 1) {
    throw new ValidationFailed([
      {
        loc: ['body', given[1] ?? 'text'],
        msg: 'Send exactly one source: `text`, an upload (`content_base64`) or a `source_url`',
        type: given.length === 0 ? 'missing' : 'value_error',
      },
    ]);
  }
  if (input.source_url !== undefined) return urlSourceOf(input, policy);
  const urlOnly = URL_ONLY.find((k) => input[k] !== undefined);
  if (urlOnly) throw new ValidationFailed([{ loc: ['body', urlOnly], msg: 'Only a URL source is fetched: send `source_url` with it', type: 'value_error' }]);
  const hasText = input.text !== undefined;
  if (hasText) {
    if (input.filename !== undefined || input.media_type !== undefined) {
      throw new ValidationFailed([
        {
          loc: ['body', input.filename !== undefined ? 'filename' : 'media_type'],
          msg: 'Only an upload has a file name and a media type',
          type: 'value_error',
        },
      ]);
    }
    if (input.name === undefined) throw new ValidationFailed([{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }]);
    const bytes = Buffer.from(input.text!, 'utf8');
    if (bytes.length > MAX_DOCUMENT_BYTES) throw tooLarge(bytes.length);
    if (input.text!.trim() === '') throw new ValidationFailed([{ loc: ['body', 'text'], msg: 'The text is blank', type: 'value_error' }]);
    return {
      name: input.name,
      sourceKind: 'text',
      filename: null,
      mediaType: 'text/markdown',
      bytes,
      content: input.text!.replace(/^\uFEFF/, ''),
      sourceBytes: null,
    };
  }
  return uploadSourceOf({
    bytes: decoded(input.content_base64!),
    bytesField: 'content_base64',
    filename: input.filename ?? null,
    mediaType: input.media_type,
    name: input.name,
  });
}

/**
 * A URL: fetched by the processing job, so the API never waits on someone else's site. An address outside public
 * unicast space written as such (`http://169.254.169.254/`, `http://[::1]/`, `http://2130706433/`, normalised by the
 * URL parser) is refused here, as tools and webhooks refuse theirs; host names are checked when fetched, after DNS.
 */
function urlSourceOf(input: DocumentCreateIn, policy: UrlSourcePolicy): Source {
  if (input.filename !== undefined || input.media_type !== undefined) {
    throw new ValidationFailed([
      { loc: ['body', input.filename !== undefined ? 'filename' : 'media_type'], msg: 'Only an upload has a file name and a media type', type: 'value_error' },
    ]);
  }
  const url = new URL(input.source_url!);
  if (isRefusedLiteral(url, policy.allowPrivateTargets)) {
    throw new ValidationFailed([
      { loc: ['body', 'source_url'], msg: 'URL points at a private, loopback, link-local or otherwise non-public address', type: 'value_error' },
    ]);
  }
  url.hash = '';
  const sourceUrl = url.toString();
  return {
    name: input.name ?? `${url.host}${url.pathname === '/' ? '' : url.pathname}`.slice(0, 200),
    sourceKind: 'url',
    filename: null,
    mediaType: 'text/html',
    bytes: Buffer.alloc(0),
    content: '',
    sourceBytes: null,
    url: { sourceUrl, crawl: input.crawl ?? null, refreshIntervalHours: input.refresh_interval_hours ?? null },
  };
}

/** A file however it came (base64 in JSON, or a multipart part): `bytesField` is where a refusal points. */
function uploadSourceOf(upload: UploadIn & { bytesField: string }): Source {
  const { bytes, filename } = upload;
  if (bytes.length > MAX_DOCUMENT_BYTES) throw tooLarge(bytes.length);
  if (bytes.length === 0) throw new ValidationFailed([{ loc: ['body', upload.bytesField], msg: 'The file is empty', type: 'value_error' }]);
  const mediaType = uploadType(filename, upload.mediaType);
  const name = upload.name ?? filename;
  if (name === null) throw new ValidationFailed([{ loc: ['body', 'name'], msg: 'Field required: give a name or a filename', type: 'missing' }]);
  return { name: name.slice(0, 200), sourceKind: 'upload', filename, mediaType, bytes, content: '', sourceBytes: bytes };
}

export interface UploadIn {
  bytes: Buffer;
  filename: string | null;
  mediaType: string | undefined;
  name: string | undefined;
}

function duplicateOf(existing: { id: number; name: string }): AppError {
  return new AppError('conflict', `This source is already document ${existing.id} (${existing.name}) in this organisation`, { document_id: existing.id });
}

async function findDuplicate(db: Db, organizationId: number, sha256: string) {
  return db.document.findFirst({ where: { organizationId, sha256 }, select: { id: true, name: true } });
}

async function findUrlDuplicate(db: Db, organizationId: number, sourceUrl: string) {
  return db.document.findFirst({ where: { organizationId, sourceUrl }, select: { id: true, name: true } });
}

/** Where URL sources may point: public addresses only, unless the operator allows private ones (WEBHOOK_ALLOW_PRIVATE_TARGETS). */
export interface UrlSourcePolicy {
  allowPrivateTargets: boolean;
}

export async function createDocument(
  db: Db,
  organizationId: number,
  input: DocumentCreateIn,
  policy: UrlSourcePolicy = { allowPrivateTargets: false },
): Promise<DocumentOutT> {
  return createFromSource(db, organizationId, sourceOf(input, policy), input.metadata ?? {});
}

/** A document from a file sent as `multipart/form-data` (its `file` part). */
export async function createUploadedDocument(db: Db, organizationId: number, upload: UploadIn): Promise<DocumentOutT> {
  return createFromSource(db, organizationId, uploadSourceOf({ ...upload, bytesField: 'file' }));
}

async function createFromSource(db: Db, organizationId: number, source: Source, metadata: Record<string, string> = {}): Promise<DocumentOutT> {
  // A URL's bytes are not known yet: the URL itself is the source, one document per URL.
  const sha256 = source.url ? null : crypto.createHash('sha256').update(source.bytes).digest('hex');
  const existing = sha256 === null ? await findUrlDuplicate(db, organizationId, source.url!.sourceUrl) : await findDuplicate(db, organizationId, sha256);
  if (existing) throw duplicateOf(existing);
  let row: DocumentRow;
  try {
    row = await db.document.create({
      data: {
        organizationId,
        name: source.name,
        content: source.content,
        sourceKind: source.sourceKind,
        filename: source.filename,
        mediaType: source.mediaType,
        sizeBytes: source.bytes.length,
        sha256,
        sourceBytes: source.sourceBytes === null ? null : new Uint8Array(source.sourceBytes),
        status: 'pending',
        metadata,
        ...(source.url
          ? {
              sourceUrl: source.url.sourceUrl,
              crawl: source.url.crawl === null ? Prisma.DbNull : (source.url.crawl as Prisma.InputJsonValue),
              refreshIntervalHours: source.url.refreshIntervalHours,
            }
          : {}),
      },
      select: SUMMARY,
    });
  } catch (error) {
    // The same source created at the same moment by another request: the unique index decides.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
      const raced = sha256 === null ? await findUrlDuplicate(db, organizationId, source.url!.sourceUrl) : await findDuplicate(db, organizationId, sha256);
      if (raced) throw duplicateOf(raced);
    }
    throw error;
  }
  await queueProcessing(db);
  return toApi(row);
}

async function findRow(db: Db, organizationId: number, id: number): Promise<DocumentRow> {
  const row = await db.document.findFirst({ where: { id, organizationId }, select: SUMMARY });
  if (!row) throw notFound('Document');
  return row;
}

export async function getDocument(db: Db, organizationId: number, id: number): Promise<DocumentOutT> {
  return toApi(await findRow(db, organizationId, id));
}

export async function listDocuments(db: Db, organizationId: number, query: { page: number; per_page: number; status?: string | undefined }) {
  const where = { organizationId, ...(query.status === undefined ? {} : { status: query.status }) };
  const [rows, total] = await Promise.all([
    db.document.findMany({ where, select: SUMMARY, orderBy: { id: 'desc' }, skip: (query.page - 1) * query.per_page, take: query.per_page }),
    db.document.count({ where }),
  ]);
  return { data: rows.map(toApi), pagination: paginationOf(query.page, query.per_page, total) };
}

export async function updateDocument(db: Db, organizationId: number, id: number, patch: DocumentUpdateIn): Promise<DocumentOutT> {
  const current = await findRow(db, organizationId, id);
  const urlOnly = URL_ONLY.find((k) => patch[k] !== undefined);
  if (urlOnly && current.sourceKind !== 'url')
    throw new ValidationFailed([{ loc: ['body', urlOnly], msg: 'Only a URL source is fetched again', type: 'value_error' }]);
  const data: Prisma.DocumentUpdateManyMutationInput = {};
  if (patch.name !== undefined) data.name = patch.name;
  if (patch.metadata !== undefined) data.metadata = patch.metadata;
  if (patch.crawl !== undefined) data.crawl = patch.crawl === null ? Prisma.DbNull : patch.crawl;
  if (patch.refresh_interval_hours !== undefined) {
    data.refreshIntervalHours = patch.refresh_interval_hours;
    // The next refresh counts from the last fetch; a document never fetched yet is fetched by its first processing.
    data.nextRefreshAt =
      patch.refresh_interval_hours === null || current.fetchedAt === null
        ? null
        : new Date(current.fetchedAt.getTime() + patch.refresh_interval_hours * 3_600_000);
  }
  if (Object.keys(data).length === 0) return toApi(current);
  const rows = await db.document.updateManyAndReturn({ where: { id, organizationId }, data, select: SUMMARY });
  if (rows.length === 0) throw notFound('Document');
  if (data.nextRefreshAt instanceof Date && data.nextRefreshAt.getTime() <= Date.now()) await queueProcessing(db);
  return toApi(rows[0]!);
}

/**
 * Queues the document to be processed again: a failed one retried, a URL fetched now, and the indexes its assistants
 * lack built (needed when their `auto_process` is off). One already queued or being processed is left as it is.
 */
export async function reprocessDocument(db: Db, organizationId: number, id: number): Promise<DocumentOutT> {
  const current = await findRow(db, organizationId, id);
  if (current.status === 'pending' || current.status === 'processing') return toApi(current);
  const rows = await db.document.updateManyAndReturn({
    where: { id, organizationId, status: { in: ['ready', 'failed'] } },
    data: { status: 'pending', attempts: 0, failedStage: null, error: null, ...(current.sourceKind === 'url' ? { nextRefreshAt: new Date() } : {}) },
    select: SUMMARY,
  });
  await queueProcessing(db);
  return rows[0] ? toApi(rows[0]) : getDocument(db, organizationId, id);
}

/** Deletes the document; its chunks and its assignments to assistants go with it (foreign keys cascade). */
export async function deleteDocument(db: Db, organizationId: number, id: number): Promise<void> {
  const { count } = await db.document.deleteMany({ where: { id, organizationId } });
  if (count === 0) throw notFound('Document');
}

export async function getDocumentContent(db: Db, organizationId: number, id: number): Promise<{ document_id: number; content: string }> {
  const row = await db.document.findFirst({ where: { id, organizationId }, select: { content: true } });
  if (!row) throw notFound('Document');
  return { document_id: id, content: row.content };
}

/**
 * Replaces the Markdown and queues the document again: it is chunked anew from this content (an upload not yet
 * converted is converted no more). A processing run under way loses its lease, so what it writes is discarded.
 */
export async function replaceDocumentContent(db: PrismaClient, organizationId: number, id: number, content: string): Promise<DocumentOutT> {
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes > MAX_DOCUMENT_BYTES) throw tooLarge(bytes);
  if (content.trim() === '') throw new ValidationFailed([{ loc: ['body', 'content'], msg: 'The content is blank', type: 'value_error' }]);
  // The old text stops answering now, in calls under way too: its chunks go in the same transaction as the content.
  const rows = await db.$transaction(async (tx) => {
    const updated = await tx.document.updateManyAndReturn({
      where: { id, organizationId },
      data: {
        content: content.replace(/^\uFEFF/, ''),
        sizeBytes: bytes,
        sourceBytes: null,
        status: 'pending',
        failedStage: null,
        error: null,
        attempts: 0,
        leaseToken: null,
        leaseExpiresAt: null,
        indexes: [],
        chunkCount: 0,
        tokenCount: 0,
        indexVersion: { increment: 1 },
      },
      select: SUMMARY,
    });
    if (updated.length > 0) await tx.documentChunk.deleteMany({ where: { documentId: id } });
    return updated;
  });
  if (rows.length === 0) throw notFound('Document');
  await queueProcessing(db);
  return toApi(rows[0]!);
}
