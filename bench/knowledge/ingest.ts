// Ingestion throughput: documents taken through the processing job as an API process runs it (claim, convert, chunk,
// embed with the offline model, index), one at a time, on the embedded Postgres. Prints per document its size, pages,
// chunks, the time of each stage and the throughput (MB of source and pages per second, chunks per second).
// Run: taskset -c 0 npx tsx bench/knowledge/ingest.ts
import crypto from 'node:crypto';
import os from 'node:os';
import { claimDocuments, closeLocalModel, makePdf, processDocument, processingDeps } from '../../modules/knowledge/index.js';
import { startBenchDatabase } from './bench-database.js';

const SENTENCES = [
  'Our support team answers calls on weekdays from nine to five, and refunds are paid within 30 days.',
  'Orders placed before noon leave the warehouse the same day; later ones leave the next working day.',
  'A warranty claim needs the serial number printed under the base of the appliance.',
  'Members of the loyalty scheme collect one point for every pound spent in the shop or online.',
  'The showroom is closed on public holidays, but the website takes orders as usual.',
];
const paragraph = (i: number) => Array.from({ length: 5 }, (_, k) => SENTENCES[(i + k) % SENTENCES.length]).join(' ');

const bench = await startBenchDatabase('ingest');
const { prisma, owner } = bench;

const pdfPages = Array.from({ length: 100 }, (_, p) => Array.from({ length: 30 }, (_, l) => `${paragraph(p * 30 + l).slice(0, 90)}`));
const markdown = Array.from({ length: 300 }, (_, s) => `## Section ${s + 1}\n\n${paragraph(s)}\n\n${paragraph(s + 1)}\n`).join('\n');
const inputs = [
  { name: 'Markdown manual', filename: 'manual.md', mediaType: 'text/markdown', bytes: Buffer.from(markdown), pages: null as number | null },
  { name: 'PDF, 100 pages', filename: 'handbook.pdf', mediaType: 'application/pdf', bytes: makePdf(pdfPages), pages: 100 },
];

const deps = processingDeps({}, 600_000);
// Every document thread started and warm, as in a process that has embedded before: two batches of 8, one per
// thread (one text warmed only the first, and the second thread's model load fell into the first document's time).
await deps.embedderFor('local/use-lite').embed(
  Array.from({ length: 16 }, (_, i) => `warm up ${i}`),
  { purpose: 'document' },
);

console.log('document         | source   | pages | chunks | total   | MB/s  | pages/s | chunks/s');
for (const input of inputs) {
  await prisma.document.create({
    data: {
      organizationId: owner.organization_id,
      name: input.name,
      sourceKind: 'upload',
      filename: input.filename,
      mediaType: input.mediaType,
      sizeBytes: input.bytes.length,
      sha256: crypto.randomUUID(),
      sourceBytes: new Uint8Array(input.bytes),
      status: 'pending',
    },
  });
  const [job] = await claimDocuments(prisma, 1, 600_000);
  const started = performance.now();
  const outcome = await processDocument(prisma, job!, deps);
  const seconds = (performance.now() - started) / 1000;
  if (outcome.kind !== 'ready') throw new Error(`not processed: ${JSON.stringify(outcome)}`);
  const mb = input.bytes.length / (1024 * 1024);
  console.log(
    `${input.name.padEnd(16)} | ${mb.toFixed(2).padStart(5)} MB | ${String(input.pages ?? '-').padStart(5)} | ${String(outcome.chunks).padStart(6)} | ${seconds.toFixed(1).padStart(5)} s | ${(mb / seconds).toFixed(3)} | ${input.pages ? (input.pages / seconds).toFixed(1).padStart(7) : '      -'} | ${(outcome.chunks / seconds).toFixed(0).padStart(8)}`,
  );
}
console.log(
  `\nnode ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model}); embedding: local/use-lite on its document threads (one per core, two at most)`,
);
await closeLocalModel();
await bench.stop();
