import type { PrismaClient } from '../../../prisma/client.js';
import type { VendorCredentials } from '../../../lib/vendor-credentials.js';
import type { Embedder } from '../embeddings/embedder.js';
import { cachedEmbedder } from '../embeddings/query-cache.js';
import { embedderFor } from '../embeddings/resolve.js';
import { hybridSearch, type SearchResult } from './hybrid-search.js';
import { MemoryVectors } from './memory-vectors.js';
import { detectPgvector, PgVectors } from './pgvector.js';
import type { VectorIndex } from './vector-index.js';
import { assistantScope, documentsScope } from './scope.js';
import type { IndexSpec } from '../index-specs.js';

// Knowledge search as a process holds it: one vector index (pgvector where the database has it, else a cache in
// memory) and one query embedder per model (queries cached, the offline model on its worker thread), shared by every
// call, the API's debugger and the knowledge tool.

export interface KnowledgeSearchOptions {
  credentials: VendorCredentials;
  /** Overrides how embedders are made (tests). */
  embedderFor?: (model: string) => Embedder;
  cacheBytes?: number;
  /** `auto` (default) uses pgvector when the database has it; `memory` never does. */
  vectors?: 'auto' | 'memory';
}

export interface SearchOverrides {
  limit?: number | undefined;
  similarityThreshold?: number | undefined;
  signal?: AbortSignal | undefined;
}

export class KnowledgeSearch {
  readonly #db: PrismaClient;
  readonly #vectors: Promise<VectorIndex>;
  readonly #embedders = new Map<string, Embedder | { error: string }>();
  readonly #make: (model: string) => Embedder;

  constructor(db: PrismaClient, options: KnowledgeSearchOptions) {
    this.#db = db;
    const memory = () => new MemoryVectors(db, { ...(options.cacheBytes === undefined ? {} : { maxBytes: options.cacheBytes }) });
    this.#vectors =
      options.vectors === 'memory'
        ? Promise.resolve(memory())
        : detectPgvector(db).then(
            (has) => (has ? new PgVectors(db) : memory()),
            () => memory(),
          );
    this.#make = options.embedderFor ?? ((model) => embedderFor(model, options.credentials));
  }

  /** The query embedder of a model, or why there is none (a key missing): search then goes by words alone. */
  embedder(model: string): Embedder | { error: string } {
    let embedder = this.#embedders.get(model);
    if (!embedder) {
      try {
        embedder = cachedEmbedder(this.#make(model));
      } catch (error) {
        embedder = { error: error instanceof Error ? error.message : String(error) };
      }
      this.#embedders.set(model, embedder);
    }
    return embedder;
  }

  /** Where vectors are searched in this process. */
  async vectorIndex(): Promise<VectorIndex['kind']> {
    return (await this.#vectors).kind;
  }

  /** Searches an assistant's attached documents with its rag_settings, unless overridden. */
  async forAssistant(organizationId: number, assistantId: number, query: string, overrides: SearchOverrides = {}) {
    const { rag, scope } = await assistantScope(this.#db, organizationId, assistantId);
    const result = await hybridSearch({ db: this.#db, vectors: await this.#vectors, embedder: this.embedder(scope.spec.embeddingModel) }, scope, {
      query,
      limit: overrides.limit ?? rag.search_limit,
      similarityThreshold: overrides.similarityThreshold ?? rag.similarity_threshold,
      ...(overrides.signal ? { signal: overrides.signal } : {}),
    });
    return { rag, spec: scope.spec, documents: scope.documents.length, result };
  }

  /**
   * Gets ready for an assistant's first search: its documents' vectors loaded, the query model's thread started. A
   * call does this as it starts, so its first question is searched as fast as its tenth (the first load of 10,000
   * chunks takes ~0.7 s, past the reply's deadline).
   */
  async warmAssistant(organizationId: number, assistantId: number): Promise<void> {
    const { scope } = await assistantScope(this.#db, organizationId, assistantId);
    const embedder = this.embedder(scope.spec.embeddingModel);
    await Promise.all([
      (await this.#vectors).warm(scope.documents, scope.spec.embeddingModel),
      'error' in embedder || !scope.documents.some((d) => d.hasVectors) ? undefined : embedder.embed(['hello'], { purpose: 'query' }),
    ]);
  }

  /** Searches documents by id with `spec`'s index where they have it. */
  async forDocuments(
    organizationId: number,
    ids: number[],
    spec: IndexSpec,
    query: string,
    options: { limit: number; similarityThreshold: number },
  ): Promise<SearchResult> {
    const scope = await documentsScope(this.#db, organizationId, ids, spec);
    return hybridSearch({ db: this.#db, vectors: await this.#vectors, embedder: this.embedder(spec.embeddingModel) }, scope, { query, ...options });
  }

  async close(): Promise<void> {
    const vectors = await this.#vectors;
    await Promise.all([
      ...[...this.#embedders.values()].map((e) => ('close' in e ? e.close?.() : undefined)),
      vectors instanceof MemoryVectors ? vectors.close() : undefined,
    ]);
  }
}
