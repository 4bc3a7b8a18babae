// Retrieval latency on the embedded default (vectors in memory), per assistant knowledge size: 1k, 10k and 100k chunks
// of ~150 words with 512-dimension vectors (the offline model's size), queries of 4 to 7 words.
// - search: the hybrid search with the query's vector cached (what a repeated or early-started query costs), by stage;
// - with embedding: the same with the query embedded by the offline model each time (no cache);
// - added to a turn: how long a reply waits for retrieval past the end of the turn, when retrieval started on the
//   caller's final words 300 ms earlier (the endpointing delay) as in a call, and when it starts only at the turn's end;
//   beside a turn without knowledge (the same hook, no search), measured side by side.
// Chunks and vectors are generated (a Zipf vocabulary, random unit vectors): latency depends on sizes, not on meaning.
// Run: taskset -c 0 npx tsx bench/knowledge/retrieval.ts [sizes, default 1000,10000,100000]
import crypto from 'node:crypto';
import os from 'node:os';
import { llm, voice } from '@livekit/agents';
import { FakeSession } from '../../agent/call/testing/fake-session.js';
import { TurnPrompt } from '../../agent/call/turn-prompt.js';
import { SecretBox, SECRETS_KEY_BYTES } from '../../lib/secret-box.js';
import { createAssistant } from '../../modules/assistants/index.js';
import { closeLocalModel, KnowledgeSearch, MemoryVectors } from '../../modules/knowledge/index.js';
import type { PrismaClient } from '../../prisma/client.js';
import { startBenchDatabase } from './bench-database.js';

const SIZES = (process.argv[2] ?? '1000,10000,100000').split(',').map(Number);
const DIMS = 512;
const QUERIES = 200;
const CHUNKING = 'recursive:1000:200';
const MODEL = 'local/use-lite';

// A deterministic generator, so every run searches the same data.
let seed = 42;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const SYLLABLES = ['ka', 'lo', 'mi', 'ren', 'sa', 'tor', 'vel', 'an', 'dri', 'po', 'quen', 'bar', 'lis', 'mon', 'tes', 'gar'];
const VOCABULARY = Array.from({ length: 5000 }, () =>
  Array.from({ length: 2 + Math.floor(random() * 3) }, () => SYLLABLES[Math.floor(random() * SYLLABLES.length)]).join(''),
);
/** Zipf's law over the vocabulary: a few words everywhere, most rare, as in prose. */
const zipfWord = () => VOCABULARY[Math.min(VOCABULARY.length - 1, Math.floor(Math.exp(random() * Math.log(VOCABULARY.length)) - 1))]!;
const text = (words: number) => Array.from({ length: words }, zipfWord).join(' ');
const unitVector = () => {
  const v = new Float32Array(DIMS);
  let sum = 0;
  for (let i = 0; i < DIMS; i++) sum += (v[i] = random() * 2 - 1) ** 2;
  const norm = Math.sqrt(sum);
  for (let i = 0; i < DIMS; i++) v[i]! /= norm;
  return v;
};

async function knowledgeOf(prisma: PrismaClient, organizationId: number, chunks: number): Promise<number[]> {
  const documents = Math.max(1, Math.round(chunks / 1000));
  const ids: number[] = [];
  for (let d = 0; d < documents; d++) {
    const per = Math.round(chunks / documents);
    const indexes = [{ chunking: CHUNKING, embedding_model: MODEL, chunk_count: per, token_count: per * 250 }];
    const doc = await prisma.document.create({
      data: {
        organizationId,
        name: `Knowledge ${chunks}-${d}`,
        content: '',
        status: 'ready',
        indexes,
        indexVersion: 1,
        chunkCount: per,
        embeddingModel: MODEL,
      },
    });
    ids.push(doc.id);
    for (let start = 0; start < per; start += 2000) {
      const n = Math.min(2000, per - start);
      const contents = Array.from({ length: n }, () => text(150));
      const inserted = await prisma.$queryRaw<{ id: number }[]>`
        INSERT INTO document_chunks (document_id, chunking, position, content, heading_path, start_offset, end_offset, token_count)
        SELECT ${doc.id}, ${CHUNKING}, p, c, ARRAY['Section ' || p]::text[], 0, length(c), length(c) / 4
        FROM unnest(${Array.from({ length: n }, (_, i) => start + i)}::int[], ${contents}::text[]) AS t(p, c)
        RETURNING id`;
      await prisma.chunkEmbedding.createMany({ data: inserted.map((r) => ({ chunkId: r.id, model: MODEL, embedding: new Uint8Array(unitVector().buffer) })) });
    }
  }
  await prisma.$executeRawUnsafe('ANALYZE document_chunks');
  return ids;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const fmt = (values: number[]) => `p50 ${percentile(values, 50).toFixed(1)} / p95 ${percentile(values, 95).toFixed(1)}`;

const bench = await startBenchDatabase('retrieval');
const { prisma, owner } = bench;
const secrets = new SecretBox(crypto.randomBytes(SECRETS_KEY_BYTES));
const knowledge = new KnowledgeSearch(prisma, { credentials: { apiKey: () => undefined, baseUrl: () => undefined }, vectors: 'memory' });
const queries = Array.from({ length: QUERIES }, () => text(4 + Math.floor(random() * 4)));

const lines: string[] = [];
for (const size of SIZES) {
  const loadStarted = performance.now();
  const documents = await knowledgeOf(prisma, owner.organization_id, size);
  const loadMs = performance.now() - loadStarted;
  const assistant = await createAssistant(
    prisma,
    { organizationId: owner.organization_id, userId: owner.user_id },
    { name: `Bench ${size}`, rag_settings: { enabled: true, similarity_threshold: 0 }, assigned_documents: documents } as never,
    secrets,
  );
  const search = (query: string, signal?: AbortSignal) => knowledge.forAssistant(owner.organization_id, assistant.id, query, { signal }).then((r) => r.result);
  // Warm: the vectors loaded into memory once, as the first search of a call does; the model's thread started.
  const firstStarted = performance.now();
  await search('warm up');
  const firstMs = performance.now() - firstStarted;
  // The vectors handed to the vector thread, as a call's start gets them there (warmAssistant).
  const indexStarted = performance.now();
  await knowledge.warmAssistant(owner.organization_id, assistant.id);
  const indexMs = performance.now() - indexStarted;
  for (const q of queries.slice(0, 10)) await search(q);

  // The vectors alone, side by side: the scan on the event loop (in slices of 4,096 chunks, the loop let through between
  // them) against the vector thread's native exact search, over the same random unit queries; both exact, so the
  // thread's top 10 must be the scan's.
  const scope = documents.map((id) => ({ id, name: '', metadata: {}, indexVersion: 1, chunking: CHUNKING, hasVectors: true }));
  const exactVectors = new MemoryVectors(prisma, { threadMinRows: Number.POSITIVE_INFINITY });
  const threadVectors = new MemoryVectors(prisma);
  await Promise.all([exactVectors.warm(scope, MODEL), threadVectors.warm(scope, MODEL)]);
  const vectorRuns = { exact: [] as number[], thread: [] as number[], found: 0, asked: 0 };
  for (let q = 0; q < QUERIES; q++) {
    const vector = unitVector();
    let t0 = performance.now();
    const exactHits = await exactVectors.search(scope, MODEL, vector, 10);
    vectorRuns.exact.push(performance.now() - t0);
    t0 = performance.now();
    const threadHits = await threadVectors.search(scope, MODEL, vector, 10);
    vectorRuns.thread.push(performance.now() - t0);
    const exactIds = new Set(exactHits.map((h) => h.chunkId));
    vectorRuns.found += threadHits.filter((h) => exactIds.has(h.chunkId)).length;
    vectorRuns.asked += exactHits.length;
  }
  await Promise.all([exactVectors.close(), threadVectors.close()]);

  const cached = { total: [] as number[], lexical: [] as number[], vector: [] as number[], fetch: [] as number[] };
  for (const q of queries) {
    const r = await search(q); // second time: the query's vector is cached
    cached.total.push(r.timings.total_ms);
    cached.lexical.push(r.timings.lexical_ms);
    cached.vector.push(r.timings.vector_ms);
    cached.fetch.push(r.timings.fetch_ms);
  }
  const embedded = { total: [] as number[], embed: [] as number[] };
  for (const q of queries) {
    const r = await search(`${q} ${crypto.randomUUID().slice(0, 4)}`); // a query never seen: embedded now
    embedded.total.push(r.timings.total_ms);
    embedded.embed.push(r.timings.embed_ms);
  }

  // A turn: the hook as a call runs it, with and without knowledge, side by side, 40 turns each.
  const budget = {
    historyStrategy: 'sliding_window' as const,
    maxHistoryTurns: 20,
    contextWindowTokens: 4000,
    contextBudget: 8000,
    maxPromptDocTokens: 2000,
    includeMetadata: true,
  };
  const waits = { early: [] as number[], late: [] as number[], none: [] as number[] };
  for (let t = 0; t < 40; t++) {
    const words = `${queries[t]} ${crypto.randomUUID().slice(0, 4)}`;
    const ctx = () => {
      const c = new llm.ChatContext();
      c.addMessage({ role: 'system', content: 'You are the front desk.' });
      return c;
    };
    const message = llm.ChatMessage.create({ role: 'user', content: [words] });
    // Early: the search starts on the final words; the turn ends 300 ms later.
    const early = new TurnPrompt({ budget, search });
    const session = new FakeSession();
    early.attach(session);
    session.send(voice.AgentSessionEventTypes.UserInputTranscribed, {
      type: 'user_input_transcribed',
      transcript: words,
      isFinal: true,
      itemId: null,
      speakerId: null,
      createdAt: Date.now(),
      language: null,
    });
    await new Promise((r) => setTimeout(r, 300));
    let t0 = performance.now();
    await early.prepare(ctx(), message);
    waits.early.push(performance.now() - t0);
    // Late: the search starts when the turn ends.
    const late = new TurnPrompt({ budget, search });
    const message2 = llm.ChatMessage.create({ role: 'user', content: [`${words} again`] });
    t0 = performance.now();
    await late.prepare(ctx(), message2);
    waits.late.push(performance.now() - t0);
    // None: the same hook for an assistant without knowledge.
    const none = new TurnPrompt({ budget });
    t0 = performance.now();
    await none.prepare(ctx(), message);
    waits.none.push(performance.now() - t0);
  }
  lines.push(
    `${String(size).padStart(6)} chunks (${documents.length} documents, loaded in ${(loadMs / 1000).toFixed(0)} s; first search ${firstMs.toFixed(0)} ms, vectors into memory)`,
    `  vectors alone, top 10: scan on the event loop ${fmt(vectorRuns.exact)} ms | vector thread ${fmt(vectorRuns.thread)} ms | the thread's top 10 in the scan's ${((100 * vectorRuns.found) / vectorRuns.asked).toFixed(1)} % | handed to the thread in ${(indexMs / 1000).toFixed(1)} s`,
    `  search, query vector cached: total ${fmt(cached.total)} ms | full-text ${fmt(cached.lexical)} | vectors ${fmt(cached.vector)} | fetch ${fmt(cached.fetch)}`,
    `  search, query embedded now:  total ${fmt(embedded.total)} ms | embedding ${fmt(embedded.embed)}`,
    `  a turn waits, past its end:  retrieval started 300 ms early ${fmt(waits.early)} ms | started at the end ${fmt(waits.late)} ms | no knowledge ${fmt(waits.none)} ms`,
  );
  console.log(lines.slice(-5).join('\n'));
}
console.log(`\nnode ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model}); ${QUERIES} queries per size`);
await knowledge.close();
await closeLocalModel();
await bench.stop();
