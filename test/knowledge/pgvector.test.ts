import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../lib/secret-box.js';
import { createAssistant } from '../../modules/assistants/service.js';
import { createDocument, deleteDocument } from '../../modules/knowledge/documents.js';
import { claimDocuments, processDocument, processingDeps } from '../../modules/knowledge/processing.js';
import { KnowledgeSearch } from '../../modules/knowledge/search/knowledge-search.js';
import { detectPgvector, PgVectors } from '../../modules/knowledge/search/pgvector.js';
import { toBytes } from '../../modules/knowledge/vectors.js';
import { bootstrap } from '../../modules/organizations/bootstrap.js';
import { startPgvectorDatabase, type PgvectorDatabase } from '../helpers/pgvector-database.js';

// The pgvector path on a real Postgres with pgvector (PGlite, test/helpers/pgvector-database.ts): vectors mirrored as
// they are written, one HNSW index per dimension (halfvec past 2,000), the same hybrid search as in memory, catching up
// vectors written before the mirror, and nothing left behind by a deleted document.

const POLICY = [
  '# Returns',
  '',
  'You can send back anything you bought within thirty days, with the receipt, for your money back.',
  '',
  '# Parking',
  '',
  'Customers leave their cars in the yard behind the building. The gate code is 4471.',
].join('\n');

let db: PgvectorDatabase;
let pgvector: PgVectors;
let search: KnowledgeSearch;
let world: { organizationId: number; assistantId: number; policyId: number };

beforeAll(async () => {
  db = await startPgvectorDatabase();
  expect(await detectPgvector(db.prisma)).toBe(true);
  pgvector = new PgVectors(db.prisma);
  search = new KnowledgeSearch(db.prisma, { credentials: { apiKey: () => undefined, baseUrl: () => undefined } });
  const boot = await bootstrap(db.prisma, { organizationName: 'Vectors', email: 'owner@vectors.example' });
  const policy = await createDocument(db.prisma, boot.organization_id, { name: 'Store policy', text: POLICY });
  const assistant = await createAssistant(
    db.prisma,
    { organizationId: boot.organization_id, userId: boot.user_id },
    { name: 'Desk', rag_settings: { enabled: true, chunk_size: 200, chunk_overlap: 0 }, assigned_documents: [policy.id] } as never,
    new SecretBox(Buffer.alloc(32, 9)),
  );
  const deps = processingDeps({ pgvector }, 60_000);
  for (const job of await claimDocuments(db.prisma, 10, 60_000)) expect((await processDocument(db.prisma, job, deps)).kind).toBe('ready');
  world = { organizationId: boot.organization_id, assistantId: assistant.id, policyId: policy.id };
}, 180_000);
afterAll(async () => {
  await search.close();
  await db.close();
});

const mirrored = async () => (await db.prisma.$queryRawUnsafe<{ n: number }[]>('SELECT count(*)::int AS n FROM chunk_vectors'))[0]!.n;

describe('vector search in pgvector', () => {
  it('mirrors each vector as it is written, under an HNSW index of its dimension', async () => {
    const embedded = await db.prisma.chunkEmbedding.count();
    expect(embedded).toBeGreaterThan(0);
    expect(await mirrored()).toBe(embedded);
    const indexes = await db.prisma.$queryRawUnsafe<{ indexdef: string }[]>("SELECT indexdef FROM pg_indexes WHERE indexname = 'chunk_vectors_hnsw_512'");
    expect(indexes[0]!.indexdef).toMatch(/USING hnsw \(\(\(?embedding\)?::vector\(512\)\) vector_cosine_ops\) WHERE \(dims = 512\)/);
  });

  it('serves the same hybrid search: codes by their words, a paraphrase by the vectors, from the HNSW index', async () => {
    const code = await search.forAssistant(world.organizationId, world.assistantId, 'the code 4471', { similarityThreshold: 0.99 });
    expect(code.result.vector_index).toBe('pgvector');
    expect(code.result.hits[0]).toMatchObject({ heading_path: ['Parking'], lexical_rank: 1 });
    const refund = await search.forAssistant(world.organizationId, world.assistantId, 'can I get a refund', { similarityThreshold: 0, limit: 1 });
    expect(refund.result.hits[0]).toMatchObject({ heading_path: ['Returns'], lexical_rank: null, vector_rank: 1 });
    // The same ranking as the exact scan in memory.
    const memory = new KnowledgeSearch(db.prisma, { credentials: { apiKey: () => undefined, baseUrl: () => undefined }, vectors: 'memory' });
    const exact = await memory.forAssistant(world.organizationId, world.assistantId, 'can I get a refund', { similarityThreshold: 0, limit: 1 });
    expect(exact.result.hits[0]!.chunk_id).toBe(refund.result.hits[0]!.chunk_id);
    expect(exact.result.hits[0]!.vector_score).toBeCloseTo(refund.result.hits[0]!.vector_score!, 4);
    await memory.close();
    await db.prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe('SET LOCAL enable_seqscan = off');
      const plan = await tx.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(
        "EXPLAIN SELECT chunk_id FROM chunk_vectors WHERE model = 'local/use-lite' AND dims = 512 ORDER BY (embedding::vector(512)) <=> (SELECT embedding::vector(512) FROM chunk_vectors LIMIT 1) LIMIT 5",
      );
      expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toContain('chunk_vectors_hnsw_512');
    });
  });

  it('indexes a model of more than 2,000 dimensions as halfvec and finds its nearest chunk', async () => {
    const chunks = await db.prisma.documentChunk.findMany({ where: { documentId: world.policyId }, orderBy: { position: 'asc' }, take: 2 });
    const unit = (hot: number) => Float32Array.from({ length: 3072 }, (_, i) => (i === hot ? 1 : 0));
    const rows = chunks.map((c, i) => ({ chunkId: c.id, model: 'text-embedding-3-large', vector: unit(i) }));
    await db.prisma.chunkEmbedding.createMany({ data: rows.map((r) => ({ chunkId: r.chunkId, model: r.model, embedding: toBytes(r.vector) })) });
    await pgvector.write(rows);
    const [index] = await db.prisma.$queryRawUnsafe<{ indexdef: string }[]>("SELECT indexdef FROM pg_indexes WHERE indexname = 'chunk_vectors_hnsw_3072'");
    expect(index!.indexdef).toContain('halfvec(3072)');
    const documents = [{ id: world.policyId, name: 'Store policy', metadata: {}, indexVersion: 1, chunking: 'recursive:200:0', hasVectors: true }];
    const hits = await pgvector.search(documents, 'text-embedding-3-large', unit(1), 1);
    expect(hits).toEqual([{ chunkId: chunks[1]!.id, score: expect.closeTo(1, 3) }]);
  });

  it('catches up vectors written before the mirror, and keeps nothing of a deleted document', async () => {
    await db.prisma.$executeRawUnsafe('DELETE FROM chunk_vectors');
    expect(await mirrored()).toBe(0);
    expect(await pgvector.catchUp()).toBe(await db.prisma.chunkEmbedding.count());
    expect(await mirrored()).toBe(await db.prisma.chunkEmbedding.count());
    await deleteDocument(db.prisma, world.organizationId, world.policyId);
    expect(await mirrored()).toBe(0);
    const after = await search.forAssistant(world.organizationId, world.assistantId, 'can I get a refund', { similarityThreshold: 0 });
    expect(after.result.hits).toEqual([]);
  });
});
