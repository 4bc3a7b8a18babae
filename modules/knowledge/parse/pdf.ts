import { extractText, getDocumentProxy } from 'unpdf';
import { DocumentParseError } from './errors.js';

/**
 * A PDF's text, page by page, pages separated by a blank line. A PDF without any text layer (a scan, or pages of
 * images) is an error: we do no OCR, and an empty document would answer nothing.
 */
export async function pdfToMarkdown(bytes: Buffer): Promise<string> {
  let pages: string[];
  try {
    // pdf.js takes ownership of (and detaches) the array it is given: hand it a copy, never the caller's buffer.
    const pdf = await getDocumentProxy(new Uint8Array(bytes), { isEvalSupported: false });
    try {
      pages = (await extractText(pdf, { mergePages: false })).text;
    } finally {
      await pdf.destroy();
    }
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name === 'PasswordException') {
      throw new DocumentParseError('unreadable_document', 'This PDF is protected by a password. Remove the password and upload it again.');
    }
    throw new DocumentParseError('unreadable_document', 'This PDF is damaged or is not a PDF, so its text cannot be read.');
  }
  const texts = pages
    .map((page) =>
      page
        .replace(/\r\n?/g, '\n')
        .replace(/[ \t]+\n/g, '\n')
        .trim(),
    )
    .filter(Boolean);
  if (texts.length === 0) {
    throw new DocumentParseError(
      'empty_document',
      'This PDF has no text that can be extracted: it may be a scan or made of images. Upload a PDF with selectable text.',
    );
  }
  return texts.join('\n\n');
}
