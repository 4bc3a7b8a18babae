import type { Db, PrismaClient } from '../../../prisma/client.js';
import type { ScopeDocument } from './scope.js';

// Full-text search over the chunks (document_chunks.search_vector, a GIN index; headings weigh more than the text).
// The query's words are OR-ed, not AND-ed as `plainto_tsquery` would: a spoken question ("so what time do you open on
// saturdays") rarely has every word in the passage, and ranking puts the chunks with more of them, and rarer ones,
// first. Exact names, numbers and codes ("AB-1234") are words here, which an embedding may blur.
//
// Ranking costs a few microseconds per matching chunk, and an OR of common words matches nearly every chunk: 10,000
// chunks took ~130 ms. So words that are in more than COMMON_SHARE of all chunks, by the statistics Postgres keeps on
// the column (`pg_stats.most_common_elems`, refreshed by autovacuum's ANALYZE), are left out of the query, as BM25's
// inverse document frequency would all but ignore them; when every word is common, the two rarest stay. And at most
// MAX_RANKED matching chunks are ranked, a bound on the worst case. docs/knowledge.md, "Search", and
// docs/benchmarks.md for what each of these took off a search.

export interface LexicalHit {
  chunkId: number;
  /** ts_rank, normalised by the chunk's length (1 + log of its word count). */
  score: number;
}

/** A word in more than 5 % of the chunks says little about which one answers. */
const COMMON_SHARE = 0.05;
/** Words kept when all are common: the rarest two still tell chunks apart. */
const KEEP_WHEN_ALL_COMMON = 2;
/** Chunks ranked at most per query: ~20 ms of ranking on this machine. */
export const MAX_RANKED = 2000;
/** The column's statistics change slowly: read at most once a minute per process. */
const STATS_TTL_MS = 60_000;

const statsOf = new WeakMap<Db, { at: number; frequency: Map<string, number> }>();

/** Each lexeme's share of chunks holding it, for the most common ones (Postgres' own statistics of the column). */
async function commonLexemes(db: Db): Promise<Map<string, number>> {
  const stats = statsOf.get(db);
  if (stats && Date.now() - stats.at < STATS_TTL_MS) return stats.frequency;
  const rows = await db.$queryRaw<{ elems: string[] | null; freqs: number[] | null }[]>`
    SELECT most_common_elems::text::text[] AS elems, most_common_elem_freqs AS freqs
    FROM pg_stats WHERE tablename = 'document_chunks' AND attname = 'search_vector'`;
  const frequency = new Map<string, number>();
  const row = rows[0];
  if (row?.elems && row.freqs) row.elems.forEach((lexeme, i) => frequency.set(lexeme, row.freqs![i]!));
  statsOf.set(db, { at: Date.now(), frequency });
  return frequency;
}

/** The query's lexemes worth searching: the uncommon ones, or the rarest two when all are common. */
export function selective(lexemes: string[], frequency: Map<string, number>): string[] {
  const unique = [...new Set(lexemes)];
  const rare = unique.filter((l) => (frequency.get(l) ?? 0) <= COMMON_SHARE);
  if (rare.length > 0) return rare;
  return unique.sort((a, b) => (frequency.get(a) ?? 0) - (frequency.get(b) ?? 0)).slice(0, KEEP_WHEN_ALL_COMMON);
}

/** A tsquery literal OR-ing lexemes (quoted, so no lexeme is read as an operator). */
function orQuery(lexemes: string[]): string {
  return lexemes.map((l) => `'${l.replaceAll("'", "''").replaceAll('\\', '\\\\')}'`).join(' | ');
}

export async function lexicalSearch(db: PrismaClient, documents: ScopeDocument[], query: string, limit: number): Promise<LexicalHit[]> {
  if (documents.length === 0 || query.trim() === '') return [];
  const [parsed, frequency] = await Promise.all([
    db.$queryRaw<{ lexemes: string[] }[]>`SELECT coalesce(tsvector_to_array(to_tsvector('english', ${query})), '{}') AS lexemes`,
    commonLexemes(db),
  ]);
  const lexemes = selective(parsed[0]?.lexemes ?? [], frequency);
  if (lexemes.length === 0) return [];
  const ids = documents.map((d) => d.id);
  const chunkings = documents.map((d) => d.chunking);
  const tsquery = orQuery(lexemes);
  // The planner costs `@@` as cheap and does not count reading each chunk's compressed tsvector, so on tables of some
  // thousands of chunks it scans them all rather than take the GIN index: 60 ms where the index takes 5 (10,000
  // chunks). The index is made the only way for this one query.
  const rows = await db.$transaction(async (tx) => {
    await tx.$executeRawUnsafe('SET LOCAL enable_seqscan = off');
    return tx.$queryRaw<{ id: number; score: number }[]>`
    WITH matched AS (
      SELECT c.id, c.search_vector FROM document_chunks c
      JOIN unnest(${ids}::int[], ${chunkings}::text[]) AS s(document_id, chunking) ON s.document_id = c.document_id AND s.chunking = c.chunking
      WHERE c.search_vector @@ ${tsquery}::tsquery
      LIMIT ${MAX_RANKED}
    )
    SELECT id, ts_rank(search_vector, ${tsquery}::tsquery, 1)::float8 AS score FROM matched
    ORDER BY score DESC, id
    LIMIT ${limit}`;
  });
  return rows.map((r) => ({ chunkId: r.id, score: r.score }));
}
