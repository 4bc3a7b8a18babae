import { DocumentParseError } from './errors.js';
import { DOCX_MEDIA_TYPE, type SupportedMediaType } from './media-types.js';
import { textToMarkdown } from './text.js';

const EMPTY: Record<SupportedMediaType, string> = {
  'application/pdf': 'This PDF has no text that can be extracted.',
  [DOCX_MEDIA_TYPE]: 'This Word document has no text.',
  'text/html': 'This web page has no text to read.',
  'text/csv': 'This CSV file is empty.',
  'text/markdown': 'This Markdown file is empty.',
  'text/plain': 'This text file is empty.',
};

/**
 * One document of a known type as Markdown, in this thread (`toMarkdown` runs it in a bounded worker). Each parser is
 * loaded when its format is first met: a conversion's thread loads one parser, not all (pdf.js alone is ~2 MB of code).
 */
export async function convert(bytes: Buffer, mediaType: SupportedMediaType): Promise<string> {
  let markdown: string;
  try {
    switch (mediaType) {
      case 'application/pdf':
        markdown = await (await import('./pdf.js')).pdfToMarkdown(bytes);
        break;
      case DOCX_MEDIA_TYPE:
        markdown = await (await import('./docx.js')).docxToMarkdown(bytes);
        break;
      case 'text/html':
        markdown = (await import('./html.js')).htmlToMarkdownDocument(bytes);
        break;
      case 'text/csv':
        markdown = (await import('./csv.js')).csvToMarkdown(bytes);
        break;
      case 'text/markdown':
      case 'text/plain':
        markdown = textToMarkdown(bytes, mediaType);
        break;
    }
  } catch (error) {
    if (error instanceof DocumentParseError) throw error;
    if (error instanceof RangeError) {
      // The parsers walk the document tree recursively: thousands of nested elements overflow the stack.
      throw new DocumentParseError('document_too_complex', 'This document is nested too deeply to be converted (thousands of elements inside one another).');
    }
    throw new DocumentParseError('unreadable_document', 'This document is damaged and its text cannot be read.');
  }
  // Postgres text cannot hold NUL, and no format's text means one.
  markdown = markdown.replaceAll('\u0000', '').trim();
  if (!markdown) throw new DocumentParseError('empty_document', EMPTY[mediaType]);
  return `${markdown}\n`;
}
