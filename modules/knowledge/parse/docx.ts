import JSZip from 'jszip';
import mammoth from 'mammoth';
import { DocumentParseError } from './errors.js';
import { htmlToMarkdown } from './markdown.js';

// What the parts of one DOCX that are read may expand to. A 300-page Word document's XML comes to a few MB; a zip bomb
// expands a few KB into GBs, which would take the thread's memory before mammoth saw a byte. Pictures and embedded
// files are not counted: they are never unpacked (their text is their alt text).
export const DOCX_MAX_EXPANDED_BYTES = 64 * 1024 * 1024;

const NEVER_READ = /^word\/(media|embeddings)\//;

const TOO_LARGE = 'This Word document expands to more than 64 MB of text and markup when unpacked, more than any real document: it cannot be read.';
const DAMAGED = 'This Word document is damaged or is not a .docx file, so its text cannot be read.';

/**
 * Counts the bytes every part of the zip expands to, streaming, and stops at the bound: the declared sizes in a zip's
 * directory can lie, so they are not trusted.
 */
async function checkExpandedSize(bytes: Buffer): Promise<void> {
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(bytes, { checkCRC32: false });
  } catch {
    throw new DocumentParseError('unreadable_document', DAMAGED);
  }
  if (!zip.file('word/document.xml')) throw new DocumentParseError('unreadable_document', DAMAGED);
  let total = 0;
  for (const entry of Object.values(zip.files)) {
    if (entry.dir || NEVER_READ.test(entry.name)) continue;
    await new Promise<void>((resolve, reject) => {
      const stream = entry.nodeStream('nodebuffer');
      stream
        .on('data', (chunk: Buffer) => {
          total += chunk.length;
          if (total > DOCX_MAX_EXPANDED_BYTES) {
            stream.pause();
            reject(new DocumentParseError('document_too_complex', TOO_LARGE));
          }
        })
        .on('error', () => reject(new DocumentParseError('unreadable_document', DAMAGED)))
        .on('end', () => resolve());
    });
  }
}

// mammoth would read every picture into a base64 data URI; only its alt text is kept, so its bytes are never read.
const SKIP_IMAGE_BYTES = mammoth.images.imgElement(async () => ({ src: '' }));

/** A Word document through mammoth's semantic HTML (headings, lists, tables, emphasis) to Markdown. */
export async function docxToMarkdown(bytes: Buffer): Promise<string> {
  await checkExpandedSize(bytes);
  let html: string;
  try {
    html = (await mammoth.convertToHtml({ buffer: bytes }, { convertImage: SKIP_IMAGE_BYTES })).value;
  } catch {
    throw new DocumentParseError('unreadable_document', DAMAGED);
  }
  return htmlToMarkdown(html);
}
