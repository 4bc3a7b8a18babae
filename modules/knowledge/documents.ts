import crypto from 'node:crypto';
import type { Db } from '../../prisma/client.js';
import { Prisma } from '../../prisma/generated/client.js';
import { AppError, notFound, ValidationFailed } from '../../lib/errors.js';
import { paginationOf } from '../../lib/pagination.js';
import { queueProcessing } from './processing.js';
import { MAX_DOCUMENT_BYTES, type DocumentCreateIn, type DocumentOutT, type DocumentUpdateIn } from './schemas.js';

// The organisation's knowledge documents. A document is created from text (its Markdown at once) or from an uploaded
// file (kept until the processing job converts it), and queued; the job parses and chunks it (processing.ts). The
// same source twice in an organisation is refused, naming the document that has it.

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
    throw new ValidationFailed([{ loc: ['body', 'media_type'], msg: `Documents of type ${type} are not supported: upload ${SUPPORTED_LIST}`, type: 'value_error' }]);
  }
  const extension = /\.([a-z0-9]+)$/i.exec(filename ?? '')?.[1]?.toLowerCase();
  const byName = extension === undefined ? undefined : UPLOAD_TYPES[extension];
  if (byName) return byName;
  throw new ValidationFailed([
    {
      loc: ['body', 'filename'],
      msg: extension === undefined ? `Give the file an extension or a media_type: ${SUPPORTED_LIST}` : `Files ending in .${extension} are not supported: upload ${SUPPORTED_LIST}`,
      type: 'value_error',
    },
  ]);
}

function tooLarge(bytes: number): AppError {
  return new AppError('payload_too_large', `The document is ${bytes} bytes; documents are at most ${MAX_DOCUMENT_BYTES} bytes (10 MiB)`, { limit_bytes: MAX_DOCUMENT_BYTES });
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
  sourceKind: 'upload' | 'text';
  filename: string | null;
  mediaType: string;
  bytes: Buffer;
  content: string;
  sourceBytes: Buffer | null;
}

function sourceOf(input: DocumentCreateIn): Source {
  const hasText = input.text !== undefined;
  const hasFile = input.content_base64 !== undefined;
  if (hasText === hasFile) {
    throw new ValidationFailed([{ loc: ['body', hasText ? 'content_base64' : 'text'], msg: 'Send either `text` or an upload (`content_base64`), not both', type: 'value_error' }]);
  }
  if (hasText) {
    if (input.filename !== undefined || input.media_type !== undefined) {
      throw new ValidationFailed([{ loc: ['body', input.filename !== undefined ? 'filename' : 'media_type'], msg: 'Only an upload has a file name and a media type', type: 'value_error' }]);
    }
    if (input.name === undefined) throw new ValidationFailed([{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }]);
    const bytes = Buffer.from(input.text!, 'utf8');
    if (bytes.length > MAX_DOCUMENT_BYTES) throw tooLarge(bytes.length);
    if (input.text!.trim() === '') throw new ValidationFailed([{ loc: ['body', 'text'], msg: 'The text is blank', type: 'value_error' }]);
    return { name: input.name, sourceKind: 'text', filename: null, mediaType: 'text/markdown', bytes, content: input.text!.replace(/^\uFEFF/, ''), sourceBytes: null };
  }
  return uploadSourceOf({ bytes: decoded(input.content_base64!), bytesField: 'content_base64', filename: input.filename ?? null, mediaType: input.media_type, name: input.name });
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

export async function createDocument(db: Db, organizationId: number, input: DocumentCreateIn): Promise<DocumentOutT> {
  return createFromSource(db, organizationId, sourceOf(input));
}

/** A document from a file sent as `multipart/form-data` (its `file` part). */
export async function createUploadedDocument(db: Db, organizationId: number, upload: UploadIn): Promise<DocumentOutT> {
  return createFromSource(db, organizationId, uploadSourceOf({ ...upload, bytesField: 'file' }));
}

async function createFromSource(db: Db, organizationId: number, source: Source): Promise<DocumentOutT> {
  const sha256 = crypto.createHash('sha256').update(source.bytes).digest('hex');
  const existing = await findDuplicate(db, organizationId, sha256);
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
      },
      select: SUMMARY,
    });
  } catch (error) {
    // The same source created at the same moment by another request: the unique index decides.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
      const raced = await findDuplicate(db, organizationId, sha256);
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
  await findRow(db, organizationId, id);
  if (patch.name === undefined) return getDocument(db, organizationId, id);
  const rows = await db.document.updateManyAndReturn({ where: { id, organizationId }, data: { name: patch.name }, select: SUMMARY });
  if (rows.length === 0) throw notFound('Document');
  return toApi(rows[0]!);
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
export async function replaceDocumentContent(db: Db, organizationId: number, id: number, content: string): Promise<DocumentOutT> {
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes > MAX_DOCUMENT_BYTES) throw tooLarge(bytes);
  if (content.trim() === '') throw new ValidationFailed([{ loc: ['body', 'content'], msg: 'The content is blank', type: 'value_error' }]);
  const rows = await db.document.updateManyAndReturn({
    where: { id, organizationId },
    data: { content: content.replace(/^\uFEFF/, ''), sourceBytes: null, status: 'pending', failedStage: null, error: null, attempts: 0, leaseToken: null, leaseExpiresAt: null },
    select: SUMMARY,
  });
  if (rows.length === 0) throw notFound('Document');
  await queueProcessing(db);
  return toApi(rows[0]!);
}
