import { afterAll, describe, expect } from 'vitest';
import type { PrismaClient } from '../../prisma/client.js';
import { SecretBox } from '../../lib/secret-box.js';
import { createAssistant, updateAssistant } from '../../modules/assistants/service.js';
import { createDocument } from '../../modules/knowledge/documents.js';
import { claimDocuments, processDocument, processingDeps } from '../../modules/knowledge/processing.js';
import { KnowledgeSearch } from '../../modules/knowledge/search/knowledge-search.js';
import { bootstrap } from '../../modules/organizations/bootstrap.js';
import { dbTest } from '../helpers/fixtures.js';
import { startFakeOpenAI } from '../fakes/vendors/openai.js';
import type { EmbeddingFault } from '../fakes/vendors/openai-embeddings.js';

// An assistant's embedding model changed: its documents are embedded again in the background, searched by their words
// meanwhile, and by the new vectors once they are written; the old vectors, which no assistant uses any more, go.
// A vendor that refuses fails the embed stage with its reason; one that is briefly overloaded is tried again.

const KEY = 'sk-model-change-1234';
let fault: ((index: number) => EmbeddingFault | undefined) | undefined;
const openai = await startFakeOpenAI(undefined, { apiKey: KEY, fault: (i) => fault?.(i) });
afterAll(() => openai.close());
const credentials = { apiKey: (v: string) => (v === 'openai' ? KEY : undefined), baseUrl: (v: string) => (v === 'openai' ? openai.url : undefined) };
const deps = processingDeps({ credentials }, 60_000);
const secrets = new SecretBox(Buffer.alloc(32, 3));

async function processAll(prisma: PrismaClient) {
  const outcomes = [];
  for (const job of await claimDocuments(prisma, 10, 60_000)) outcomes.push(await processDocument(prisma, job, deps));
  return outcomes;
}

const it = dbTest.extend('world', { scope: 'file' }, async ({ db }) => {
  const boot = await bootstrap(db.prisma, { organizationName: 'Models', email: 'owner@models.example' });
  return { organizationId: boot.organization_id, userId: boot.user_id };
});

describe('changing the embedding model', () => {
  it('embeds again in the background while search keeps serving by words, then by the new vectors', async ({ db, world }) => {
    const search = new KnowledgeSearch(db.prisma, { credentials, vectors: 'memory' });
    const doc = await createDocument(db.prisma, world.organizationId, {
      name: 'Returns',
      text: '# Returns\n\nRefunds reach your card within five working days.',
    });
    const assistant = await createAssistant(
      db.prisma,
      world,
      { name: 'Desk', rag_settings: { enabled: true }, assigned_documents: [doc.id] } as never,
      secrets,
    );
    expect(await processAll(db.prisma)).toEqual([{ kind: 'ready', chunks: 1 }]);

    await updateAssistant(
      db.prisma,
      world.organizationId,
      assistant.id,
      { rag_settings: { enabled: true, embedding_model: 'text-embedding-3-small', similarity_threshold: 0 } },
      secrets,
    );
    expect(await db.prisma.document.findUniqueOrThrow({ where: { id: doc.id } })).toMatchObject({ status: 'pending' });
    const meanwhile = await search.forAssistant(world.organizationId, assistant.id, 'refunds card');
    expect(meanwhile.result.hits[0]).toMatchObject({ document_id: doc.id, lexical_rank: 1, vector_rank: null });
    expect(meanwhile.result.vector_error).toBeNull();

    expect(await processAll(db.prisma)).toEqual([{ kind: 'ready', chunks: 1 }]);
    const row = await db.prisma.document.findUniqueOrThrow({ where: { id: doc.id } });
    expect(row.indexes).toEqual([
      { chunking: 'recursive:1000:200', embedding_model: 'text-embedding-3-small', chunk_count: 1, token_count: expect.any(Number) },
    ]);
    expect(await db.prisma.chunkEmbedding.findMany({ where: { chunk: { documentId: doc.id } }, select: { model: true } })).toEqual([
      { model: 'text-embedding-3-small' },
    ]);
    const after = await search.forAssistant(world.organizationId, assistant.id, 'refunds card');
    expect(after.result.hits[0]).toMatchObject({ document_id: doc.id, vector_rank: 1 });
    await search.close();
  });

  it('fails the embed stage with the vendor’s reason when it refuses, and retries soon when it is overloaded', async ({ db, world }) => {
    await createAssistant(db.prisma, world, { name: 'Vendor', rag_settings: { enabled: true, embedding_model: 'text-embedding-3-small' } } as never, secrets);
    fault = () => ({ status: 400, message: 'This model does not support the dimensions parameter.' });
    const refused = await createDocument(db.prisma, world.organizationId, { name: 'Refused', text: '# Refused\n\nText to embed.' });
    const assistant = await db.prisma.assistant.findFirstOrThrow({ where: { name: 'Vendor' } });
    await updateAssistant(db.prisma, world.organizationId, assistant.id, { assigned_documents: [refused.id] }, secrets);
    // Processed once for both its indexes: the default model's and this assistant's.
    expect(await processAll(db.prisma)).toEqual([
      {
        kind: 'failed',
        stage: 'embed',
        error: 'The embedding server (OpenAI) refused the request (400): This model does not support the dimensions parameter.',
      },
    ]);

    const overloaded = await createDocument(db.prisma, world.organizationId, { name: 'Busy', text: '# Busy\n\nMore text to embed.' });
    await updateAssistant(db.prisma, world.organizationId, assistant.id, { assigned_documents: [overloaded.id] }, secrets);
    fault = () => ({ status: 503, retryAfter: '0' });
    const [outcome] = await processAll(db.prisma);
    expect(outcome).toMatchObject({ kind: 'retry', stage: 'embed' });
    const waiting = await db.prisma.document.findUniqueOrThrow({ where: { id: overloaded.id } });
    expect(waiting).toMatchObject({ status: 'processing', failedStage: 'embed' });
    expect(waiting.leaseExpiresAt!.getTime() - Date.now()).toBeLessThanOrEqual(30_000);
    fault = undefined;
    await db.prisma.document.update({ where: { id: overloaded.id }, data: { leaseExpiresAt: new Date(Date.now() - 1000) } });
    expect(await processAll(db.prisma)).toEqual([{ kind: 'ready', chunks: 1 }]);
    expect(await db.prisma.document.findUniqueOrThrow({ where: { id: overloaded.id } })).toMatchObject({ status: 'ready', error: null, failedStage: null });
  });
});
