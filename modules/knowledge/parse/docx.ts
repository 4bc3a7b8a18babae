import JSZip from 'jszip';
import mammoth from 'mammoth';
import { DocumentParseError } from './errors.js';
import { htmlToMarkdown } from './markdown.js';

// What the parts of one DOCX may expand to. A 300-page Word document's parts come to a few MB of XML; a zip bomb
// expands a few KB into GBs, which would take the whole process's memory before mammoth saw a byte.
export const DOCX_MAX_EXPANDED_BYTES = 64 * 1024 * 1024;

const TOO_LARGE =
  'This Word document expands to more than 64 MB when unpacked, more than any real document: it cannot be read.';
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
    if (entry.dir) continue;
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

/** A Word document through mammoth's semantic HTML (headings, lists, tables, emphasis) to Markdown. */
export async function docxToMarkdown(bytes: Buffer): Promise<string> {
  await checkExpandedSize(bytes);
  let html: string;
  try {
    html = (await mammoth.convertToHtml({ buffer: bytes })).value;
  } catch {
    throw new DocumentParseError('unreadable_document', DAMAGED);
  }
  return htmlToMarkdown(html);
}
