import { afterAll, describe, expect } from 'vitest';
import { MemoryVectors } from '../../modules/knowledge/search/memory-vectors.js';
import type { ScopeDocument } from '../../modules/knowledge/search/scope.js';
import { toBytes } from '../../modules/knowledge/vectors.js';
import { bootstrap } from '../../modules/organizations/bootstrap.js';
import { dbTest as it } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';

// Vectors kept in memory on the embedded default: large knowledge is searched in the vector thread once it holds the
// vectors, and scanned here (the event loop let through) until then; both find the same nearest chunks, exactly.

const DIMENSIONS = 32;
const CHUNKS = 600;
const MODEL = 'test/model';
const CHUNKING = 'recursive:1000:200';

let seed = 11;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
  return seed / 0x7fffffff - 0.5;
};
function unitVector(): Float32Array {
  const v = Float32Array.from({ length: DIMENSIONS }, random);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

let vectors: MemoryVectors | undefined;
afterAll(() => vectors?.close());

describe('vectors in memory', () => {
  it('search large knowledge in the vector thread once it holds it, finding the same nearest chunks as the scan here', async ({ db }) => {
    const { organization_id: organizationId } = await bootstrap(db.prisma, { organizationName: 'Vectors', email: `ann-${Date.now()}@example.com` });
    const document = await db.prisma.document.create({ data: { organizationId, name: 'Large', status: 'ready', embeddingModel: MODEL } });
    const rows = Array.from({ length: CHUNKS }, unitVector);
    for (let i = 0; i < CHUNKS; i++) {
      const chunk = await db.prisma.documentChunk.create({
        data: {
          documentId: document.id,
          position: i,
          content: `chunk ${i}`,
          headingPath: [],
          startOffset: i,
          endOffset: i + 1,
          tokenCount: 2,
          chunking: CHUNKING,
        },
      });
      await db.prisma.chunkEmbedding.create({ data: { chunkId: chunk.id, model: MODEL, embedding: toBytes(rows[i]!) } });
    }
    const scope: ScopeDocument = { id: document.id, name: 'Large', metadata: {}, indexVersion: 1, chunking: CHUNKING, hasVectors: true };
    // 500 chunks make knowledge large here; 20,000 in the service.
    vectors = new MemoryVectors(db.prisma, { threadMinRows: 500 });
    const query = rows[123]!;
    const scanned = await vectors.search([scope], MODEL, query, 10);
    expect(scanned).toHaveLength(10);
    expect(scanned[0]!.score).toBeCloseTo(1, 5);
    await until(() => vectors!.inThread([scope], MODEL));
    const indexed = await vectors.search([scope], MODEL, query, 10);
    expect(indexed.map((h) => h.chunkId)).toEqual(scanned.map((h) => h.chunkId));
    for (const [i, hit] of indexed.entries()) expect(hit.score).toBeCloseTo(scanned[i]!.score, 4);
  });

  it('keep scanning knowledge smaller than the threshold here, without the thread', async ({ db }) => {
    const small = new MemoryVectors(db.prisma, { threadMinRows: 10_000 });
    try {
      const [document] = await db.prisma.document.findMany({ take: 1 });
      const scope: ScopeDocument = { id: document!.id, name: 'Large', metadata: {}, indexVersion: 1, chunking: CHUNKING, hasVectors: true };
      expect(await small.search([scope], MODEL, unitVector(), 3)).toHaveLength(3);
      expect(await small.inThread([scope], MODEL)).toBe(false);
    } finally {
      await small.close();
    }
  });
});
