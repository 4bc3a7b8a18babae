// Throughput of each document parser on a mid-size input (1 to 3 MB), in MB per second, on this machine: of the file
// as uploaded, and of the Markdown it gives (the fair figure for DOCX, whose zip here is compressed ~50 to 1).
// Two figures per format: the conversion alone (in this thread, best of 3 runs after a warm-up) and toMarkdown as the
// processing job calls it (a fresh thread per document: its start-up, loading the parser, and the conversion).
// Run: npx tsx bench/knowledge/parse.ts
import { convert, DOCX_MEDIA_TYPE, docxParagraph, docxTable, makeDocx, makePdf, type SupportedMediaType, toMarkdown } from '../../modules/knowledge/index.js';

const SENTENCE = 'Our support team answers calls on weekdays from nine to five, and refunds are paid within 30 days. ';

async function inputs(): Promise<Array<{ name: string; mediaType: SupportedMediaType; bytes: Buffer }>> {
  const pdfPages = Array.from({ length: 400 }, (_, p) => Array.from({ length: 40 }, (_, l) => `Page ${p + 1} line ${l + 1}: ${SENTENCE.slice(0, 70)}`));
  const docxBody: string[] = [];
  for (let section = 0; section < 300; section++) {
    docxBody.push(docxParagraph(`Section ${section + 1}`, { style: 'Heading1' }));
    for (let p = 0; p < 8; p++) docxBody.push(docxParagraph(SENTENCE.repeat(3)));
    docxBody.push(docxParagraph('First point', { bullet: true }), docxParagraph('Second point', { bullet: true }));
    docxBody.push(docxTable([['Plan', 'Price', 'Calls'], ...Array.from({ length: 5 }, (_, i) => [`Plan ${i}`, `${i * 5} €`, `${i * 100}`])]));
  }
  const htmlSections = Array.from(
    { length: 1500 },
    (_, i) => `<section><h2>Question ${i + 1}</h2><p>${SENTENCE.repeat(4)}</p><ul><li>One</li><li>Two <a href="/x">link</a></li></ul></section>`,
  );
  const html = `<!doctype html><html><head><title>Help centre</title><style>body{margin:0}</style><script>var a=1;</script></head>
<body><nav><a href="/">Home</a></nav><main><article><h1>Help centre</h1>${htmlSections.join('\n')}</article></main><footer>©</footer></body></html>`;
  const csvRows = Array.from({ length: 20_000 }, (_, i) => `${i},"Customer ${i}",+4420700${String(i).padStart(5, '0')},"${SENTENCE.slice(0, 60)}",${i % 7}`);
  const csv = `id,name,phone,note,score\n${csvRows.join('\n')}\n`;
  const markdown = Array.from({ length: 20_000 }, (_, i) => `## Item ${i}\n\n${SENTENCE}\n`).join('\n');
  return [
    { name: 'PDF', mediaType: 'application/pdf', bytes: makePdf(pdfPages) },
    { name: 'DOCX', mediaType: DOCX_MEDIA_TYPE, bytes: await makeDocx(docxBody.join('')) },
    { name: 'HTML', mediaType: 'text/html', bytes: Buffer.from(html) },
    { name: 'CSV', mediaType: 'text/csv', bytes: Buffer.from(csv) },
    { name: 'Markdown', mediaType: 'text/markdown', bytes: Buffer.from(markdown) },
  ];
}

function mb(bytes: number): number {
  return bytes / (1024 * 1024);
}

const rows: string[] = [];
for (const input of await inputs()) {
  await convert(input.bytes, input.mediaType); // warm-up: loads the parser
  let best = Infinity;
  let output = '';
  for (let run = 0; run < 3; run++) {
    const started = performance.now();
    output = await convert(input.bytes, input.mediaType);
    best = Math.min(best, performance.now() - started);
  }
  const started = performance.now();
  await toMarkdown({ bytes: input.bytes, mediaType: input.mediaType, filename: null });
  const whole = performance.now() - started;
  rows.push(
    `| ${input.name} | ${mb(input.bytes.length).toFixed(2)} MB | ${mb(output.length).toFixed(2)} MB | ${best.toFixed(0)} ms | ${(mb(input.bytes.length) / (best / 1000)).toFixed(1)} | ${(mb(output.length) / (best / 1000)).toFixed(1)} | ${whole.toFixed(0)} ms | ${(mb(input.bytes.length) / (whole / 1000)).toFixed(1)} |`,
  );
}
console.log('| format | input | Markdown | conversion | input MB/s | Markdown MB/s | toMarkdown (own thread) | input MB/s |');
console.log('| - | - | - | - | - | - | - | - |');
for (const row of rows) console.log(row);
