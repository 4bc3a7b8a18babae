import type { Db } from '../../../prisma/client.js';
import { fromBytes } from '../vectors.js';
import type { ScopeDocument } from './scope.js';
import type { VectorHit, VectorIndex } from './vector-index.js';

// Vector search without pgvector (the embedded Postgres has none): each document's vectors of a model are loaded once
// into one Float32Array and kept, keyed by the document's index version, so a changed document is loaded afresh and a
// deleted one is never asked for again. A query is an exact scan (a dot product per chunk: the vectors are unit
// length), which measures ~10 ms per 10,000 chunks of 512 dimensions here (docs/benchmarks.md); pgvector's HNSW index
// takes over where it is installed (pgvector.ts). The cache is bounded in bytes and drops the least recently used.

interface Block {
  chunkIds: Int32Array;
  vectors: Float32Array;
  dimensions: number;
  bytes: number;
}

/** 512 MiB: 100,000 chunks of 1,536 dimensions fit in 600 MiB; most assistants' knowledge is far smaller. */
export const DEFAULT_CACHE_BYTES = 512 * 1024 * 1024;

export class MemoryVectors implements VectorIndex {
  readonly kind = 'memory' as const;
  readonly #db: Db;
  readonly #maxBytes: number;
  readonly #blocks = new Map<string, Block>();
  readonly #loading = new Map<string, Promise<Block>>();
  #bytes = 0;

  constructor(db: Db, options: { maxBytes?: number } = {}) {
    this.#db = db;
    this.#maxBytes = options.maxBytes ?? DEFAULT_CACHE_BYTES;
  }

  get cachedBytes(): number {
    return this.#bytes;
  }

  /** The `limit` chunks of the documents nearest to `query` (a unit vector of `model`). */
  async search(documents: ScopeDocument[], model: string, query: Float32Array, limit: number): Promise<VectorHit[]> {
    const blocks = await Promise.all(documents.filter((d) => d.hasVectors).map((d) => this.#block(d, model)));
    const top = new TopK(limit);
    for (const block of blocks) {
      if (block.dimensions !== query.length) continue;
      const { vectors, chunkIds, dimensions } = block;
      for (let row = 0, offset = 0; row < chunkIds.length; row++, offset += dimensions) {
        let dot = 0;
        for (let i = 0; i < dimensions; i++) dot += vectors[offset + i]! * query[i]!;
        top.offer(chunkIds[row]!, dot);
      }
    }
    return top.sorted();
  }

  async warm(documents: ScopeDocument[], model: string): Promise<void> {
    await Promise.all(documents.filter((d) => d.hasVectors).map((d) => this.#block(d, model)));
  }

  async #block(document: ScopeDocument, model: string): Promise<Block> {
    const key = `${document.id}|${document.chunking}|${model}|${document.indexVersion}`;
    const cached = this.#blocks.get(key);
    if (cached) {
      // Most recently used last: Map keeps insertion order.
      this.#blocks.delete(key);
      this.#blocks.set(key, cached);
      return cached;
    }
    let loading = this.#loading.get(key);
    if (!loading) {
      loading = this.#load(document, model).then(
        (block) => {
          this.#loading.delete(key);
          this.#forgetOlder(document);
          this.#blocks.set(key, block);
          this.#bytes += block.bytes;
          this.#evict();
          return block;
        },
        (error: unknown) => {
          this.#loading.delete(key);
          throw error;
        },
      );
      this.#loading.set(key, loading);
    }
    return loading;
  }

  async #load(document: ScopeDocument, model: string): Promise<Block> {
    const rows = await this.#db.$queryRaw<{ chunk_id: number; embedding: Uint8Array }[]>`
      SELECT e.chunk_id, e.embedding FROM chunk_embeddings e JOIN document_chunks c ON c.id = e.chunk_id
      WHERE c.document_id = ${document.id} AND c.chunking = ${document.chunking} AND e.model = ${model}
      ORDER BY e.chunk_id`;
    const dimensions = rows.length > 0 ? rows[0]!.embedding.byteLength / 4 : 0;
    const usable = rows.filter((r) => r.embedding.byteLength === dimensions * 4);
    const vectors = new Float32Array(usable.length * dimensions);
    const chunkIds = new Int32Array(usable.length);
    usable.forEach((r, i) => {
      chunkIds[i] = r.chunk_id;
      vectors.set(fromBytes(r.embedding), i * dimensions);
    });
    return { chunkIds, vectors, dimensions, bytes: vectors.byteLength + chunkIds.byteLength };
  }

  /** Versions of the document older than the one just loaded are never asked for again. */
  #forgetOlder(document: ScopeDocument): void {
    const prefix = `${document.id}|`;
    for (const [key, block] of this.#blocks) {
      if (key.startsWith(prefix) && Number(key.split('|')[3]) < document.indexVersion) {
        this.#blocks.delete(key);
        this.#bytes -= block.bytes;
      }
    }
  }

  #evict(): void {
    for (const [key, block] of this.#blocks) {
      if (this.#bytes <= this.#maxBytes || this.#blocks.size <= 1) return;
      this.#blocks.delete(key);
      this.#bytes -= block.bytes;
    }
  }
}

/** The best `k` of a stream of scored ids, kept sorted in a small array: k is tens, the stream tens of thousands. */
export class TopK {
  readonly #ids: number[] = [];
  readonly #scores: number[] = [];
  constructor(readonly k: number) {}

  offer(id: number, score: number): void {
    const n = this.#scores.length;
    if (n === this.k && score <= this.#scores[n - 1]!) return;
    let at = n;
    while (at > 0 && this.#scores[at - 1]! < score) at--;
    this.#scores.splice(at, 0, score);
    this.#ids.splice(at, 0, id);
    if (this.#scores.length > this.k) {
      this.#scores.pop();
      this.#ids.pop();
    }
  }

  sorted(): VectorHit[] {
    return this.#ids.map((chunkId, i) => ({ chunkId, score: this.#scores[i]! }));
  }
}
