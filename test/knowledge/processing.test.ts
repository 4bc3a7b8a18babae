import { describe, expect } from 'vitest';
import { claimDocuments, processDocument, processingDeps, startDocumentProcessing } from '../../modules/knowledge/processing.js';
import { replaceDocumentContent } from '../../modules/knowledge/documents.js';
import { dbTest } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';
import { EmbeddingError } from '../../modules/knowledge/embeddings/embedder.js';

// The offline embedding model, as the defaults ask: real vectors, no key.
const deps = processingDeps({}, 60_000);

const it = dbTest.extend('organizationId', { scope: 'file' }, async ({ db }) => (await db.prisma.organization.create({ data: { name: 'Knowledge' } })).id);

let files = 0;
/** A pending upload of `text` as `filename`, as POST /api/documents stores it. */
async function pendingUpload(
  db: { prisma: import('../../prisma/client.js').PrismaClient },
  organizationId: number,
  text: string,
  filename = 'guide.md',
  mediaType = 'text/markdown',
) {
  const bytes = Buffer.from(text, 'utf8');
  files += 1;
  return db.prisma.document.create({
    data: {
      organizationId,
      name: filename,
      sourceKind: 'upload',
      filename,
      mediaType,
      sizeBytes: bytes.length,
      sha256: `test-${files}-${Date.now()}`,
      sourceBytes: new Uint8Array(bytes),
      status: 'pending',
    },
  });
}

describe('document processing', () => {
  it('takes a pending upload to ready: its Markdown stored, its source dropped, chunks with heading paths, embedded with the default model', async ({
    db,
    organizationId,
  }) => {
    const doc = await pendingUpload(db, organizationId, '# Guide\n\n## Returns\n\n### Refunds\n\nRefunds take 5 days.\n');
    const [job] = await claimDocuments(db.prisma, 10, 60_000);
    expect(job).toMatchObject({ id: doc.id, attempt: 1 });
    expect(await processDocument(db.prisma, job!, deps)).toEqual({ kind: 'ready', chunks: 1 });
    const row = await db.prisma.document.findUniqueOrThrow({ where: { id: doc.id } });
    expect(row).toMatchObject({
      status: 'ready',
      content: '# Guide\n\n## Returns\n\n### Refunds\n\nRefunds take 5 days.\n',
      sourceBytes: null,
      chunkCount: 1,
      leaseToken: null,
      embeddingModel: 'local/use-lite',
    });
    expect(row.indexes).toEqual([{ chunking: 'recursive:1000:200', embedding_model: 'local/use-lite', chunk_count: 1, token_count: row.tokenCount }]);
    expect(row.tokenCount).toBeGreaterThan(0);
    const chunks = await db.prisma.documentChunk.findMany({ where: { documentId: doc.id }, include: { embeddings: true } });
    expect(chunks[0]!.embeddings.map((e) => [e.model, e.embedding.byteLength])).toEqual([['local/use-lite', 512 * 4]]);
    expect(chunks).toMatchObject([{ position: 0, headingPath: ['Guide', 'Returns', 'Refunds'], content: '### Refunds\n\nRefunds take 5 days.' }]);
    expect(row.content.slice(chunks[0]!.startOffset, chunks[0]!.endOffset)).toBe(chunks[0]!.content);
  });

  it('a source that cannot be parsed fails at the parse stage with a readable error', async ({ db, organizationId }) => {
    const doc = await pendingUpload(db, organizationId, '   \n', 'empty.txt', 'text/plain');
    const [job] = await claimDocuments(db.prisma, 10, 60_000);
    const outcome = await processDocument(db.prisma, job!, deps);
    expect(outcome).toMatchObject({ kind: 'failed', stage: 'parse' });
    const row = await db.prisma.document.findUniqueOrThrow({ where: { id: doc.id } });
    expect(row).toMatchObject({ status: 'failed', failedStage: 'parse', leaseToken: null });
    expect(row.error).toMatch(/^[A-Z].*\.$/);
    expect(row.error).not.toMatch(/at .*\.ts|Error:/);
  });

  it('a lapsed lease is taken over by a second loop and processed once; the first holder’s late writes are ignored', async ({ db, organizationId }) => {
    const doc = await pendingUpload(db, organizationId, '# Late\n\nFirst version.\n');
    // The first process claims it, then stalls (killed, or paused past its lease).
    const [first] = await claimDocuments(db.prisma, 10, 60_000);
    expect(first!.id).toBe(doc.id);
    expect(await claimDocuments(db.prisma, 10, 60_000)).toEqual([]);
    await db.prisma.document.update({ where: { id: doc.id }, data: { leaseExpiresAt: new Date(Date.now() - 1_000) } });
    // A second process's loop takes it over and finishes it.
    const loop = startDocumentProcessing(db.prisma, { pollIntervalMs: 50 });
    try {
      await until(async () => (await db.prisma.document.findUniqueOrThrow({ where: { id: doc.id } })).status === 'ready');
    } finally {
      await loop.stop();
    }
    const done = await db.prisma.document.findUniqueOrThrow({ where: { id: doc.id } });
    expect(done.attempts).toBe(2);
    const chunksBefore = await db.prisma.documentChunk.findMany({ where: { documentId: doc.id } });
    // The first holder wakes up and writes what it had: fenced out, nothing changes.
    expect(await processDocument(db.prisma, { ...first!, sourceBytes: null, content: '# Stale\n\nOld words.\n' }, deps)).toEqual({ kind: 'lease_lost' });
    expect(await processDocument(db.prisma, first!, deps)).toEqual({ kind: 'lease_lost' });
    expect(await db.prisma.document.findUniqueOrThrow({ where: { id: doc.id } })).toMatchObject({
      status: 'ready',
      content: done.content,
      chunkCount: done.chunkCount,
    });
    expect(await db.prisma.documentChunk.findMany({ where: { documentId: doc.id } })).toEqual(chunksBefore);
  });

  it('content replaced while a process works on the document: that process’s result is discarded and the new content is processed', async ({
    db,
    organizationId,
  }) => {
    const doc = await pendingUpload(db, organizationId, '# Old\n\nOld words.\n');
    const [stale] = await claimDocuments(db.prisma, 10, 60_000);
    await replaceDocumentContent(db.prisma, organizationId, doc.id, '# New\n\nNew words.\n');
    expect(await processDocument(db.prisma, stale!, deps)).toEqual({ kind: 'lease_lost' });
    expect(await db.prisma.document.findUniqueOrThrow({ where: { id: doc.id } })).toMatchObject({
      status: 'pending',
      content: '# New\n\nNew words.\n',
      sourceBytes: null,
    });
    const [fresh] = await claimDocuments(db.prisma, 10, 60_000);
    expect(await processDocument(db.prisma, fresh!, deps)).toEqual({ kind: 'ready', chunks: 1 });
    expect((await db.prisma.documentChunk.findMany({ where: { documentId: doc.id } })).map((c) => [c.headingPath, c.content])).toEqual([
      [['New'], '# New\n\nNew words.'],
    ]);
  });

  it('a document whose processing is cut short again and again fails once its attempts are spent', async ({ db, organizationId }) => {
    const doc = await pendingUpload(db, organizationId, '# Poison\n\nText.\n');
    for (let i = 0; i < 2; i++) {
      expect(await claimDocuments(db.prisma, 10, 60_000, 2)).toHaveLength(1);
      await db.prisma.document.update({ where: { id: doc.id }, data: { leaseExpiresAt: new Date(Date.now() - 1_000) } });
    }
    expect(await claimDocuments(db.prisma, 10, 60_000, 2)).toEqual([]);
    const row = await db.prisma.document.findUniqueOrThrow({ where: { id: doc.id } });
    expect(row).toMatchObject({ status: 'failed', failedStage: 'parse', attempts: 2, leaseToken: null });
    expect(row.error).toContain('interrupted 2 times');
  });

  it('sends the next batch of chunks to the model before the current one’s vectors are back, and stores each chunk’s own vector once', async ({
    db,
    organizationId,
  }) => {
    // A long manual: about 130 chunks, so three batches of at most 64.
    const sections = Array.from({ length: 130 }, (_, i) => `## Part ${i}\n\n${`Step ${i} of the procedure, done with care. `.repeat(22)}\n`);
    const doc = await pendingUpload(db, organizationId, sections.join('\n'), 'manual.md');
    // The model's answers are held until the test lets each go: what the stage asks while one is held is what it sent
    // ahead. Each vector names its text, so a vector stored against another chunk would show.
    const calls: { texts: string[]; release: () => void }[] = [];
    const vectorOf = (text: string) => {
      const v = new Float32Array(512);
      v[Math.abs([...text].reduce((h, c) => (h * 31 + c.charCodeAt(0)) | 0, 7)) % 512] = 1;
      return v;
    };
    const held = processingDeps(
      {
        embedderFor: (model) => ({
          model,
          dimensions: 512,
          embed: (texts) =>
            new Promise<Float32Array[]>((resolve) => {
              calls.push({ texts, release: () => resolve(texts.map(vectorOf)) });
            }),
        }),
      },
      60_000,
    );
    const [job] = await claimDocuments(db.prisma, 10, 60_000);
    expect(job!.id).toBe(doc.id);
    const outcome = processDocument(db.prisma, job!, held);

    await until(() => calls.length === 2);
    // The first batch's vectors are not back, and the second batch is already with the model.
    expect(await db.prisma.chunkEmbedding.count({ where: { chunk: { documentId: doc.id } } })).toBe(0);
    expect(calls.map((c) => c.texts.length)).toEqual([64, 64]);
    calls[0]!.release();
    await until(() => calls.length === 3);
    calls[1]!.release();
    calls[2]!.release();
    const done = await outcome;
    expect(done).toMatchObject({ kind: 'ready' });
    const chunks = await db.prisma.documentChunk.findMany({ where: { documentId: doc.id }, include: { embeddings: true }, orderBy: { position: 'asc' } });
    expect(chunks.length).toBe(calls.reduce((n, c) => n + c.texts.length, 0));
    expect(calls.flatMap((c) => c.texts)).toHaveLength(new Set(calls.flatMap((c) => c.texts)).size);
    for (const chunk of chunks) {
      expect(chunk.embeddings).toHaveLength(1);
      const stored = new Float32Array(new Uint8Array(chunk.embeddings[0]!.embedding).buffer);
      const text = calls.flatMap((c) => c.texts).find((t) => t.includes(chunk.content))!;
      expect(Array.from(stored)).toEqual(Array.from(vectorOf(text)));
    }
  });

  it('stops the batch sent ahead when the current one fails, and the document is tried again with the model’s reason', async ({ db, organizationId }) => {
    const sections = Array.from({ length: 130 }, (_, i) => `## Part ${i}\n\n${`Check ${i} of the list, done with care. `.repeat(22)}\n`);
    await pendingUpload(db, organizationId, sections.join('\n'), 'checklist.md');
    const calls: { signal: AbortSignal | undefined; fail: () => void }[] = [];
    const failing = processingDeps(
      {
        embedderFor: (model) => ({
          model,
          dimensions: 512,
          embed: (_texts, options) =>
            new Promise<Float32Array[]>((_resolve, reject) => {
              calls.push({ signal: options?.signal, fail: () => reject(new EmbeddingError('The embedding model is restarting.', true)) });
            }),
        }),
      },
      60_000,
    );
    const [job] = await claimDocuments(db.prisma, 10, 60_000);
    const outcome = processDocument(db.prisma, job!, failing);
    await until(() => calls.length === 2);
    calls[0]!.fail();
    expect(await outcome).toEqual({ kind: 'retry', stage: 'embed', error: 'The embedding model is restarting.' });
    expect(calls[1]!.signal?.aborted).toBe(true);
    expect(calls).toHaveLength(2);
    expect(await db.prisma.chunkEmbedding.count({ where: { chunk: { documentId: job!.id } } })).toBe(0);
  });
});
