import crypto from 'node:crypto';
import type { BaseLogger } from 'pino';
import type { Db, PrismaClient } from '../../prisma/client.js';
import { startJobLoop } from '../../lib/jobs.js';
import type { ChangeFeed } from '../../lib/pg-listen.js';
import type { VendorCredentials } from '../../lib/vendor-credentials.js';
import type { Embedder } from './embeddings/embedder.js';
import { embedderFor } from './embeddings/resolve.js';
import { hasIndex, ragSettingsOf, specOf } from './index-specs.js';
import { processDocument, type ClaimedDocument, type ProcessingDeps, type ProcessingOutcome } from './process-document.js';
import { fetchUrlSource } from './url-source/fetch-url-source.js';
import { crawlOf } from './url-source-settings.js';
import type { PgVectors } from './search/pgvector.js';

// Processing a document is a durable job on its row: a pending document (or one whose lease lapsed: its process died)
// is claimed with FOR UPDATE SKIP LOCKED, leased with a fresh token, and taken through its stages
// (process-document.ts). Every write is fenced by the lease token, so a process that outlived its lease writes
// nothing. Any number of API processes run the loop on the same table; each pass also queues the URL sources due for
// a refresh. docs/knowledge.md.

export { processDocument, type ProcessingDeps, type ProcessingOutcome };

/** NOTIFY channel a queued document is announced on, so an idle loop claims it at once. */
export const DOCUMENTS_NOTIFY_CHANNEL = 'documents_queued';

/** Tells the processing loops (of every API process) that a document was queued. */
export async function queueProcessing(db: Db): Promise<void> {
  await db.$executeRaw`SELECT pg_notify(${DOCUMENTS_NOTIFY_CHANNEL}, '')`;
}

/**
 * Queues the documents of an assistant that lack its index (just attached, or its chunking or model changed), when
 * its `auto_process` says so. Each keeps answering from what it has until the new index is ready: the job adds the
 * chunk set and vectors, and drops the ones no assistant uses any more, only when it ends.
 */
export async function queueAssistantDocuments(db: Db, assistantId: number): Promise<number> {
  const assistant = await db.assistant.findUnique({
    where: { id: assistantId },
    select: { ragSettings: true, documents: { select: { document: { select: { id: true, status: true, indexes: true } } } } },
  });
  if (!assistant) return 0;
  const rag = ragSettingsOf(assistant.ragSettings);
  if (!rag.auto_process) return 0;
  const spec = specOf(rag);
  const due = assistant.documents.map((d) => d.document).filter((d) => (d.status === 'ready' || d.status === 'failed') && !hasIndex(d.indexes, spec));
  return queueDocuments(
    db,
    due.map((d) => d.id),
  );
}

/** Queues documents to be (re)indexed; those already queued or being processed pick up the change when they end. */
export async function queueDocuments(db: Db, ids: number[]): Promise<number> {
  if (ids.length === 0) return 0;
  const { count } = await db.document.updateMany({
    where: { id: { in: ids }, status: { in: ['ready', 'failed'] } },
    data: { status: 'pending', attempts: 0, failedStage: null, error: null },
  });
  if (count > 0) await queueProcessing(db);
  return count;
}

export type ProcessingLogger = Pick<BaseLogger, 'info' | 'warn' | 'error'>;
const silentLogger: ProcessingLogger = { info() {}, warn() {}, error() {} };

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
    {
      id: number;
      organization_id: number;
      attempts: number;
      status: string;
      filename: string | null;
      media_type: string;
      source_bytes: Uint8Array | null;
      content: string;
      source_url: string | null;
      crawl: unknown;
      fetch_due: boolean;
    }[]
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
        -- A stage that asked to be retried (a vendor or site down) left its error: the last attempt's reason stands.
        failed_stage = CASE WHEN d.attempts >= ${maxAttempts}
          THEN coalesce(d.failed_stage, CASE WHEN d.source_bytes IS NOT NULL THEN 'parse' WHEN d.source_url IS NOT NULL AND d.fetched_at IS NULL THEN 'fetch' ELSE 'chunk' END)
          ELSE d.failed_stage END,
        error = CASE WHEN d.attempts >= ${maxAttempts} THEN coalesce(d.error, ${interrupted}) ELSE d.error END,
        attempts = CASE WHEN d.attempts >= ${maxAttempts} THEN d.attempts ELSE d.attempts + 1 END,
        lease_token = CASE WHEN d.attempts >= ${maxAttempts} THEN NULL ELSE ${token} END,
        lease_expires_at = CASE WHEN d.attempts >= ${maxAttempts} THEN NULL ELSE now() + ${leaseMs} * interval '1 millisecond' END,
        updated_at = now()
    FROM picked
    WHERE d.id = picked.id
    RETURNING d.id, d.organization_id, d.attempts, d.status, d.filename, d.media_type, d.source_bytes, d.content, d.source_url, d.crawl,
      (d.source_url IS NOT NULL AND (d.fetched_at IS NULL OR d.next_refresh_at <= now())) AS fetch_due`;
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
      sourceUrl: r.source_url,
      crawl: r.crawl,
      fetchDue: r.fetch_due,
    }));
}

/** Queues the URL sources whose refresh is due; a failed one is tried again at its next refresh too. */
export async function queueDueRefreshes(db: Db): Promise<number> {
  return db.$executeRaw`
    UPDATE documents SET status = 'pending', attempts = 0, updated_at = now()
    WHERE next_refresh_at <= now() AND status IN ('ready', 'failed')`;
}

export interface DocumentProcessingOptions {
  /** The process's change feed, so a queued document is claimed at once; without it the loop only polls. */
  changes?: ChangeFeed;
  /** Documents processed at once in this process. */
  concurrency?: number;
  pollIntervalMs?: number;
  /** How long a claimed document stays with this process; after it, another process may take it over. */
  leaseMs?: number;
  maxAttempts?: number;
  logger?: ProcessingLogger;
  /** Keys and endpoints of the embedding vendors (OPENAI_API_KEY…); the offline model needs none. */
  credentials?: VendorCredentials;
  /** Let URL sources reach loopback and private addresses (WEBHOOK_ALLOW_PRIVATE_TARGETS), as webhooks may. */
  allowPrivateTargets?: boolean;
  /** Overrides how embedders are made (tests). */
  embedderFor?: (model: string) => Embedder;
  /** pgvector's index, where the database has it: vectors are mirrored into it as they are written. */
  pgvector?: PgVectors | undefined;
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

/** Embedders made once per model and process (the offline model's worker, a vendor's connection pool). */
export function processingDeps(options: DocumentProcessingOptions = {}, leaseMs = DEFAULT_LEASE_MS): ProcessingDeps {
  const embedders = new Map<string, Embedder>();
  const credentials = options.credentials ?? { apiKey: () => undefined, baseUrl: () => undefined };
  const make = options.embedderFor ?? ((model: string) => embedderFor(model, credentials));
  const pgvector = options.pgvector;
  return {
    leaseMs,
    ...(pgvector ? { mirrorVectors: (rows: Parameters<PgVectors['write']>[0]) => pgvector.write(rows) } : {}),
    embedderFor(model) {
      let embedder = embedders.get(model);
      if (!embedder) embedders.set(model, (embedder = make(model)));
      return embedder;
    },
    fetchUrl: (source, signal) =>
      fetchUrlSource({ url: source.url, crawl: crawlOf(source.crawl), allowPrivateTargets: options.allowPrivateTargets ?? false, signal }),
  };
}

/** Starts processing queued documents in this process. Any number of processes may run it on the same database. */
export function startDocumentProcessing(prisma: PrismaClient, options: DocumentProcessingOptions = {}): DocumentProcessing {
  const log = options.logger ?? silentLogger;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const deps = processingDeps(options, leaseMs);
  const run = async (job: ClaimedDocument) => {
    try {
      const outcome = await processDocument(prisma, job, deps);
      const fields = { documentId: job.id, organizationId: job.organizationId, attempt: job.attempt };
      if (outcome.kind === 'ready') log.info({ ...fields, chunks: outcome.chunks }, 'document processed');
      else if (outcome.kind === 'failed') log.warn({ ...fields, stage: outcome.stage }, 'document processing failed');
      else if (outcome.kind === 'retry') log.warn({ ...fields, stage: outcome.stage }, 'document processing to be retried');
      else log.warn(fields, 'document processing discarded: the lease passed to another process or the document changed');
    } catch (err) {
      log.error({ documentId: job.id, err }, 'document processing not recorded; the lease brings it back');
    }
  };
  const loop = startJobLoop({
    intervalMs: options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    pass: async (l) => {
      await queueDueRefreshes(prisma);
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
    wakeOn: {
      feed: options.changes,
      channels: [DOCUMENTS_NOTIFY_CHANNEL],
      onInterrupted: (err) => log.warn({ err }, 'document notifications interrupted; polling carries processing until they are back'),
    },
  });
  let stopped: Promise<void> | undefined;
  return {
    wake: () => loop.wake(),
    stop: () =>
      (stopped ??= (async () => {
        if (!(await loop.stop(STOP_TIMEOUT_MS)))
          log.warn({ inFlight: loop.inFlight }, 'documents abandoned at shutdown; their leases will lapse and another process takes them');
      })()),
  };
}
