import { ConversionThreads } from './conversion-threads.js';
import { DocumentParseError } from './errors.js';
import { mediaTypeOf } from './media-types.js';
import { textToMarkdown } from './text.js';

export { DocumentParseError, UnsupportedDocument } from './errors.js';
export { SUPPORTED_MEDIA_TYPES, mediaTypeOf } from './media-types.js';

// The longest one conversion may take. Measured on a 2-core machine (bench/knowledge/parse.ts), the slowest parsers
// give ~1 MB of Markdown per second (DOCX, PDF, HTML), and a thread takes 0.2 s to start plus its parser's load (0.5 s
// for pdf.js), so 20 s converts documents of well over 10 MB; past it, the document is taken to be hostile and its
// thread is ended.
export const PARSE_TIMEOUT_MS = 20_000;
// The heap of a conversion's thread. A DOCX's unpacked parts are capped at 64 MB (docx.ts), and a DOM of an HTML page
// takes ~10× its size: 512 MB leaves room for both and still ends a runaway parser long before the process's own heap.
export const PARSE_HEAP_MB = 512;
// Everything a conversion's thread holds: its heap and the buffers outside it (ArrayBuffers, which the heap limit does
// not see). A 1.5 MB PDF of Flate streams that inflate to gigabytes took a process from 1.6 to 3.9 GB through those
// buffers alone. Measured every 50 ms, the thread is ended past this: no real document of at most 10 MiB comes near.
export const PARSE_MEMORY_MB = 768;
// One pool for the process: a crawl's pages and an upload's files reuse a thread while each converts well.
const threads = new ConversionThreads();

/**
 * A document as Markdown: PDF (text per page), Word .docx, HTML (the page's main content), CSV (tables), Markdown and
 * plain text (UTF-8). The type is the declared one, else the file name's, else the bytes' (`mediaTypeOf`). Every
 * failure is a `DocumentParseError` whose message is a sentence fit to show a user; a conversion that runs past
 * `PARSE_TIMEOUT_MS`, its heap or `PARSE_MEMORY_MB` in all is ended without harm to this process. The caller caps the input's size.
 */
export async function toMarkdown(
  source: { bytes: Buffer; mediaType: string; filename: string | null },
  options: { timeoutMs?: number; memoryLimitMb?: number } = {},
): Promise<string> {
  const mediaType = mediaTypeOf(source.filename, source.mediaType, source.bytes);
  if (mediaType === 'text/plain' || mediaType === 'text/markdown') {
    // Decoding is linear and needs no parser: no thread to start.
    const markdown = textToMarkdown(source.bytes, mediaType).replaceAll('\u0000', '').trim();
    if (!markdown) {
      throw new DocumentParseError('empty_document', mediaType === 'text/plain' ? 'This text file is empty.' : 'This Markdown file is empty.');
    }
    return `${markdown}\n`;
  }
  return threads.convert(source.bytes, mediaType, {
    timeoutMs: options.timeoutMs ?? PARSE_TIMEOUT_MS,
    heapMb: PARSE_HEAP_MB,
    memoryLimitMb: options.memoryLimitMb ?? PARSE_MEMORY_MB,
  });
}
