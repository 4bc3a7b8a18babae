import type { Db } from '../../../prisma/client.js';
import type { ScopeDocument } from './scope.js';

// Full-text search over the chunks (document_chunks.search_vector, a GIN index; headings weigh more than the text), in
// one round trip through the `knowledge_lexical_search` function (migration 20261125020000): the query's words OR-ed,
// words most chunks hold left out, at most MAX_RANKED matches ranked, the GIN index always taken. Exact names, numbers
// and codes ("AB-1234") are words here, which an embedding may blur. docs/knowledge.md, "Search"; docs/benchmarks.md
// for what each of these took off a search.

export interface LexicalHit {
  chunkId: number;
  /** ts_rank, normalised by the chunk's length (1 + log of its word count). */
  score: number;
}

/** A word in more than 5 % of the chunks says little about which one answers. */
export const COMMON_SHARE = 0.05;
/** Chunks ranked at most per query: ~20 ms of ranking on this machine. */
export const MAX_RANKED = 2000;

export async function lexicalSearch(db: Db, documents: ScopeDocument[], query: string, limit: number): Promise<LexicalHit[]> {
  if (documents.length === 0 || query.trim() === '') return [];
  const rows = await db.$queryRaw<{ chunk_id: number; score: number }[]>`
    SELECT chunk_id, score FROM knowledge_lexical_search(
      ${documents.map((d) => d.id)}::int[], ${documents.map((d) => d.chunking)}::text[], ${query}, ${COMMON_SHARE}::float8, ${MAX_RANKED}::int, ${limit}::int)`;
  return rows.map((r) => ({ chunkId: r.chunk_id, score: r.score }));
}
