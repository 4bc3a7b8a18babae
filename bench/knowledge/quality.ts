// Retrieval quality on the labelled question set (bench/knowledge/dataset): recall@3 (a chunk that answers is in the
// top 3) and MRR (mean of 1 / the rank of the first chunk that answers, within the top 10), for full-text alone,
// vectors alone and the hybrid fusion, overall and by kind of question (exact: hinges on a number or name; paraphrase:
// asked in other words), with the offline model and the default chunking. Also measures the model's calibration
// anchors (modules/knowledge/search/calibration.ts): the median cosine of a question with its answering chunk, and
// with chunks that do not answer it.
// Run: npx tsx bench/knowledge/quality.ts
import crypto from 'node:crypto';
import { SecretBox, SECRETS_KEY_BYTES } from '../../lib/secret-box.js';
import { createAssistant } from '../../modules/assistants/index.js';
import {
  assistantScope,
  cachedEmbedder,
  claimDocuments,
  closeLocalModel,
  createDocument,
  fromBytes,
  hybridSearch,
  lexicalSearch,
  MemoryVectors,
  processDocument,
  processingDeps,
} from '../../modules/knowledge/index.js';
import { startBenchDatabase } from './bench-database.js';
import { answerFound, loadCorpus, loadQuestions, type Question } from './dataset/load.js';

const bench = await startBenchDatabase('quality');
const { prisma, owner } = bench;
const secrets = new SecretBox(crypto.randomBytes(SECRETS_KEY_BYTES));

const [corpus, questions] = await Promise.all([loadCorpus(), loadQuestions()]);
const documents = [];
for (const file of corpus) documents.push(await createDocument(prisma, owner.organization_id, { name: file.name, text: file.markdown }));
const fileOf = new Map(documents.map((d, i) => [d.id, corpus[i]!.file]));
const assistant = await createAssistant(
  prisma,
  { organizationId: owner.organization_id, userId: owner.user_id },
  { name: 'Quality', rag_settings: { enabled: true }, assigned_documents: documents.map((d) => d.id) } as never,
  secrets,
);
const deps = processingDeps({}, 600_000);
const ingestStarted = performance.now();
for (;;) {
  const jobs = await claimDocuments(prisma, 10, 600_000);
  if (jobs.length === 0) break;
  for (const job of jobs) await processDocument(prisma, job, deps);
}
const ingestSeconds = (performance.now() - ingestStarted) / 1000;
await prisma.$executeRawUnsafe('ANALYZE document_chunks');

const { scope } = await assistantScope(prisma, owner.organization_id, assistant.id);
const chunks = new Map((await prisma.documentChunk.findMany({ where: { documentId: { in: documents.map((d) => d.id) } } })).map((c) => [c.id, c]));
const embedder = cachedEmbedder(deps.embedderFor('local/use-lite'));
const vectors = new MemoryVectors(prisma);
const answers = (q: Question, chunkId: number) => {
  const chunk = chunks.get(chunkId);
  return chunk !== undefined && fileOf.get(chunk.documentId) === q.document && answerFound(chunk.content, q.answer);
};

type Ranked = (q: Question) => Promise<number[]>;
const methods: Record<string, Ranked> = {
  'full-text': async (q) => (await lexicalSearch(prisma, scope.documents, q.question, 10)).map((h) => h.chunkId),
  vectors: async (q) => {
    const [v] = await embedder.embed([q.question], { purpose: 'query' });
    return (await vectors.search(scope.documents, 'local/use-lite', v!, 10)).map((h) => h.chunkId);
  },
  'hybrid (threshold 0)': async (q) =>
    (await hybridSearch({ db: prisma, vectors, embedder }, scope, { query: q.question, limit: 10, similarityThreshold: 0 })).hits.map((h) => h.chunk_id),
  'hybrid (threshold 0.7, default)': async (q) =>
    (await hybridSearch({ db: prisma, vectors, embedder }, scope, { query: q.question, limit: 10, similarityThreshold: 0.7 })).hits.map((h) => h.chunk_id),
};

const rows: string[] = [];
for (const [name, rank] of Object.entries(methods)) {
  const by: Record<string, { hit3: number; rr: number; n: number }> = {
    all: { hit3: 0, rr: 0, n: 0 },
    exact: { hit3: 0, rr: 0, n: 0 },
    paraphrase: { hit3: 0, rr: 0, n: 0 },
  };
  for (const q of questions) {
    const ranked = await rank(q);
    const first = ranked.findIndex((id) => answers(q, id));
    for (const key of ['all', q.kind]) {
      const s = by[key]!;
      s.n++;
      if (first >= 0 && first < 3) s.hit3++;
      if (first >= 0) s.rr += 1 / (first + 1);
    }
  }
  const cell = (k: string) => `${((by[k]!.hit3 / by[k]!.n) * 100).toFixed(0).padStart(3)} % / ${(by[k]!.rr / by[k]!.n).toFixed(2)}`;
  rows.push(`| ${name.padEnd(31)} | ${cell('all')} | ${cell('exact')} | ${cell('paraphrase')} |`);
}

// Calibration: cosine of each question with its best answering chunk, and with every chunk that does not answer it.
const stored = await prisma.chunkEmbedding.findMany({ where: { model: 'local/use-lite', chunkId: { in: [...chunks.keys()] } } });
const chunkVectors = new Map(stored.map((e) => [e.chunkId, fromBytes(e.embedding)]));
const answerCos: number[] = [];
const otherCos: number[] = [];
for (const q of questions) {
  const [v] = await embedder.embed([q.question], { purpose: 'query' });
  let best = -1;
  for (const [id, cv] of chunkVectors) {
    const cos = cv.reduce((s, x, i) => s + x * v![i]!, 0);
    if (answers(q, id)) best = Math.max(best, cos);
    else otherCos.push(cos);
  }
  if (best > -1) answerCos.push(best);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor((p / 100) * (xs.length - 1))]!;

console.log(
  `${questions.length} questions (${questions.filter((q) => q.kind === 'exact').length} exact, ${questions.filter((q) => q.kind === 'paraphrase').length} paraphrase) over ${chunks.size} chunks of ${corpus.length} documents; ingested in ${ingestSeconds.toFixed(0)} s\n`,
);
console.log('| Search                          | all: recall@3 / MRR | exact          | paraphrase     |');
console.log('| - | - | - | - |');
for (const row of rows) console.log(row);
console.log(
  `\nlocal/use-lite cosine, question to its answering chunk: median ${median(answerCos).toFixed(3)} (p10 ${pct(answerCos, 10).toFixed(3)}, p90 ${pct(answerCos, 90).toFixed(3)})`,
);
console.log(
  `local/use-lite cosine, question to a chunk that does not answer: median ${median(otherCos).toFixed(3)} (p90 ${pct(otherCos, 90).toFixed(3)}, p99 ${pct(otherCos, 99).toFixed(3)})`,
);
await closeLocalModel();
await bench.stop();
