import { RequestThread } from '../../../lib/request-thread.js';
import type { VectorHit } from './vector-index.js';

// The vectors of large knowledge, held and searched in a thread of their own (vector-thread-entry.mjs): an exact scan
// of 100,000 chunks of 512 dimensions took 126 ms of the call's event loop per query in JavaScript; in the thread, in
// native SIMD code, it takes ~10 ms and the event loop none. Exact, so nothing is missed that the scan would find.
// One thread per process, started on first use (lib/request-thread.ts).

type Answer = { id: number; ok: boolean; ids?: number[]; scores?: number[]; missingKeys?: string[]; error?: string };

export class VectorThread {
  readonly #thread = new RequestThread<Answer>(
    new URL('./vector-thread-entry.mjs', import.meta.url),
    (why) => new Error(`The vector search thread stopped (${why}).`),
  );

  /** Gives the thread a document's rows of `dimensions` floats (a copy), searched under `key` from now on. */
  async put(key: string, dimensions: number, chunkIds: Int32Array, vectors: Float32Array): Promise<void> {
    const answer = await this.#thread.request({ op: 'put', key, dimensions, chunkIds, vectors });
    if (!answer.ok) throw new Error(answer.error ?? 'vectors not taken');
  }

  /** The `limit` nearest chunks over the documents of `keys`, and the keys the thread does not hold. */
  async search(keys: string[], query: Float32Array, limit: number): Promise<{ hits: VectorHit[]; missing: string[] }> {
    const answer = await this.#thread.request({ op: 'search', keys, query, limit });
    if (!answer.ok) throw new Error(answer.error ?? 'search failed');
    return { hits: answer.ids!.map((chunkId, i) => ({ chunkId, score: answer.scores![i]! })), missing: answer.missingKeys ?? [] };
  }

  drop(key: string): void {
    void this.#thread.request({ op: 'drop', key }).catch(() => {});
  }

  /** Ends the thread; the vectors it held are given to it again on demand. */
  close(): Promise<void> {
    return this.#thread.close();
  }
}
