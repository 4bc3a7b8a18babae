import { describe, expect, it } from 'vitest';
import { CSV_ROWS_PER_TABLE } from './csv.js';
import { docxParagraph, docxTable, makeDocx, makeFlateBombPdf, makePdf } from './testing/fixtures.js';
import { DocumentParseError, toMarkdown, UnsupportedDocument } from './index.js';

function source(bytes: Buffer | string, mediaType: string, filename: string | null = null) {
  return { bytes: typeof bytes === 'string' ? Buffer.from(bytes) : bytes, mediaType, filename };
}

async function failure(promise: Promise<unknown>): Promise<DocumentParseError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DocumentParseError);
  expect((error as Error).message).not.toMatch(/\n\s+at /); // a sentence, never a stack
  return error as DocumentParseError;
}

describe('PDF', () => {
  it('keeps the text of each page, pages apart by a blank line', async () => {
    const pdf = makePdf([['Refund policy (2026)', 'Refunds within 30 days.'], [], ['Page three: contact us.']]);
    const markdown = await toMarkdown(source(pdf, 'application/pdf', 'policy.pdf'));
    expect(markdown).toBe('Refund policy (2026)\nRefunds within 30 days.\n\nPage three: contact us.\n');
  });

  it('says a PDF without text is probably a scan, and a broken one is damaged', async () => {
    const scanned = await failure(toMarkdown(source(makePdf([[], []]), 'application/pdf')));
    expect(scanned.code).toBe('empty_document');
    expect(scanned.message).toBe('This PDF has no text that can be extracted: it may be a scan or made of images. Upload a PDF with selectable text.');
    const broken = await failure(toMarkdown(source('%PDF-1.4 then nothing at all', 'application/pdf')));
    expect(broken.code).toBe('unreadable_document');
    expect(broken.message).toBe('This PDF is damaged or is not a PDF, so its text cannot be read.');
  });
});

describe('a PDF that inflates far beyond its size', () => {
  it('is abandoned once its conversion holds more than the memory bound, buffers outside the heap included, and the process lives on', async () => {
    // 300 MB of spaces in ~300 KB: its inflated stream is an ArrayBuffer, which the thread's heap limit never sees.
    const bomb = makeFlateBombPdf(300);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const error = await failure(toMarkdown(source(bomb, 'application/pdf', 'bomb.pdf'), { memoryLimitMb: 96 }));
    expect(error.code).toBe('document_too_complex');
    expect(error.message).toMatch(/more memory to convert than any real document/);
    // The same kind of file, small enough, still converts.
    expect(await toMarkdown(source(makeFlateBombPdf(1), 'application/pdf'), { memoryLimitMb: 96 })).toContain('Hello');
  }, 60_000);
});

describe('DOCX', () => {
  it('keeps headings, lists and tables', async () => {
    const docx = await makeDocx(
      [
        docxParagraph('Opening hours', { style: 'Heading1' }),
        docxParagraph('We are open on weekdays.'),
        docxParagraph('Monday to Friday', { bullet: true }),
        docxParagraph('9:00 to 17:00', { bullet: true }),
        docxParagraph('Prices', { style: 'Heading2' }),
        docxTable([
          ['Plan', 'Price'],
          ['Basic', '$5 | month'],
        ]),
      ].join(''),
    );
    const markdown = await toMarkdown(source(docx, 'application/octet-stream', 'hours.docx'));
    expect(markdown).toBe(
      [
        '# Opening hours',
        '',
        'We are open on weekdays.',
        '',
        '-   Monday to Friday',
        '-   9:00 to 17:00',
        '',
        '## Prices',
        '',
        '| Plan | Price |',
        '| --- | --- |',
        '| Basic | $5 \\| month |',
        '',
      ].join('\n'),
    );
  });

  it('refuses a damaged file and a zip bomb in readable words, and the process lives on', async () => {
    const damaged = await failure(toMarkdown(source('PK\x03\x04 not really a zip', '', 'letter.docx')));
    expect(damaged.message).toBe('This Word document is damaged or is not a .docx file, so its text cannot be read.');

    // 80 MB of zeros deflate to ~80 KB: past the 64 MB bound on what a DOCX's parts may unpack to.
    const bomb = await makeDocx(docxParagraph('tiny'), { 'word/footnotes.xml': new Uint8Array(80 * 1024 * 1024) });
    expect(bomb.length).toBeLessThan(200 * 1024);
    const error = await failure(toMarkdown(source(bomb, '', 'bomb.docx')));
    expect(error.code).toBe('document_too_complex');
    expect(error.message).toBe(
      'This Word document expands to more than 64 MB of text and markup when unpacked, more than any real document: it cannot be read.',
    );
    expect(await toMarkdown(source(await makeDocx(docxParagraph('still here')), '', 'after.docx'))).toBe('still here\n');
  });

  it('never unpacks pictures: a document with 80 MB of them converts', async () => {
    const pictures = await makeDocx(docxParagraph('Text beside the pictures'), {
      'word/media/image1.png': new Uint8Array(80 * 1024 * 1024),
    });
    expect(await toMarkdown(source(pictures, '', 'photos.docx'))).toBe('Text beside the pictures\n');
  });
});

describe('HTML', () => {
  const article = `<!doctype html><html><head><title>Shipping | Acme</title><style>p { color: red }</style>
    <script>window.secret = "never in the output"</script></head><body>
    <nav><a href="/">Home</a> <a href="/about">About</a></nav>
    <article><h1>Shipping</h1>
    ${'<p>We ship to every country in the European Union within three working days of the order, by tracked post. '.repeat(3)}</p>
    <p>Orders over <strong>50 euros</strong> ship free.</p>
    <ul><li>Standard: 3 days</li><li>Express: 1 day</li></ul>
    <table><thead><tr><th>Zone</th><th>Price</th></tr></thead><tbody><tr><td>EU</td><td>5 €</td></tr></tbody></table>
    <script>track()</script></article>
    <footer>© Acme</footer></body></html>`;

  it('keeps the main content as Markdown, never scripts or styles', async () => {
    const markdown = await toMarkdown(source(article, 'text/html'));
    expect(markdown).toContain('# Shipping');
    expect(markdown).toContain('Orders over **50 euros** ship free.');
    expect(markdown).toContain('-   Standard: 3 days\n-   Express: 1 day');
    expect(markdown).toContain('| Zone | Price |\n| --- | --- |\n| EU | 5 € |');
    expect(markdown).not.toMatch(/secret|track\(\)|color: red/);
    expect(markdown).not.toContain('About');
  });

  it('keeps the whole body when there is no article', async () => {
    const markdown = await toMarkdown(
      source('<html><body><script>x()</script><h2>Links</h2><p>See <a href="https://a.example">A</a></p></body></html>', 'text/html'),
    );
    expect(markdown).toContain('## Links');
    expect(markdown).toContain('See [A](https://a.example)');
    expect(markdown).not.toContain('x()');
  });

  it('survives a deeply nested page: converted or refused in words, and the process lives on', async () => {
    const depth = 20_000;
    const nested = `<html><body>${'<div>'.repeat(depth)}deep text${'</div>'.repeat(depth)}</body></html>`;
    const error = await failure(toMarkdown(source(nested, 'text/html')));
    expect(error.code).toBe('document_too_complex');
    expect(error.message).toBe('This web page nests its elements more than 1000 levels deep, far beyond any real page: it cannot be converted.');
    // 500 levels: beyond what Readability is given (its time grows too fast), converted whole.
    const deep = `<html><body>${'<div>'.repeat(500)}deep text${'</div>'.repeat(500)}</body></html>`;
    expect(await toMarkdown(source(deep, 'text/html'))).toBe('deep text\n');
    expect(await toMarkdown(source('<p>after</p>', 'text/html'))).toBe('after\n');
  });
});

describe('CSV', () => {
  it('becomes a table under its header, pipes escaped, short rows padded', async () => {
    const csv = 'Question,Answer\n"Do you ship | deliver?","Yes, everywhere"\nOpen on Sunday?\n';
    expect(await toMarkdown(source(csv, 'text/csv'))).toBe(
      ['| Question | Answer |', '| --- | --- |', '| Do you ship \\| deliver? | Yes, everywhere |', '| Open on Sunday? |  |', ''].join('\n'),
    );
  });

  it(`cuts a long file into tables of ${CSV_ROWS_PER_TABLE} rows, each under the header again`, async () => {
    const rows = Array.from({ length: 60 }, (_, i) => `item ${i + 1},${i + 1}`);
    const markdown = await toMarkdown(source(`Name,Count\n${rows.join('\n')}`, 'text/csv'));
    const tables = markdown.trim().split('\n\n');
    expect(tables.map((t) => t.split('\n').length)).toEqual([27, 27, 12]);
    for (const table of tables) expect(table.startsWith('| Name | Count |\n| --- | --- |\n')).toBe(true);
    expect(tables[2]).toContain('| item 60 | 60 |');
  });

  it('writes each row of a wide file as its columns and values', async () => {
    const header = Array.from({ length: 15 }, (_, i) => `c${i + 1}`).join(',');
    const values = Array.from({ length: 15 }, (_, i) => `v${i + 1}`).join(',');
    const markdown = await toMarkdown(source(`${header}\n${values}\n`, 'text/csv'));
    expect(markdown).toMatch(/^## Row 1\n\n- \*\*c1\*\*: v1\n- \*\*c2\*\*: v2\n/);
    expect(markdown).toContain('- **c15**: v15');
  });

  it('names the line of a malformed file', async () => {
    const error = await failure(toMarkdown(source('a,b\n1,"2\n', 'text/csv')));
    expect(error.message).toMatch(/^This CSV file cannot be read \(line \d+\): check its quotes and separators\.$/);
  });
});

describe('Markdown and plain text', () => {
  it('are kept as UTF-8 text, the byte-order mark dropped, line ends made \\n', async () => {
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('# Título\r\n\r\n- uno\r\n')]);
    expect(await toMarkdown(source(bom, 'text/markdown', 'faq.md'))).toBe('# Título\n\n- uno\n');
    expect(await toMarkdown(source('plain words', '', 'notes.txt'))).toBe('plain words\n');
  });

  it('refuses invalid UTF-8, binary and empty files in words', async () => {
    const latin1 = await failure(toMarkdown(source(Buffer.from([0x63, 0x61, 0x66, 0xe9]), 'text/plain')));
    expect(latin1.message).toBe('This text file is not valid UTF-8 text. Save it with UTF-8 encoding and upload it again.');
    const binary = await failure(toMarkdown(source(Buffer.from([0x61, 0x00, 0x62]), 'text/plain')));
    expect(binary.message).toBe('This text file contains binary data (NUL bytes), so it is not a text file.');
    const empty = await failure(toMarkdown(source(' \n\n', 'text/markdown')));
    expect(empty.message).toBe('This Markdown file is empty.');
  });
});

describe('bounds and types', () => {
  it('abandons a conversion past its time bound', async () => {
    const error = await failure(toMarkdown(source(makePdf([['slow']]), 'application/pdf'), { timeoutMs: 1 }));
    expect(error.code).toBe('document_too_complex');
    expect(error.message).toBe('This document took longer than 1 seconds to convert and was abandoned.');
  });

  it('refuses an unsupported type before converting anything', async () => {
    const error = await failure(toMarkdown(source('GIF89a', 'image/gif', 'a.gif')));
    expect(error).toBeInstanceOf(UnsupportedDocument);
    expect(error.code).toBe('unsupported_document');
  });
});
