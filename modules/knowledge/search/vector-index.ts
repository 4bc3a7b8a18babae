import type { ScopeDocument } from './scope.js';

// The nearest chunks to a query vector: in Postgres through pgvector's HNSW index where the extension is installed
// (pgvector.ts), else from vectors cached in this process (memory-vectors.ts). Both answer the same question the same
// way; the tests run on both (test/knowledge/search.test.ts).

export interface VectorHit {
  chunkId: number;
  /** Cosine similarity. */
  score: number;
}

export interface VectorIndex {
  readonly kind: 'memory' | 'pgvector';
  search(documents: ScopeDocument[], model: string, query: Float32Array, limit: number): Promise<VectorHit[]>;
  /** Gets ready to search these documents (vectors loaded into memory), so that the first search costs no more. */
  warm(documents: ScopeDocument[], model: string): Promise<void>;
}
