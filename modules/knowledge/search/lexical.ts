import type { Db } from '../../../prisma/client.js';
import type { ScopeDocument } from './scope.js';

// Full-text search over the chunks (document_chunks.search_vector, a GIN index; headings weigh more than the text).
// The query's words are OR-ed, not AND-ed as `plainto_tsquery` would: a spoken question ("so what time do you open on
// saturdays") rarely has every word in the passage, and ranking puts the chunks with more of them, and rarer ones,
// first. Exact names, numbers and codes ("AB-1234") are words here, which an embedding may blur.

export interface LexicalHit {
  chunkId: number;
  /** ts_rank, normalised by the chunk's length (1 + log of its word count). */
  score: number;
}

export async function lexicalSearch(db: Db, documents: ScopeDocument[], query: string, limit: number): Promise<LexicalHit[]> {
  if (documents.length === 0 || query.trim() === '') return [];
  const ids = documents.map((d) => d.id);
  const chunkings = documents.map((d) => d.chunking);
  const rows = await db.$queryRaw<{ id: number; score: number }[]>`
    WITH q AS (SELECT nullif(replace(plainto_tsquery('english', ${query})::text, ' & ', ' | '), '')::tsquery AS q),
    scope AS (SELECT * FROM unnest(${ids}::int[], ${chunkings}::text[]) AS s(document_id, chunking))
    SELECT c.id, ts_rank(c.search_vector, q.q, 1)::float8 AS score
    FROM document_chunks c JOIN scope s ON s.document_id = c.document_id AND s.chunking = c.chunking, q
    WHERE q.q IS NOT NULL AND c.search_vector @@ q.q
    ORDER BY score DESC, c.id
    LIMIT ${limit}`;
  return rows.map((r) => ({ chunkId: r.id, score: r.score }));
}
