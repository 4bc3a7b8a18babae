import type { PrismaClient } from '../../../prisma/client.js';
import type { Embedder } from '../embeddings/embedder.js';
import { relevanceOf } from './calibration.js';
import { lexicalSearch } from './lexical.js';
import type { VectorIndex } from './vector-index.js';
import type { SearchScope } from './scope.js';

// Hybrid retrieval: the chunks found by their words (full-text) and by their meaning (vectors), run side by side and
// fused by reciprocal rank (RRF, k = 60): a chunk's fused score is the sum of 1 / (60 + rank) over the lists it is in,
// so one found by both ranks first, and neither list's scores need to be comparable with the other's. A vector hit
// counts only at a calibrated relevance of at least `similarity_threshold` (calibration.ts); a lexical hit has the
// caller's own words in it and always counts. The chunks' text is read last, by id: a chunk of a document deleted or
// replaced a moment ago is gone. docs/knowledge.md.

export const RRF_K = 60;
/** Candidates taken from each list before fusing: enough that a chunk ranked low by one and high by the other surfaces. */
export const CANDIDATES = 20;

export interface KnowledgeHit {
  chunk_id: number;
  document_id: number;
  document_name: string;
  heading_path: string[];
  content: string;
  token_count: number;
  metadata: Record<string, string>;
  /** 1-based rank and score in the full-text list, null when not in it. */
  lexical_rank: number | null;
  lexical_score: number | null;
  /** 1-based rank and cosine similarity in the vector list, null when not in it (or below the threshold). */
  vector_rank: number | null;
  vector_score: number | null;
  /** The vector score calibrated to 0–1 for the model (what the threshold applies to). */
  relevance: number | null;
  fused_score: number;
}

export interface SearchTimings {
  embed_ms: number;
  lexical_ms: number;
  vector_ms: number;
  fetch_ms: number;
  total_ms: number;
}

export interface SearchResult {
  hits: KnowledgeHit[];
  timings: SearchTimings;
  /** Why vectors took no part, when they did not (no model configured, the vendor failed); the words still searched. */
  vector_error: string | null;
  /** Vector hits dropped under the threshold. */
  below_threshold: number;
  /** Where the vectors were searched: pgvector's HNSW index, or this process's memory. */
  vector_index: VectorIndex['kind'];
}

export interface SearchDeps {
  db: PrismaClient;
  vectors: VectorIndex;
  /** The query's embedder (cached), or why there is none. */
  embedder: Embedder | { error: string };
}

export interface SearchRequest {
  query: string;
  limit: number;
  similarityThreshold: number;
  signal?: AbortSignal;
}

const ms = (from: number) => Math.round((performance.now() - from) * 100) / 100;

export async function hybridSearch(deps: SearchDeps, scope: SearchScope, request: SearchRequest): Promise<SearchResult> {
  const started = performance.now();
  const timings: SearchTimings = { embed_ms: 0, lexical_ms: 0, vector_ms: 0, fetch_ms: 0, total_ms: 0 };
  const query = request.query.trim();
  if (scope.documents.length === 0 || query === '') return { hits: [], timings, vector_error: null, below_threshold: 0, vector_index: deps.vectors.kind };
  const model = scope.spec.embeddingModel;
  let vectorError: string | null = null;

  const lexical = (async () => {
    const t = performance.now();
    const hits = await lexicalSearch(deps.db, scope.documents, query, CANDIDATES);
    timings.lexical_ms = ms(t);
    return hits;
  })();
  const vector = (async () => {
    if (!scope.documents.some((d) => d.hasVectors)) return [];
    if ('error' in deps.embedder) {
      vectorError = deps.embedder.error;
      return [];
    }
    const t = performance.now();
    let embedded: Float32Array;
    try {
      [embedded] = (await deps.embedder.embed([query], { purpose: 'query', ...(request.signal ? { signal: request.signal } : {}) })) as [Float32Array];
    } catch (error) {
      vectorError = error instanceof Error ? error.message : 'The query could not be embedded.';
      return [];
    } finally {
      timings.embed_ms = ms(t);
    }
    const s = performance.now();
    const hits = await deps.vectors.search(scope.documents, model, embedded, CANDIDATES);
    timings.vector_ms = ms(s);
    return hits;
  })();
  const [lexicalHits, vectorHits] = await Promise.all([lexical, vector]);

  const fused = new Map<number, Pick<KnowledgeHit, 'lexical_rank' | 'lexical_score' | 'vector_rank' | 'vector_score' | 'relevance' | 'fused_score'>>();
  const entry = (chunkId: number) => {
    let e = fused.get(chunkId);
    if (!e) fused.set(chunkId, (e = { lexical_rank: null, lexical_score: null, vector_rank: null, vector_score: null, relevance: null, fused_score: 0 }));
    return e;
  };
  lexicalHits.forEach((hit, i) => {
    const e = entry(hit.chunkId);
    e.lexical_rank = i + 1;
    e.lexical_score = round(hit.score);
    e.fused_score += 1 / (RRF_K + i + 1);
  });
  let belowThreshold = 0;
  let rank = 0;
  for (const hit of vectorHits) {
    const relevance = relevanceOf(model, hit.score);
    if (relevance < request.similarityThreshold) {
      belowThreshold++;
      // Below the threshold a chunk still shows its similarity when its words found it.
      const found = fused.get(hit.chunkId);
      if (found) Object.assign(found, { vector_score: round(hit.score), relevance: round(relevance) });
      continue;
    }
    rank++;
    const e = entry(hit.chunkId);
    Object.assign(e, { vector_rank: rank, vector_score: round(hit.score), relevance: round(relevance) });
    e.fused_score += 1 / (RRF_K + rank);
  }
  const best = [...fused.entries()].sort((a, b) => b[1].fused_score - a[1].fused_score || a[0] - b[0]).slice(0, request.limit);

  const f = performance.now();
  const rows = await deps.db.$queryRaw<{ id: number; document_id: number; content: string; heading_path: string[]; token_count: number }[]>`
    SELECT id, document_id, content, heading_path, token_count FROM document_chunks WHERE id = ANY(${best.map(([id]) => id)}::int[])`;
  timings.fetch_ms = ms(f);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const documents = new Map(scope.documents.map((d) => [d.id, d]));
  const hits: KnowledgeHit[] = best.flatMap(([id, scores]) => {
    const row = byId.get(id);
    const document = row && documents.get(row.document_id);
    if (!row || !document) return [];
    return [
      {
        chunk_id: id,
        document_id: row.document_id,
        document_name: document.name,
        heading_path: row.heading_path,
        content: row.content,
        token_count: row.token_count,
        metadata: document.metadata,
        ...scores,
        fused_score: round(scores.fused_score),
      },
    ];
  });
  timings.total_ms = ms(started);
  return { hits, timings, vector_error: vectorError, below_threshold: belowThreshold, vector_index: deps.vectors.kind };
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
