-- Full-text search over a set of chunk sets, in one round trip (modules/knowledge/search/lexical.ts):
-- - the query's words are OR-ed (a spoken question rarely has every word of the passage);
-- - words held by more than `common_share` of all chunks, by the statistics ANALYZE keeps on the column, are left
--   out (BM25's inverse document frequency would all but ignore them; they would make every chunk a match), unless
--   every word is that common, when the two rarest stay;
-- - at most `max_ranked` matches are ranked;
-- - `enable_seqscan = off` for the function alone: the planner costs `@@` as cheap and does not count reading each
--   chunk's compressed tsvector, so on some thousands of chunks it scans them all (60 ms) rather than take the GIN
--   index (5 ms).
CREATE FUNCTION "knowledge_lexical_search"(document_ids INTEGER[], chunkings TEXT[], query TEXT, common_share FLOAT8, max_ranked INTEGER, result_limit INTEGER)
RETURNS TABLE (chunk_id INTEGER, score FLOAT8)
LANGUAGE plpgsql STABLE
SET enable_seqscan = off
AS $$
DECLARE
  lexemes TEXT[];
  q tsquery;
BEGIN
  WITH words AS (SELECT DISTINCT unnest(tsvector_to_array(to_tsvector('english'::regconfig, query))) AS lexeme),
  stats AS (
    SELECT u.lexeme, u.share FROM pg_stats s, unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS u(lexeme, share)
    WHERE s.schemaname = current_schema() AND s.tablename = 'document_chunks' AND s.attname = 'search_vector' AND u.lexeme IS NOT NULL
  ),
  weighed AS (SELECT w.lexeme, coalesce(st.share, 0) AS share FROM words w LEFT JOIN stats st ON st.lexeme = w.lexeme)
  SELECT coalesce(array_agg(lexeme) FILTER (WHERE share <= common_share), '{}') INTO lexemes FROM weighed;
  IF cardinality(lexemes) = 0 THEN
    SELECT coalesce((array_agg(lexeme ORDER BY share, lexeme))[1:2], '{}') INTO lexemes FROM (
      SELECT w.lexeme, coalesce(st.share, 0) AS share
      FROM (SELECT DISTINCT unnest(tsvector_to_array(to_tsvector('english'::regconfig, query))) AS lexeme) w
      LEFT JOIN (
        SELECT u.lexeme, u.share FROM pg_stats s, unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS u(lexeme, share)
        WHERE s.schemaname = current_schema() AND s.tablename = 'document_chunks' AND s.attname = 'search_vector' AND u.lexeme IS NOT NULL
      ) st ON st.lexeme = w.lexeme
    ) weighed;
  END IF;
  IF cardinality(lexemes) = 0 THEN
    RETURN;
  END IF;
  -- Each lexeme quoted as tsquery input wants it: a backslash and a quote escaped, so none reads as an operator.
  q := (SELECT string_agg('''' || replace(replace(l, '\', '\\'), '''', '''''') || '''', ' | ') FROM unnest(lexemes) AS l)::tsquery;
  RETURN QUERY
    SELECT m.id, ts_rank(m.search_vector, q, 1)::float8
    FROM (
      SELECT c.id, c.search_vector FROM document_chunks c
      JOIN unnest(document_ids, chunkings) AS s(document_id, chunking) ON s.document_id = c.document_id AND s.chunking = c.chunking
      WHERE c.search_vector @@ q
      LIMIT max_ranked
    ) m
    ORDER BY 2 DESC, 1
    LIMIT result_limit;
END;
$$;
