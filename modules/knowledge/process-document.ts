import { holdLease } from '../../lib/jobs.js';
import type { Db, PrismaClient } from '../../prisma/client.js';
import { chunkMarkdown, type Chunk } from './chunking.js';
import { EmbeddingError, type Embedder } from './embeddings/embedder.js';
import { requiredSpecs, type DocumentIndex, type IndexSpec } from './index-specs.js';
import { DocumentParseError, toMarkdown } from './parse/index.js';
import { UrlSourceError } from './url-source/errors.js';
import { embeddingText, toBytes } from './vectors.js';

// A claimed document taken through its stages: `fetch` (a URL source, when it is new or due for refresh), `parse` (an
// upload converted to Markdown, which becomes the content), `chunk` (one set per chunking its assistants use) and
// `embed` (each set's vectors for each model asked for). Each stage's writes are fenced by the lease token, so a
// process that outlived its lease writes nothing; vectors already written survive a crash and are not made again.
// docs/knowledge.md.

export type Stage = 'fetch' | 'parse' | 'chunk' | 'embed';

/** A document claimed by the processing job (processing.ts), with its lease: what its stages read. */
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
  /** A URL source, and whether it is to be fetched now (never fetched, or due for refresh). */
  sourceUrl: string | null;
  crawl: unknown;
  fetchDue: boolean;
}

/** What became of a claimed document. */
export type ProcessingOutcome =
  | { kind: 'ready'; chunks: number }
  | { kind: 'failed'; stage: Stage; error: string }
  /** A vendor or site that may answer later: the lease is shortened so another attempt comes soon. */
  | { kind: 'retry'; stage: Stage; error: string }
  | { kind: 'lease_lost' };

export interface ProcessingDeps {
  /** The embedder of a model, as this process is configured (keys, endpoints). Throws EmbeddingError when it cannot be. */
  embedderFor(model: string): Embedder;
  /** Fetches a URL source as Markdown. */
  fetchUrl(source: { url: string; crawl: unknown }, signal: AbortSignal): Promise<{ markdown: string }>;
  /** How long the lease is renewed for at each step. */
  leaseMs: number;
  /** Where the database has pgvector: mirrors vectors just written into its index (search/pgvector.ts). */
  mirrorVectors?: ((rows: Array<{ chunkId: number; model: string; vector: Float32Array }>) => Promise<void>) | undefined;
}

class LeaseLost extends Error {}
class StageFailed extends Error {
  constructor(
    readonly stage: Stage,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/** Texts embedded per request and per fenced write: small enough that a crash loses little, big enough to batch well. */
const EMBED_BATCH = 64;
/** Three rounds: an assistant attached while the job ran adds its index before the document is called ready. */
const MAX_ROUNDS = 3;
/** A retryable failure brings the next attempt this soon, rather than after a whole lease. */
const RETRY_AFTER_MS = 30_000;

function readable(error: unknown, stage: Stage): StageFailed {
  if (error instanceof StageFailed) return error;
  if (error instanceof DocumentParseError) return new StageFailed(stage, error.message, false);
  if (error instanceof EmbeddingError) return new StageFailed(stage, error.message, error.retryable);
  if (error instanceof UrlSourceError) return new StageFailed(stage, error.message, error.retryable);
  const plain: Record<Stage, string> = {
    fetch: 'The URL could not be fetched.',
    parse: 'The document could not be converted to Markdown.',
    chunk: 'The document could not be cut into chunks.',
    embed: 'The chunks could not be embedded.',
  };
  return new StageFailed(stage, plain[stage], false);
}

export async function processDocument(db: PrismaClient, job: ClaimedDocument, deps: ProcessingDeps): Promise<ProcessingOutcome> {
  const abort = new AbortController();
  const leaseMs = deps.leaseMs;
  // A stage may outlast the lease (a crawl, a long document's embeddings): the lease is renewed while it runs, and a
  // renewal that finds the lease gone stops the work.
  const lease = holdLease({
    renew: async () =>
      (await db.$executeRaw`UPDATE documents SET lease_expires_at = now() + ${leaseMs} * interval '1 millisecond' WHERE id = ${job.id} AND lease_token = ${job.leaseToken}`) >
      0,
    everyMs: Math.max(1_000, leaseMs / 3),
    onLost: () => abort.abort(new LeaseLost()),
    // A database away fails the stage's own writes too; the next renewal tries again.
    onError: () => undefined,
  });
  try {
    let markdown = job.content;
    let replaced = false;
    if (job.fetchDue && job.sourceUrl !== null) {
      const fetched = await stage('fetch', () => deps.fetchUrl({ url: job.sourceUrl!, crawl: job.crawl }, abort.signal));
      replaced = fetched.markdown !== markdown;
      markdown = fetched.markdown;
      await fenced(db, job, leaseMs, async (tx) => {
        await tx.$executeRaw`
          UPDATE documents SET content = ${markdown}, size_bytes = ${Buffer.byteLength(markdown)}, fetched_at = now(),
            next_refresh_at = CASE WHEN refresh_interval_hours IS NULL THEN NULL ELSE now() + refresh_interval_hours * interval '1 hour' END,
            updated_at = now()
          WHERE id = ${job.id}`;
      });
    } else if (job.sourceBytes !== null) {
      markdown = await stage('parse', () => toMarkdown({ bytes: job.sourceBytes!, mediaType: job.mediaType, filename: job.filename }));
      replaced = true;
      // The Markdown is now the canonical form: the source is not kept once converted.
      await fenced(db, job, leaseMs, async (tx) => {
        await tx.$executeRaw`UPDATE documents SET content = ${markdown}, source_bytes = NULL, updated_at = now() WHERE id = ${job.id}`;
      });
    }
    let specs: IndexSpec[] = [];
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const now = await requiredSpecs(db, job.id);
      const known = new Set(specs.map(specId));
      if (round > 0 && now.every((s) => known.has(specId(s)))) break;
      specs = now;
      for (const spec of specs) {
        await ensureChunks(db, job, leaseMs, markdown, spec, replaced);
        replaced = false;
        await embedMissing(db, job, spec, deps, abort.signal);
      }
    }
    return await finish(db, job, leaseMs, specs);
  } catch (error) {
    abort.abort();
    if (error instanceof LeaseLost || abort.signal.reason instanceof LeaseLost) return { kind: 'lease_lost' };
    if (error instanceof StageFailed) return error.retryable ? retryLater(db, job, error) : fail(db, job, error);
    throw error;
  } finally {
    await lease.release();
  }

  async function stage<T>(name: Stage, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw readable(error, name);
    }
  }
}

function specId(spec: IndexSpec): string {
  return `${spec.key}|${spec.embeddingModel}`;
}

/** Runs `write` in a transaction that first renews the lease; nothing is written by a process that lost it. */
async function fenced(db: PrismaClient, job: ClaimedDocument, leaseMs: number, write: (tx: Db) => Promise<void>): Promise<void> {
  await db.$transaction(async (tx) => {
    const kept = await tx.$executeRaw`
      UPDATE documents SET lease_expires_at = now() + ${leaseMs} * interval '1 millisecond'
      WHERE id = ${job.id} AND lease_token = ${job.leaseToken}`;
    if (kept === 0) throw new LeaseLost();
    await write(tx);
  });
}

/**
 * The chunk set of `spec`: cut now when the document has none with its chunking, or when the content was just
 * replaced (a refreshed URL), in which case every set is cut anew in one transaction: search moves from the old text
 * to the new at once, never a mix.
 */
async function ensureChunks(db: PrismaClient, job: ClaimedDocument, leaseMs: number, markdown: string, spec: IndexSpec, replaceAll: boolean): Promise<void> {
  if (!replaceAll) {
    const existing = await db.documentChunk.count({ where: { documentId: job.id, chunking: spec.key } });
    if (existing > 0) return;
  }
  let chunks: Chunk[];
  try {
    chunks = chunkMarkdown(markdown, spec.chunking);
  } catch (error) {
    throw readable(error, 'chunk');
  }
  if (chunks.length === 0) throw new StageFailed('chunk', 'The document holds no text to index.', false);
  await fenced(db, job, leaseMs, async (tx) => {
    await tx.documentChunk.deleteMany({ where: replaceAll ? { documentId: job.id } : { documentId: job.id, chunking: spec.key } });
    await tx.documentChunk.createMany({
      data: chunks.map((c, position) => ({
        documentId: job.id,
        chunking: spec.key,
        position,
        content: c.content,
        headingPath: c.headingPath,
        startOffset: c.start,
        endOffset: c.end,
        tokenCount: c.tokenCount,
      })),
    });
    if (replaceAll) await tx.$executeRaw`UPDATE documents SET index_version = index_version + 1 WHERE id = ${job.id}`;
  });
}

/**
 * Embeds the chunks of the set that lack the model's vector, a batch at a time, each batch written under the lease.
 * The next batch is read and sent to the model before the current one's vectors are awaited: a batch's last texts
 * keep one model thread busy while the other would wait, and the rows' write and the next read would leave both
 * idle, so with the next batch queued behind it every thread stays busy until the document's last chunk.
 */
async function embedMissing(db: PrismaClient, job: ClaimedDocument, spec: IndexSpec, deps: ProcessingDeps, signal: AbortSignal): Promise<void> {
  let embedder: Embedder;
  try {
    embedder = deps.embedderFor(spec.embeddingModel);
  } catch (error) {
    throw readable(error, 'embed');
  }
  type Pending = { batch: { id: number }[]; vectors: Promise<Float32Array[]> };
  // Whatever ends this stage (done, failed, the job's own abort) stops the batch sent ahead.
  const pipeline = new AbortController();
  const stop = () => pipeline.abort(signal.reason);
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
  // Batches are read by position, after the last one read: the batch in flight has no vectors yet, and reading by what
  // lacks one alone would read it again.
  let after = -1;
  const read = async (): Promise<Pending | undefined> => {
    const batch = await db.$queryRaw<{ id: number; position: number; content: string; heading_path: string[] }[]>`
      SELECT c.id, c.position, c.content, c.heading_path FROM document_chunks c
      WHERE c.document_id = ${job.id} AND c.chunking = ${spec.key} AND c.position > ${after}
        AND NOT EXISTS (SELECT 1 FROM chunk_embeddings e WHERE e.chunk_id = c.id AND e.model = ${spec.embeddingModel})
      ORDER BY c.position LIMIT ${EMBED_BATCH}`;
    if (batch.length === 0) return undefined;
    after = batch[batch.length - 1]!.position;
    const vectors = embedder.embed(
      batch.map((c) => embeddingText({ headingPath: c.heading_path, content: c.content })),
      { signal: pipeline.signal, purpose: 'document' },
    );
    // Awaited in its turn; until then a failure must not be an unhandled rejection.
    vectors.catch(() => undefined);
    return { batch, vectors };
  };
  try {
    let current = await read();
    while (current) {
      const next = await read();
      let vectors: Float32Array[];
      try {
        vectors = await current.vectors;
      } catch (error) {
        throw readable(error, 'embed');
      }
      const { batch } = current;
      if (vectors.length !== batch.length)
        throw new StageFailed('embed', `The embedding model answered ${vectors.length} vectors for ${batch.length} chunks.`, true);
      await fenced(db, job, deps.leaseMs, async (tx) => {
        await tx.chunkEmbedding.createMany({
          data: batch.map((c, i) => ({ chunkId: c.id, model: spec.embeddingModel, embedding: toBytes(vectors[i]!) })),
          skipDuplicates: true,
        });
      });
      // After the commit: a mirror that fails is caught up at the next start (PgVectors.catchUp), never lost.
      await deps.mirrorVectors?.(batch.map((c, i) => ({ chunkId: c.id, model: spec.embeddingModel, vector: vectors[i]! }))).catch(() => undefined);
      current = next;
    }
  } finally {
    signal.removeEventListener('abort', stop);
    pipeline.abort(new Error('embedding stage over'));
  }
}

/**
 * Ready: the indexes recorded, and the chunk sets and vectors no assistant asks for any more dropped, in one fenced
 * transaction with a new index version, so cached indexes of the old state are reloaded.
 */
async function finish(db: PrismaClient, job: ClaimedDocument, leaseMs: number, specs: IndexSpec[]): Promise<ProcessingOutcome> {
  const keys = [...new Set(specs.map((s) => s.key))];
  let indexes: DocumentIndex[] = [];
  await fenced(db, job, leaseMs, async (tx) => {
    await tx.documentChunk.deleteMany({ where: { documentId: job.id, chunking: { notIn: keys } } });
    for (const key of keys) {
      const models = specs.filter((s) => s.key === key).map((s) => s.embeddingModel);
      await tx.$executeRaw`
        DELETE FROM chunk_embeddings e USING document_chunks c
        WHERE e.chunk_id = c.id AND c.document_id = ${job.id} AND c.chunking = ${key} AND NOT (e.model = ANY(${models}))`;
    }
    const counts = await tx.$queryRaw<{ chunking: string; chunks: number; tokens: number }[]>`
      SELECT chunking, count(*)::int AS chunks, coalesce(sum(token_count), 0)::int AS tokens
      FROM document_chunks WHERE document_id = ${job.id} GROUP BY chunking`;
    const byKey = new Map(counts.map((c) => [c.chunking, c]));
    indexes = specs.map((s) => ({
      chunking: s.key,
      embedding_model: s.embeddingModel,
      chunk_count: byKey.get(s.key)?.chunks ?? 0,
      token_count: byKey.get(s.key)?.tokens ?? 0,
    }));
    const first = indexes[0]!;
    await tx.$executeRaw`
      UPDATE documents
      SET status = 'ready', chunk_count = ${first.chunk_count}, token_count = ${first.token_count}, embedding_model = ${first.embedding_model},
          indexes = ${JSON.stringify(indexes)}::jsonb, index_version = index_version + 1,
          processed_at = now(), failed_stage = NULL, error = NULL, lease_token = NULL, lease_expires_at = NULL, updated_at = now()
      WHERE id = ${job.id}`;
  });
  return { kind: 'ready', chunks: indexes[0]?.chunk_count ?? 0 };
}

async function fail(db: Db, job: ClaimedDocument, failure: StageFailed): Promise<ProcessingOutcome> {
  const kept = await db.$executeRaw`
    UPDATE documents SET status = 'failed', failed_stage = ${failure.stage}, error = ${failure.message}, lease_token = NULL, lease_expires_at = NULL, updated_at = now()
    WHERE id = ${job.id} AND lease_token = ${job.leaseToken}`;
  return kept === 0 ? { kind: 'lease_lost' } : { kind: 'failed', stage: failure.stage, error: failure.message };
}

/**
 * The document stays `processing`, showing why it waits, and its lease is cut short so another attempt comes soon;
 * when the attempts run out, the claim fails it with this error (processing.ts).
 */
async function retryLater(db: Db, job: ClaimedDocument, failure: StageFailed): Promise<ProcessingOutcome> {
  const kept = await db.$executeRaw`
    UPDATE documents SET failed_stage = ${failure.stage}, error = ${failure.message}, lease_expires_at = now() + ${RETRY_AFTER_MS} * interval '1 millisecond', updated_at = now()
    WHERE id = ${job.id} AND lease_token = ${job.leaseToken}`;
  return kept === 0 ? { kind: 'lease_lost' } : { kind: 'retry', stage: failure.stage, error: failure.message };
}
