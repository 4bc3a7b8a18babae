import { DocumentParseError } from './errors.js';

/**
 * UTF-8 bytes as text: a byte-order mark is dropped and line ends become `\n`. Invalid UTF-8 is refused rather than
 * turned into replacement characters, because it usually means the file is in another encoding or is not text at all.
 */
export function decodeUtf8(bytes: Buffer, what: string): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new DocumentParseError('unreadable_document', `This ${what} is not valid UTF-8 text. Save it with UTF-8 encoding and upload it again.`);
  }
  if (text.includes('\u0000')) {
    throw new DocumentParseError('unreadable_document', `This ${what} contains binary data (NUL bytes), so it is not a text file.`);
  }
  return text.replace(/\r\n?/g, '\n');
}

/** Markdown and plain text are kept as they are: plain text is already valid Markdown to read and to chunk. */
export function textToMarkdown(bytes: Buffer, mediaType: 'text/markdown' | 'text/plain'): string {
  return decodeUtf8(bytes, mediaType === 'text/markdown' ? 'Markdown file' : 'text file');
}
