// A thread documents are converted in, one at a time (modules/knowledge/parse/conversion-threads.ts): a document that
// hangs a parser or takes all of its memory ends this thread, not the process. Plain JavaScript so that it starts the
// same under any loader.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();

const CODES = new Set(['unsupported_document', 'unreadable_document', 'empty_document', 'document_too_complex']);
const { convert } = await import('./convert.ts');

parentPort.on('message', async ({ bytes, mediaType }) => {
  try {
    const markdown = await convert(Buffer.from(bytes), mediaType);
    parentPort.postMessage({ ok: true, markdown });
  } catch (error) {
    // Only our own errors carry a sentence for users; anything else a parser threw is reported without its wording.
    const known = CODES.has(error?.code);
    parentPort.postMessage({
      ok: false,
      code: known ? error.code : 'unreadable_document',
      message: known ? error.message : null,
    });
  }
});
