import { describe, expect, it } from 'vitest';
import { UnsupportedDocument } from './errors.js';
import { DOCX_MEDIA_TYPE, mediaTypeOf, SUPPORTED_MEDIA_TYPES } from './media-types.js';
import { makeDocx, docxParagraph, makePdf } from './testing/fixtures.js';

const text = Buffer.from('hello');

describe('mediaTypeOf', () => {
  it('takes the declared type, without its parameters and in any case', () => {
    expect(mediaTypeOf('notes.pdf', 'text/plain; charset=utf-8', text)).toBe('text/plain');
    expect(mediaTypeOf(null, 'Text/HTML', text)).toBe('text/html');
    expect(mediaTypeOf(null, 'text/x-markdown', text)).toBe('text/markdown');
    expect(mediaTypeOf(null, DOCX_MEDIA_TYPE, text)).toBe(DOCX_MEDIA_TYPE);
    expect(SUPPORTED_MEDIA_TYPES).toHaveLength(6);
  });

  it('falls back to the extension when the declared type says nothing', () => {
    expect(mediaTypeOf('Report.PDF', 'application/octet-stream', text)).toBe('application/pdf');
    expect(mediaTypeOf('table.csv', null, text)).toBe('text/csv');
    expect(mediaTypeOf('README.md', '', text)).toBe('text/markdown');
    expect(mediaTypeOf('page.htm', null, text)).toBe('text/html');
    expect(mediaTypeOf('contract.docx', null, text)).toBe(DOCX_MEDIA_TYPE);
  });

  it('sniffs a PDF and a DOCX from their bytes when neither type nor extension tells', async () => {
    expect(mediaTypeOf(null, null, makePdf([['x']]))).toBe('application/pdf');
    expect(mediaTypeOf('upload', 'application/octet-stream', await makeDocx(docxParagraph('x')))).toBe(DOCX_MEDIA_TYPE);
  });

  it('refuses what it does not read, in a sentence', () => {
    expect(() => mediaTypeOf('photo.png', 'image/png', text)).toThrow(UnsupportedDocument);
    expect(() => mediaTypeOf('photo.png', 'image/png', text)).toThrow(
      'Documents of type image/png are not supported. Upload a PDF, Word (.docx), HTML, CSV, Markdown or plain text file.',
    );
    expect(() => mediaTypeOf('sheet.xlsx', null, text)).toThrow('Files ending in .xlsx are not supported.');
    expect(() => mediaTypeOf(null, null, Buffer.from('PK\x03\x04 a zip of something else'))).toThrow(
      'The type of this document could not be told from its name or content.',
    );
  });
});
