import type { Db, PrismaClient } from '../../../prisma/client.js';
import { fromBytes } from '../vectors.js';
import type { VectorHit, VectorIndex } from './vector-index.js';
import type { ScopeDocument } from './scope.js';

// Vector search in Postgres, where the `vector` extension (pgvector) is installed: the Docker compose database has it,
// the embedded one does not (memory-vectors.ts serves there). The vectors stay in chunk_embeddings, the record of
// truth on both paths; here each is mirrored into chunk_vectors as a `vector`, with one HNSW index (cosine) per
// dimension count, as a partial index over a typed cast: an HNSW index needs a fixed dimension, and one table serves
// every model. The mirror table and its indexes are made at start-up, not by a migration, because the extension may be
// missing; rows cascade from chunk_embeddings, so a deleted document or dropped model leaves nothing behind.

/** pgvector indexes `vector` up to 2,000 dimensions and `halfvec` up to 4,000: text-embedding-3-large (3,072) takes halfvec. */
const MAX_VECTOR_DIMS = 2000;
const MAX_HALFVEC_DIMS = 4000;
/** Candidates the HNSW scan keeps: recall over 0.99 at 100k chunks for ~2 ms more than the default 40. */
const EF_SEARCH = 100;
/** Rows mirrored per statement when catching up. */
const BACKFILL_BATCH = 500;

/** Whether this database has pgvector, creating the extension when it is available and allowed. */
export async function detectPgvector(db: Db): Promise<boolean> {
  const available = await db.$queryRaw<{ installed: boolean }[]>`
    SELECT installed_version IS NOT NULL AS installed FROM pg_available_extensions WHERE name = 'vector'`;
  if (available.length === 0) return false;
  if (!available[0]!.installed) {
    try {
      await db.$executeRawUnsafe('CREATE EXTENSION IF NOT EXISTS vector');
    } catch {
      // Available but not ours to create (not a superuser, not trusted): vectors stay in memory.
      return false;
    }
  }
  return true;
}

function castOf(dims: number): string {
  if (!Number.isInteger(dims) || dims <= 0 || dims > MAX_HALFVEC_DIMS) throw new RangeError(`no vector index for ${dims} dimensions`);
  return dims <= MAX_VECTOR_DIMS ? `vector(${dims})` : `halfvec(${dims})`;
}

function literal(vector: Float32Array): string {
  return `[${Array.from(vector, (v) => (Number.isFinite(v) ? v : 0)).join(',')}]`;
}

export class PgVectors implements VectorIndex {
  readonly #db: PrismaClient;
  readonly kind = 'pgvector' as const;
  readonly #indexed = new Set<number>();
  #ready: Promise<void> | undefined;
  /** pgvector 0.8 and later scan an HNSW index past rows a filter drops. */
  #iterative = false;

  constructor(db: PrismaClient) {
    this.#db = db;
  }

  /** The mirror table (idempotent; any number of processes may run it at once). */
  ready(): Promise<void> {
    this.#ready ??= (async () => {
      await this.#db.$executeRawUnsafe(`
        CREATE TABLE IF NOT EXISTS chunk_vectors (
          chunk_id INTEGER NOT NULL,
          model TEXT NOT NULL,
          dims INTEGER NOT NULL,
          embedding vector NOT NULL,
          PRIMARY KEY (chunk_id, model),
          FOREIGN KEY (chunk_id, model) REFERENCES chunk_embeddings (chunk_id, model) ON DELETE CASCADE
        )`);
      const [version] = await this.#db.$queryRaw<{ v: string }[]>`SELECT extversion AS v FROM pg_extension WHERE extname = 'vector'`;
      const [major = 0, minor = 0] = (version?.v ?? '0.0').split('.').map(Number);
      this.#iterative = major > 0 || minor >= 8;
    })().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  async #index(dims: number): Promise<void> {
    if (this.#indexed.has(dims)) return;
    const cast = castOf(dims);
    const ops = dims <= MAX_VECTOR_DIMS ? 'vector_cosine_ops' : 'halfvec_cosine_ops';
    await this.#db.$executeRawUnsafe(
      `CREATE INDEX IF NOT EXISTS chunk_vectors_hnsw_${dims} ON chunk_vectors USING hnsw ((embedding::${cast}) ${ops}) WHERE dims = ${dims}`,
    );
    this.#indexed.add(dims);
  }

  /** Mirrors the vectors of chunk_embeddings that chunk_vectors lacks; returns how many it mirrored. */
  async catchUp(): Promise<number> {
    await this.ready();
    let total = 0;
    for (;;) {
      const rows = await this.#db.$queryRaw<{ chunk_id: number; model: string; embedding: Uint8Array }[]>`
        SELECT e.chunk_id, e.model, e.embedding FROM chunk_embeddings e
        WHERE NOT EXISTS (SELECT 1 FROM chunk_vectors v WHERE v.chunk_id = e.chunk_id AND v.model = e.model)
        LIMIT ${BACKFILL_BATCH}`;
      if (rows.length === 0) return total;
      await this.write(rows.map((r) => ({ chunkId: r.chunk_id, model: r.model, vector: fromBytes(r.embedding) })));
      total += rows.length;
    }
  }

  /** Mirrors vectors just written to chunk_embeddings. */
  async write(rows: Array<{ chunkId: number; model: string; vector: Float32Array }>): Promise<void> {
    if (rows.length === 0) return;
    await this.ready();
    for (const dims of new Set(rows.map((r) => r.vector.length))) await this.#index(dims);
    await this.#db.$executeRaw`
      INSERT INTO chunk_vectors (chunk_id, model, dims, embedding)
      SELECT chunk_id, model, dims, embedding::vector
      FROM unnest(${rows.map((r) => r.chunkId)}::int[], ${rows.map((r) => r.model)}::text[], ${rows.map((r) => r.vector.length)}::int[], ${rows.map((r) => literal(r.vector))}::text[])
        AS t(chunk_id, model, dims, embedding)
      WHERE EXISTS (SELECT 1 FROM chunk_embeddings e WHERE e.chunk_id = t.chunk_id AND e.model = t.model)
      ON CONFLICT (chunk_id, model) DO NOTHING`;
  }

  /** The index lives in Postgres: only the mirror table is made sure of. */
  async warm(): Promise<void> {
    await this.ready();
  }

  /** The `limit` chunks of the documents nearest to `query`, through the HNSW index of its dimension. */
  async search(documents: ScopeDocument[], model: string, query: Float32Array, limit: number): Promise<VectorHit[]> {
    const searched = documents.filter((d) => d.hasVectors);
    if (searched.length === 0) return [];
    await this.ready();
    const dims = query.length;
    await this.#index(dims);
    const cast = castOf(dims);
    const ids = searched.map((d) => d.id);
    const chunkings = searched.map((d) => d.chunking);
    return this.#db.$transaction(async (tx) => {
      // Filtered HNSW scans stop early; iterative scans (pgvector 0.8) keep going until `limit` rows pass the filter.
      await tx.$executeRawUnsafe(`SET LOCAL hnsw.ef_search = ${EF_SEARCH}`);
      if (this.#iterative) await tx.$executeRawUnsafe(`SET LOCAL hnsw.iterative_scan = relaxed_order`);
      const rows = await tx.$queryRawUnsafe<{ chunk_id: number; score: number }[]>(
        `SELECT v.chunk_id, (1 - ((v.embedding::${cast}) <=> $1::${cast}))::float8 AS score
         FROM chunk_vectors v
         JOIN document_chunks c ON c.id = v.chunk_id
         JOIN unnest($2::int[], $3::text[]) AS s(document_id, chunking) ON s.document_id = c.document_id AND s.chunking = c.chunking
         WHERE v.model = $4 AND v.dims = ${dims}
         ORDER BY (v.embedding::${cast}) <=> $1::${cast}
         LIMIT ${Math.max(1, Math.floor(limit))}`,
        literal(query),
        ids,
        chunkings,
        model,
      );
      return rows.map((r) => ({ chunkId: r.chunk_id, score: r.score }));
    });
  }
}
