import { UnsupportedDocument } from './errors.js';

export const DOCX_MEDIA_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** The media types `toMarkdown` converts, as stored on a document. */
export const SUPPORTED_MEDIA_TYPES = ['application/pdf', DOCX_MEDIA_TYPE, 'text/html', 'text/csv', 'text/markdown', 'text/plain'] as const;

export type SupportedMediaType = (typeof SUPPORTED_MEDIA_TYPES)[number];

const SUPPORTED = new Set<string>(SUPPORTED_MEDIA_TYPES);

/** Other names clients send for the same formats. */
const ALIASES: Record<string, SupportedMediaType> = {
  'application/xhtml+xml': 'text/html',
  'text/x-markdown': 'text/markdown',
  'application/csv': 'text/csv',
  'text/comma-separated-values': 'text/csv',
  'application/x-pdf': 'application/pdf',
};

/** Types that say nothing about the content: the extension or the bytes decide. */
const GENERIC = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/unknown']);

const EXTENSIONS: Record<string, SupportedMediaType> = {
  pdf: 'application/pdf',
  docx: DOCX_MEDIA_TYPE,
  html: 'text/html',
  htm: 'text/html',
  xhtml: 'text/html',
  csv: 'text/csv',
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
  text: 'text/plain',
};

const PDF_MAGIC = Buffer.from('%PDF-', 'latin1');
const ZIP_MAGIC = Buffer.from('PK\x03\x04', 'latin1');
// A zip names each entry in plain text in its local header and again in its central directory.
const DOCX_MAIN_PART = Buffer.from('word/document.xml', 'latin1');
// PDF readers accept the header anywhere in the first 1024 bytes (after a byte-order mark or junk a mailer added).
const PDF_HEADER_WINDOW_BYTES = 1024;

function normalise(declared: string | null): string {
  return (declared ?? '').split(';')[0]!.trim().toLowerCase();
}

function extensionOf(filename: string | null): string | null {
  const match = /\.([a-z0-9]+)$/i.exec(filename ?? '');
  return match ? match[1]!.toLowerCase() : null;
}

function sniff(bytes: Buffer): SupportedMediaType | null {
  if (bytes.subarray(0, PDF_HEADER_WINDOW_BYTES).includes(PDF_MAGIC)) return 'application/pdf';
  if (bytes.subarray(0, 4).equals(ZIP_MAGIC) && bytes.includes(DOCX_MAIN_PART)) return DOCX_MEDIA_TYPE;
  return null;
}

/**
 * The type a document is converted as: the declared type when it names a format, else the file name's extension, else
 * the bytes (`%PDF-`, or a zip holding `word/document.xml`). Throws `UnsupportedDocument` for a declared type or an
 * extension we do not read, and for bytes we cannot recognise.
 */
export function mediaTypeOf(filename: string | null, declared: string | null, bytes: Buffer): SupportedMediaType {
  const type = normalise(declared);
  if (SUPPORTED.has(type)) return type as SupportedMediaType;
  if (ALIASES[type]) return ALIASES[type];
  if (!GENERIC.has(type)) {
    throw new UnsupportedDocument(`Documents of type ${type} are not supported. Upload a PDF, Word (.docx), HTML, CSV, Markdown or plain text file.`);
  }
  const extension = extensionOf(filename);
  if (extension && EXTENSIONS[extension]) return EXTENSIONS[extension];
  const sniffed = sniff(bytes);
  if (sniffed) return sniffed;
  if (extension) {
    throw new UnsupportedDocument(`Files ending in .${extension} are not supported. Upload a PDF, Word (.docx), HTML, CSV, Markdown or plain text file.`);
  }
  throw new UnsupportedDocument(
    'The type of this document could not be told from its name or content. Give it a file extension or a content type: PDF, Word (.docx), HTML, CSV, Markdown or plain text.',
  );
}
