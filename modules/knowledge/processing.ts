import crypto from 'node:crypto';
import type { BaseLogger } from 'pino';
import type { Db, PrismaClient } from '../../prisma/client.js';
import { startJobLoop } from '../../lib/jobs.js';
import { listenForChanges } from '../../lib/pg-listen.js';
import { chunkingKey, chunkMarkdown, DEFAULT_CHUNKING, type ChunkingOptions } from './chunking.js';
import { DocumentParseError, toMarkdown } from './parse/index.js';

// Processing a document is a durable job on its row: a pending document (or one whose lease lapsed: its process died)
// is claimed with FOR UPDATE SKIP LOCKED, leased with a fresh token, and taken through its stages: `parse` (an upload
// converted to Markdown, stored as the content) and `chunk` (the chunks written in one transaction with the status
// `ready`). Every write is fenced by the lease token, so a process that outlived its lease writes nothing. Any number
// of API processes run the loop on the same table. docs/knowledge.md.

/** NOTIFY channel a queued document is announced on, so an idle loop claims it at once. */
export const DOCUMENTS_NOTIFY_CHANNEL = 'documents_queued';

/** Tells the processing loops (of every API process) that a document was queued. */
export async function queueProcessing(db: Db): Promise<void> {
  await db.$executeRaw`SELECT pg_notify(${DOCUMENTS_NOTIFY_CHANNEL}, '')`;
}

export type ProcessingLogger = Pick<BaseLogger, 'info' | 'warn' | 'error'>;
const silentLogger: ProcessingLogger = { info() {}, warn() {}, error() {} };

export interface ClaimedDocument {
  id: number;
  organizationId: number;
  leaseToken: string;
  /** This claim's number (1-based). */
  attempt: number;
  filename: string | null;
  mediaType: string;
  /** The upload not converted yet; null once its Markdown is the content (and for text sources). */
  sourceBytes: Buffer | null;
  content: string;
}

/**
 * 3 claims: a document whose processing was cut short (its process killed, its lease lapsed) this often is taken to
 * be what kills it, and fails instead of taking down process after process.
 */
export const DEFAULT_MAX_ATTEMPTS = 3;

/** Claims up to `limit` documents due for processing, leasing each for `leaseMs`; those out of attempts fail instead. */
export async function claimDocuments(db: Db, limit: number, leaseMs: number, maxAttempts = DEFAULT_MAX_ATTEMPTS): Promise<ClaimedDocument[]> {
  const token = crypto.randomUUID();
  const interrupted = `Processing was interrupted ${maxAttempts} times (the process working on it stopped); replace the content to try again.`;
  const rows = await db.$queryRaw<
    { id: number; organization_id: number; attempts: number; status: string; filename: string | null; media_type: string; source_bytes: Uint8Array | null; content: string }[]
  >`
    WITH picked AS (
      SELECT id FROM documents
      WHERE status = 'pending' OR (status = 'processing' AND lease_expires_at <= now())
      ORDER BY id
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    UPDATE documents d
    SET status = CASE WHEN d.attempts >= ${maxAttempts} THEN 'failed' ELSE 'processing' END,
        failed_stage = CASE WHEN d.attempts >= ${maxAttempts} THEN (CASE WHEN d.source_bytes IS NULL THEN 'chunk' ELSE 'parse' END) END,
        error = CASE WHEN d.attempts >= ${maxAttempts} THEN ${interrupted} END,
        attempts = CASE WHEN d.attempts >= ${maxAttempts} THEN d.attempts ELSE d.attempts + 1 END,
        lease_token = CASE WHEN d.attempts >= ${maxAttempts} THEN NULL ELSE ${token} END,
        lease_expires_at = CASE WHEN d.attempts >= ${maxAttempts} THEN NULL ELSE now() + ${leaseMs} * interval '1 millisecond' END,
        updated_at = now()
    FROM picked
    WHERE d.id = picked.id
    RETURNING d.id, d.organization_id, d.attempts, d.status, d.filename, d.media_type, d.source_bytes, d.content`;
  return rows
    .filter((r) => r.status === 'processing')
    .map((r) => ({
      id: r.id,
      organizationId: r.organization_id,
      leaseToken: token,
      attempt: r.attempts,
      filename: r.filename,
      mediaType: r.media_type,
      sourceBytes: r.source_bytes === null ? null : Buffer.from(r.source_bytes),
      content: r.content,
    }));
}

/** What became of a claimed document: processed, failed at a stage, or its lease lost (nothing it did was kept). */
export type ProcessingOutcome = { kind: 'ready'; chunks: number } | { kind: 'failed'; stage: 'parse' | 'chunk'; error: string } | { kind: 'lease_lost' };

class LeaseLost extends Error {}

/** A sentence for the document's `error`: the parser's own (written for people), or a plain one for anything else. */
function readable(error: unknown, stage: 'parse' | 'chunk'): string {
  if (error instanceof DocumentParseError) return error.message;
  return stage === 'parse' ? 'The document could not be converted to Markdown.' : 'The document could not be cut into chunks.';
}

async function fail(db: Db, job: ClaimedDocument, stage: 'parse' | 'chunk', error: string): Promise<ProcessingOutcome> {
  const kept = await db.$executeRaw`
    UPDATE documents SET status = 'failed', failed_stage = ${stage}, error = ${error}, lease_token = NULL, lease_expires_at = NULL, updated_at = now()
    WHERE id = ${job.id} AND lease_token = ${job.leaseToken}`;
  return kept === 0 ? { kind: 'lease_lost' } : { kind: 'failed', stage, error };
}

/** Takes a claimed document through its stages. Throws only when the database does (the lease then brings it back). */
export async function processDocument(db: PrismaClient, job: ClaimedDocument, chunking: ChunkingOptions = DEFAULT_CHUNKING): Promise<ProcessingOutcome> {
  let markdown = job.content;
  if (job.sourceBytes !== null) {
    try {
      markdown = await toMarkdown({ bytes: job.sourceBytes, mediaType: job.mediaType, filename: job.filename });
    } catch (error) {
      return fail(db, job, 'parse', readable(error, 'parse'));
    }
    // The Markdown is now the canonical form: the source is not kept once converted.
    const kept = await db.$executeRaw`
      UPDATE documents SET content = ${markdown}, source_bytes = NULL, updated_at = now()
      WHERE id = ${job.id} AND lease_token = ${job.leaseToken}`;
    if (kept === 0) return { kind: 'lease_lost' };
  }
  let chunks;
  try {
    chunks = chunkMarkdown(markdown, chunking);
  } catch (error) {
    return fail(db, job, 'chunk', readable(error, 'chunk'));
  }
  if (chunks.length === 0) return fail(db, job, 'chunk', 'The document holds no text to index.');
  const tokens = chunks.reduce((sum, c) => sum + c.tokenCount, 0);
  try {
    await db.$transaction(async (tx) => {
      // The fenced status change first: it locks the row, so the chunks below are written by the lease holder only.
      const kept = await tx.$executeRaw`
        UPDATE documents
        SET status = 'ready', chunk_count = ${chunks.length}, token_count = ${tokens}, embedding_model = NULL,
            processed_at = now(), failed_stage = NULL, error = NULL, lease_token = NULL, lease_expires_at = NULL, updated_at = now()
        WHERE id = ${job.id} AND lease_token = ${job.leaseToken}`;
      if (kept === 0) throw new LeaseLost();
      await tx.documentChunk.deleteMany({ where: { documentId: job.id } });
      await tx.documentChunk.createMany({
        data: chunks.map((c, position) => ({ documentId: job.id, chunking: chunkingKey(chunking), position, content: c.content, headingPath: c.headingPath, startOffset: c.start, endOffset: c.end, tokenCount: c.tokenCount })),
      });
    });
  } catch (error) {
    if (error instanceof LeaseLost) return { kind: 'lease_lost' };
    throw error;
  }
  return { kind: 'ready', chunks: chunks.length };
}

export interface DocumentProcessingOptions {
  /** Connection string for LISTEN, so a queued document is claimed at once; without it the loop only polls. */
  databaseUrl?: string;
  /** Documents processed at once in this process. */
  concurrency?: number;
  pollIntervalMs?: number;
  /** How long a claimed document stays with this process; after it, another process may take it over. */
  leaseMs?: number;
  maxAttempts?: number;
  logger?: ProcessingLogger;
}

export interface DocumentProcessing {
  wake(): void;
  /** Stops claiming and waits (bounded) for documents in flight; those cut short come back when their lease lapses. */
  stop(): Promise<void>;
}

/** 2 at once: a conversion runs on a thread of its own and takes a core; the API's requests keep the rest. */
const DEFAULT_CONCURRENCY = 2;
/** 5 s: NOTIFY brings queued documents at once; the poll finds lapsed leases and what was queued while LISTEN was down. */
const DEFAULT_POLL_INTERVAL_MS = 5_000;
/**
 * 2 min: a conversion is bounded at 20 s (parse/index.ts) and chunking a 10 MiB document takes well under a second;
 * a process killed mid-way delays its document by at most this long.
 */
const DEFAULT_LEASE_MS = 120_000;
/** 30 s for the documents in flight at shutdown; what is cut short comes back when its lease lapses. */
const STOP_TIMEOUT_MS = 30_000;

/** Starts processing queued documents in this process. Any number of processes may run it on the same database. */
export function startDocumentProcessing(prisma: PrismaClient, options: DocumentProcessingOptions = {}): DocumentProcessing {
  const log = options.logger ?? silentLogger;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const run = async (job: ClaimedDocument) => {
    try {
      const outcome = await processDocument(prisma, job);
      const fields = { documentId: job.id, organizationId: job.organizationId, attempt: job.attempt };
      if (outcome.kind === 'ready') log.info({ ...fields, chunks: outcome.chunks }, 'document processed');
      else if (outcome.kind === 'failed') log.warn({ ...fields, stage: outcome.stage }, 'document processing failed');
      else log.warn(fields, 'document processing discarded: the lease passed to another process or the document changed');
    } catch (err) {
      log.error({ documentId: job.id, err }, 'document processing not recorded; the lease brings it back');
    }
  };
  const loop = startJobLoop({
    intervalMs: options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    pass: async (l) => {
      const free = concurrency - l.inFlight;
      if (free <= 0) return;
      const claimed = await claimDocuments(prisma, free, leaseMs, maxAttempts);
      // More may be due: a settled document wakes the loop (onSettled) to fill its slot.
      for (const job of claimed) l.track(run(job));
    },
    onSettled: (l) => l.wake(),
    onError: (err, l) => {
      if (!l.stopping) log.error({ err }, 'documents not claimed');
    },
  });
  const listener = options.databaseUrl
    ? listenForChanges(options.databaseUrl, { [DOCUMENTS_NOTIFY_CHANNEL]: { onNotify: () => loop.wake(), onReset: () => loop.wake() } }, (err) =>
        log.warn({ err }, 'document notifications interrupted; polling carries processing until they are back'),
      )
    : undefined;
  let stopped: Promise<void> | undefined;
  return {
    wake: () => loop.wake(),
    stop: () =>
      (stopped ??= (async () => {
        if (!(await loop.stop(STOP_TIMEOUT_MS))) log.warn({ inFlight: loop.inFlight }, 'documents abandoned at shutdown; their leases will lapse and another process takes them');
        await listener?.close();
      })()),
  };
}
