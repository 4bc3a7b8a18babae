import { describe, expect, test } from 'vitest';
import type { PrismaClient } from '../../prisma/client.js';
import { createAssistant, updateAssistant } from '../../modules/assistants/service.js';
import { createDocument, deleteDocument, replaceDocumentContent } from '../../modules/knowledge/documents.js';
import { claimDocuments, processDocument, processingDeps, type ProcessingDeps } from '../../modules/knowledge/processing.js';
import { KnowledgeSearch } from '../../modules/knowledge/search/knowledge-search.js';
import { bootstrap } from '../../modules/organizations/bootstrap.js';
import { SecretBox } from '../../lib/secret-box.js';
import { createTestDatabase } from '../helpers/database.js';
import { startPgvectorDatabase } from '../helpers/pgvector-database.js';
import { detectPgvector, PgVectors } from '../../modules/knowledge/search/pgvector.js';

// Hybrid retrieval over real documents processed by the job with the offline model: what each list finds, how they
// fuse, what the threshold drops, and that a document deleted, detached or replaced stops answering at the next search.
// Every test runs twice: on the embedded Postgres with vectors in memory, and on a Postgres with pgvector (PGlite).

const POLICY = [
  '# Returns',
  '',
  'You can send back anything you bought within thirty days, with the receipt, for your money back.',
  '',
  '# Parking',
  '',
  'Customers leave their cars in the yard behind the building. The gate code is 4471.',
  '',
  '# Opening hours',
  '',
  'The shop welcomes visitors from nine in the morning until half past five, Monday to Saturday.',
].join('\n');

const MENU = ['# Menu', '', 'Our bakery sells sourdough loaves, croissants and a rye bread baked every Thursday.'].join('\n');

const secrets = new SecretBox(Buffer.alloc(32, 7));

/**
 * Processes every queued document to ready. A transient failure (the model's thread restarted on a loaded machine)
 * is retried at once, as the job would after its short lease; any other outcome fails the test with its error.
 */
async function processAll(prisma: PrismaClient, deps: ProcessingDeps): Promise<void> {
  for (let round = 0; round < 10; round++) {
    const jobs = await claimDocuments(prisma, 10, 60_000);
    if (jobs.length === 0) return;
    for (const job of jobs) {
      const outcome = await processDocument(prisma, job, deps);
      if (outcome.kind === 'retry') await prisma.document.update({ where: { id: job.id }, data: { leaseExpiresAt: new Date(Date.now() - 1000) } });
      else expect(outcome, JSON.stringify(outcome)).toMatchObject({ kind: 'ready' });
    }
  }
  throw new Error('documents still queued after 10 rounds');
}

interface World {
  organizationId: number;
  userId: number;
  assistantId: number;
  policyId: number;
  menuId: number;
}

type Backend = 'memory' | 'pgvector';

/** A world per backend: the embedded Postgres with vectors in memory, or a Postgres with pgvector. */
function searchTest(backend: Backend) {
  return test
    .extend('db', { scope: 'file' }, async ({}, { onCleanup }) => {
      if (backend === 'memory') {
        const db = await createTestDatabase();
        onCleanup(() => db.drop());
        return { prisma: db.prisma };
      }
      const db = await startPgvectorDatabase();
      onCleanup(() => db.close());
      return { prisma: db.prisma };
    })
    .extend('deps', { scope: 'file' }, async ({ db }) => {
      if (backend === 'memory') return processingDeps({}, 60_000);
      expect(await detectPgvector(db.prisma)).toBe(true);
      return processingDeps({ pgvector: new PgVectors(db.prisma) }, 60_000);
    })
    .extend('search', { scope: 'file' }, async ({ db }, { onCleanup }) => {
      const search = new KnowledgeSearch(db.prisma, {
        credentials: { apiKey: () => undefined, baseUrl: () => undefined },
        vectors: backend === 'memory' ? 'memory' : 'auto',
      });
      onCleanup(() => search.close());
      return search;
    })
    .extend('world', { scope: 'file' }, async ({ db, deps }): Promise<World> => {
      const boot = await bootstrap(db.prisma, { organizationName: 'Shop', email: 'owner@shop.example' });
      const policy = await createDocument(db.prisma, boot.organization_id, { name: 'Store policy', text: POLICY });
      const menu = await createDocument(db.prisma, boot.organization_id, { name: 'Menu', text: MENU, metadata: { branch: 'north' } });
      const assistant = await createAssistant(
        db.prisma,
        { organizationId: boot.organization_id, userId: boot.user_id },
        { name: 'Shop desk', rag_settings: { enabled: true, chunk_size: 200, chunk_overlap: 0 }, assigned_documents: [policy.id, menu.id] } as never,
        secrets,
      );
      await processAll(db.prisma, deps);
      return { organizationId: boot.organization_id, userId: boot.user_id, assistantId: assistant.id, policyId: policy.id, menuId: menu.id };
    });
}

for (const backend of ['memory', 'pgvector'] as const) {
  const it = searchTest(backend);
  describe(`vectors in ${backend}`, () => {
    // The world (a database, its documents chunked and embedded by the offline model) is made here, not in the first
    // test: its time is the machine's, several minutes on one kept busy, and the cap is for a hang, not a budget.
    it.beforeAll(async ({ world, search }) => void [world, search], 600_000);
    describe('hybrid search', () => {
      it('finds an exact code by its words, first, with its full-text rank and the time each stage took', async ({ search, world }) => {
        const { result } = await search.forAssistant(world.organizationId, world.assistantId, 'the code 4471', { similarityThreshold: 0.99 });
        expect(result.hits[0]).toMatchObject({ document_id: world.policyId, heading_path: ['Parking'], lexical_rank: 1 });
        expect(result.hits[0]!.content).toContain('4471');
        expect(result.vector_index).toBe(backend);
        for (const stage of ['embed_ms', 'lexical_ms', 'vector_ms', 'fetch_ms', 'total_ms'] as const) expect(result.timings[stage]).toBeGreaterThanOrEqual(0);
      });

      it('finds a passage that shares no word with the question by its meaning, from the vectors alone', async ({ search, world }) => {
        const { result } = await search.forAssistant(world.organizationId, world.assistantId, 'can I get a refund', { similarityThreshold: 0, limit: 1 });
        expect(result.hits[0]).toMatchObject({ heading_path: ['Returns'], lexical_rank: null, vector_rank: 1 });
        expect(result.hits[0]!.vector_score).toBeGreaterThan(0);
      });

      it('ranks a chunk found both ways above chunks found one way, by reciprocal rank fusion', async ({ search, world }) => {
        const { result } = await search.forAssistant(world.organizationId, world.assistantId, 'when does the shop open in the morning', {
          similarityThreshold: 0,
          limit: 5,
        });
        const top = result.hits[0]!;
        expect(top).toMatchObject({ heading_path: ['Opening hours'], lexical_rank: 1, vector_rank: expect.any(Number) });
        expect(top.fused_score).toBeCloseTo(1 / (60 + top.lexical_rank!) + 1 / (60 + top.vector_rank!), 4);
        for (const other of result.hits.slice(1)) expect(other.fused_score).toBeLessThanOrEqual(top.fused_score);
      });

      it('drops vector hits under the calibrated threshold and says how many, but keeps what the words found', async ({ search, world }) => {
        const strict = await search.forAssistant(world.organizationId, world.assistantId, 'rye bread', { similarityThreshold: 0.95, limit: 5 });
        for (const hit of strict.result.hits) {
          if (hit.vector_rank !== null) expect(hit.relevance).toBeGreaterThanOrEqual(0.95);
          else expect(hit.lexical_rank).not.toBeNull();
        }
        expect(strict.result.hits[0]).toMatchObject({ document_id: world.menuId, lexical_rank: 1, metadata: { branch: 'north' } });
        expect(strict.result.below_threshold).toBeGreaterThan(0);
        const open = await search.forAssistant(world.organizationId, world.assistantId, 'rye bread', { similarityThreshold: 0, limit: 5 });
        expect(open.result.below_threshold).toBe(0);
      });

      it("uses the assistant's own chunk set: one document holds the sets its assistants ask for", async ({ db, world, deps }) => {
        const rows = await db.prisma.documentChunk.groupBy({ by: ['chunking'], where: { documentId: world.policyId }, _count: true });
        expect(rows.map((r) => r.chunking)).toEqual(['recursive:200:0']);
      });

      it("searches another organisation's documents as if they did not exist", async ({ db, search, world, deps }) => {
        const other = await bootstrap(db.prisma, { organizationName: 'Other', email: 'owner@other.example' });
        await expect(
          search.forDocuments(
            other.organization_id,
            [world.policyId],
            { chunking: { strategy: 'recursive', chunkSize: 1000, chunkOverlap: 200 }, key: 'recursive:1000:200', embeddingModel: 'local/use-lite' },
            'code',
            { limit: 3, similarityThreshold: 0.7 },
          ),
        ).rejects.toThrow('Document not found');
        await expect(search.forAssistant(other.organization_id, world.assistantId, 'code')).rejects.toThrow('Assistant not found');
      });
    });

    describe('full-text search', () => {
      it('leaves out a word most chunks hold, so the chunks with the rarer word are the matches', async ({ db, world, deps }) => {
        const sections = Array.from(
          { length: 30 },
          (_, i) => `# Part ${i}\n\nEvery warranty part ${i} is listed here${i === 7 ? ', with the flux capacitor' : ''}.`,
        );
        const doc = await createDocument(db.prisma, world.organizationId, { name: 'Parts', text: sections.join('\n\n') });
        await processAll(db.prisma, deps);
        await db.prisma.$executeRawUnsafe('ANALYZE document_chunks');
        const scope = [{ id: doc.id, name: 'Parts', metadata: {}, indexVersion: 1, chunking: 'recursive:1000:200', hasVectors: false }];
        const { lexicalSearch } = await import('../../modules/knowledge/search/lexical.js');
        const both = await lexicalSearch(db.prisma, scope, 'warranty capacitor', 50);
        const [chunk] = await db.prisma.documentChunk.findMany({ where: { documentId: doc.id, content: { contains: 'capacitor' } } });
        expect(both.map((h) => h.chunkId)).toEqual([chunk!.id]);
        // Only common words: the two rarest still search.
        expect((await lexicalSearch(db.prisma, scope, 'warranty listed', 50)).length).toBeGreaterThan(1);
        // Quotes, backslashes and operators in the caller's words are words, not tsquery syntax.
        expect(await lexicalSearch(db.prisma, scope, "it's \\ a | b & !c <-> 'd'", 5)).toEqual(expect.any(Array));
      });
    });

    describe('a document that changes under a search', () => {
      it('stops answering the moment its content is replaced, and answers with the new text once processed', async ({ db, search, world, deps }) => {
        const doc = await createDocument(db.prisma, world.organizationId, { name: 'Delivery', text: '# Delivery\n\nWe deliver on Wednesdays by van.' });
        await updateAssistant(db.prisma, world.organizationId, world.assistantId, { assigned_documents: [world.policyId, world.menuId, doc.id] }, secrets);
        await processAll(db.prisma, deps);
        const before = await search.forAssistant(world.organizationId, world.assistantId, 'deliver wednesdays van');
        expect(before.result.hits[0]?.document_id).toBe(doc.id);
        await replaceDocumentContent(db.prisma, world.organizationId, doc.id, '# Delivery\n\nWe deliver on Fridays by bicycle.');
        const during = await search.forAssistant(world.organizationId, world.assistantId, 'deliver wednesdays van');
        expect(during.result.hits.filter((h) => h.document_id === doc.id)).toEqual([]);
        await processAll(db.prisma, deps);
        const after = await search.forAssistant(world.organizationId, world.assistantId, 'deliver fridays bicycle');
        expect(after.result.hits[0]).toMatchObject({ document_id: doc.id });
        expect(after.result.hits[0]!.content).toContain('bicycle');
      });

      it('stops answering the moment it is detached or deleted', async ({ db, search, world, deps }) => {
        const doc = await createDocument(db.prisma, world.organizationId, {
          name: 'Allergens',
          text: '# Allergens\n\nThe croissants contain butter and hazelnuts.',
        });
        await updateAssistant(db.prisma, world.organizationId, world.assistantId, { assigned_documents: [world.policyId, world.menuId, doc.id] }, secrets);
        await processAll(db.prisma, deps);
        const query = 'hazelnuts butter allergens';
        expect((await search.forAssistant(world.organizationId, world.assistantId, query)).result.hits[0]?.document_id).toBe(doc.id);
        await updateAssistant(db.prisma, world.organizationId, world.assistantId, { assigned_documents: [world.policyId, world.menuId] }, secrets);
        expect((await search.forAssistant(world.organizationId, world.assistantId, query)).result.hits.map((h) => h.document_id)).not.toContain(doc.id);
        await updateAssistant(db.prisma, world.organizationId, world.assistantId, { assigned_documents: [world.policyId, world.menuId, doc.id] }, secrets);
        expect((await search.forAssistant(world.organizationId, world.assistantId, query)).result.hits[0]?.document_id).toBe(doc.id);
        await deleteDocument(db.prisma, world.organizationId, doc.id);
        expect((await search.forAssistant(world.organizationId, world.assistantId, query)).result.hits.map((h) => h.document_id)).not.toContain(doc.id);
      });
    });
  });
}
