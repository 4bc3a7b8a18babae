import type { Db } from '../../../prisma/client.js';
import { fromBytes } from '../vectors.js';
import type { ScopeDocument } from './scope.js';
import type { VectorHit, VectorIndex } from './vector-index.js';
import { VectorThread } from './vector-thread.js';

// Vector search without pgvector (the embedded Postgres has none): each document's vectors of a model are loaded once
// into one Float32Array and kept, keyed by the document's index version, so a changed document is loaded afresh and a
// deleted one is never asked for again. A query is an exact scan (a dot product per chunk: the vectors are unit
// length), which measures ~10 ms per 10,000 chunks of 512 dimensions here (docs/benchmarks.md); pgvector's HNSW index
// takes over where it is installed (pgvector.ts). The cache is bounded in bytes and drops the least recently used.
// Knowledge of THREAD_MIN_ROWS chunks or more searched together (an assistant's) is searched in a thread of its own
// instead (vector-thread.ts), exactly, in native SIMD code: ~10 ms for 100,000 chunks and none of the event loop's time.
// The thread holds a copy of those documents' vectors while they are cached here (so the cache's bound counts twice for
// them); until it has them, or should it fail, the scan runs here in slices of SCAN_SLICE_ROWS, the event loop let
// through between them, so that large knowledge never holds a call's audio for the whole scan.

interface Block {
  key: string;
  chunkIds: Int32Array;
  vectors: Float32Array;
  dimensions: number;
  bytes: number;
  /** Settles true once the vector thread holds a copy of the block. */
  inThread?: Promise<boolean>;
}

/** From this many chunks searched together, the search goes to the vector thread (below, ~20 ms in slices here). */
export const THREAD_MIN_ROWS = 20_000;
/** Rows scanned between two yields of the event loop: about 5 ms of work at 512 dimensions. */
const SCAN_SLICE_ROWS = 4_096;

/** 512 MiB: 100,000 chunks of 1,536 dimensions fit in 600 MiB; most assistants' knowledge is far smaller. */
export const DEFAULT_CACHE_BYTES = 512 * 1024 * 1024;

export class MemoryVectors implements VectorIndex {
  readonly kind = 'memory' as const;
  readonly #db: Db;
  readonly #maxBytes: number;
  readonly #blocks = new Map<string, Block>();
  readonly #loading = new Map<string, Promise<Block>>();
  readonly #threadMinRows: number;
  readonly #thread: VectorThread;
  #bytes = 0;

  constructor(db: Db, options: { maxBytes?: number; threadMinRows?: number; thread?: VectorThread } = {}) {
    this.#db = db;
    this.#maxBytes = options.maxBytes ?? DEFAULT_CACHE_BYTES;
    this.#threadMinRows = options.threadMinRows ?? THREAD_MIN_ROWS;
    this.#thread = options.thread ?? new VectorThread();
  }

  get cachedBytes(): number {
    return this.#bytes;
  }

  /** The `limit` chunks of the documents nearest to `query` (a unit vector of `model`). */
  async search(documents: ScopeDocument[], model: string, query: Float32Array, limit: number): Promise<VectorHit[]> {
    const blocks = await Promise.all(documents.filter((d) => d.hasVectors).map((d) => this.#block(d, model)));
    const usable = blocks.filter((b) => b.dimensions === query.length);
    if (this.#large(usable)) {
      const found = await this.#searchInThread(usable, query, limit);
      if (found) return found;
    }
    const top = new TopK(limit);
    for (const block of usable) await scan(block, query, top);
    return top.sorted();
  }

  /** Whether the vector thread holds these documents' vectors now (tests, benchmarks). */
  async inThread(documents: ScopeDocument[], model: string): Promise<boolean> {
    const blocks = await Promise.all(documents.filter((d) => d.hasVectors).map((d) => this.#block(d, model)));
    const held = await Promise.all(blocks.map((b) => b.inThread ?? false));
    return blocks.length > 0 && held.every(Boolean);
  }

  #large(blocks: Block[]): boolean {
    return blocks.reduce((rows, b) => rows + b.chunkIds.length, 0) >= this.#threadMinRows;
  }

  /** Gives the thread the blocks it does not hold yet; settles true once it holds them all. */
  async #handOver(blocks: Block[]): Promise<boolean> {
    const held = await Promise.all(
      blocks.map(
        (b) =>
          (b.inThread ??= this.#thread.put(b.key, b.dimensions, b.chunkIds, b.vectors).then(
            () => true,
            () => false,
          )),
      ),
    );
    return held.every(Boolean);
  }

  /** The nearest chunks from the thread; undefined when it could not answer (the caller scans here). */
  async #searchInThread(blocks: Block[], query: Float32Array, limit: number): Promise<VectorHit[] | undefined> {
    if (!(await this.#handOver(blocks))) {
      for (const b of blocks) b.inThread = undefined;
      return undefined;
    }
    const found = await this.#thread
      .search(
        blocks.map((b) => b.key),
        query,
        limit,
      )
      .catch(() => undefined);
    if (found && found.missing.length === 0) return found.hits;
    // A thread that failed, or was started again and holds nothing: the blocks are given to it again next time.
    for (const b of blocks) b.inThread = undefined;
    return undefined;
  }

  /** Ends the vector thread; it is given the vectors again on demand. */
  async close(): Promise<void> {
    await this.#thread.close();
  }

  /** Loads the documents' vectors and, when they are many, gives them to the vector thread. */
  async warm(documents: ScopeDocument[], model: string): Promise<void> {
    const blocks = await Promise.all(documents.filter((d) => d.hasVectors).map((d) => this.#block(d, model)));
    if (this.#large(blocks)) await this.#handOver(blocks);
  }

  async #block(document: ScopeDocument, model: string): Promise<Block> {
    const key = blockKey(document, model);
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
    const key = blockKey(document, model);
    return { key, chunkIds, vectors, dimensions, bytes: vectors.byteLength + chunkIds.byteLength };
  }

  /** Versions of the document older than the one just loaded are never asked for again. */
  #forgetOlder(document: ScopeDocument): void {
    const prefix = `${document.id}|`;
    for (const [key, block] of this.#blocks) {
      if (key.startsWith(prefix) && Number(key.split('|')[3]) < document.indexVersion) this.#forget(key, block);
    }
  }

  #evict(): void {
    for (const [key, block] of this.#blocks) {
      if (this.#bytes <= this.#maxBytes || this.#blocks.size <= 1) return;
      this.#forget(key, block);
    }
  }

  #forget(key: string, block: Block): void {
    this.#blocks.delete(key);
    this.#bytes -= block.bytes;
    if (block.inThread) this.#thread.drop(key);
  }
}

const blockKey = (document: ScopeDocument, model: string) => `${document.id}|${document.chunking}|${model}|${document.indexVersion}`;

/** The exact scan of a block, a dot product per chunk, in slices with the event loop let through between them. */
async function scan(block: Block, query: Float32Array, top: TopK): Promise<void> {
  const { vectors, chunkIds, dimensions } = block;
  for (let start = 0; start < chunkIds.length; start += SCAN_SLICE_ROWS) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    const end = Math.min(start + SCAN_SLICE_ROWS, chunkIds.length);
    for (let row = start, offset = start * dimensions; row < end; row++, offset += dimensions) {
      let dot = 0;
      for (let i = 0; i < dimensions; i++) dot += vectors[offset + i]! * query[i]!;
      top.offer(chunkIds[row]!, dot);
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
