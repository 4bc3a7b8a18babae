-- Percentiles of duration and of each latency stage from the rollups (modules/analytics/histograms.ts): per rollup
-- key (the dimensions of call_rollups) and metric, the count of values in each logarithmic bucket, as DDSketch keeps
-- them. A value v of at least 1 ms is in bucket ceil(ln(v) / ln(gamma)), with gamma = 1.02 / 0.98, so any value of a
-- bucket is within 2% of the bucket's representative 2 * gamma^i / (gamma + 1); values under 1 ms are in bucket 0.
-- A row keeps its buckets as one array from `low_bucket` up: measured over a month of 1,000,000 calls, summing the
-- arrays' elements took about half the time of the same counts kept as one row per bucket (about 500,000 rows).
-- `calls` is the calls the row counts (for duration every ended call; for a latency stage every ended call with a
-- turn), `value_count` the values in `counts`.
CREATE TABLE "call_rollup_histograms" (
    "organization_id" INTEGER NOT NULL,
    "metric" TEXT NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "assistant_id" INTEGER NOT NULL,
    "campaign_id" INTEGER NOT NULL,
    "phone_number_id" INTEGER NOT NULL,
    "direction" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "transport" TEXT NOT NULL,
    "end_reason" TEXT NOT NULL,
    "sentiment" TEXT NOT NULL,
    "calls" INTEGER NOT NULL DEFAULT 0,
    "value_count" INTEGER NOT NULL DEFAULT 0,
    "low_bucket" INTEGER NOT NULL DEFAULT 0,
    "counts" INTEGER[] NOT NULL DEFAULT '{}',
    CONSTRAINT "call_rollup_histograms_pkey" PRIMARY KEY ("organization_id", "metric", "hour", "assistant_id", "campaign_id", "phone_number_id", "direction", "status", "transport", "end_reason", "sentiment")
);
ALTER TABLE "call_rollup_histograms" ADD CONSTRAINT "call_rollup_histograms_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE FUNCTION "histogram_bucket"(v DOUBLE PRECISION) RETURNS INTEGER LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN v < 1 THEN 0 ELSE greatest(ceil(ln(v) / ln(1.02 / 0.98))::int, 1) END
$$;

-- Counts by bucket as one array from the lowest bucket up (missing buckets 0); '{}' for none.
CREATE FUNCTION "histogram_dense"(buckets INTEGER[], counts INTEGER[]) RETURNS INTEGER[] LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce((SELECT array_agg(coalesce(u.n, 0) ORDER BY g)
    FROM generate_series((SELECT min(b) FROM unnest(buckets) b), (SELECT max(b) FROM unnest(buckets) b)) g
    LEFT JOIN unnest(buckets, counts) u(b, n) ON u.b = g), '{}')
$$;

-- Two such arrays added bucket by bucket, and the lowest bucket of the sum.
CREATE FUNCTION "histogram_add"(low1 INTEGER, a1 INTEGER[], low2 INTEGER, a2 INTEGER[]) RETURNS INTEGER[] LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN cardinality(a2) = 0 THEN a1 WHEN cardinality(a1) = 0 THEN a2 ELSE
    (SELECT array_agg(coalesce(a1[g - low1 + 1], 0) + coalesce(a2[g - low2 + 1], 0) ORDER BY g)
     FROM generate_series(least(low1, low2), greatest(low1 + cardinality(a1), low2 + cardinality(a2)) - 1) g) END
$$;
CREATE FUNCTION "histogram_low"(low1 INTEGER, a1 INTEGER[], low2 INTEGER, a2 INTEGER[]) RETURNS INTEGER LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN cardinality(a2) = 0 THEN low1 WHEN cardinality(a1) = 0 THEN low2 ELSE least(low1, low2) END
$$;

-- What one call adds to the histograms (sign 1) or takes away (sign -1), by metric: its duration when its
-- conversation began, its turns' latencies by stage; a row whose bucket is null counts the call itself. Also how
-- charts read the calls still under way.
CREATE FUNCTION "call_histogram_entries"(c "calls", sign INTEGER) RETURNS TABLE ("metric" TEXT, "bucket" INTEGER, "n" INTEGER) LANGUAGE sql STABLE AS $$
  SELECT 'duration_ms', NULL::int, sign
  UNION ALL SELECT 'duration_ms', "histogram_bucket"(c."duration_ms"), sign WHERE c."started_at" IS NOT NULL AND c."duration_ms" IS NOT NULL
  UNION ALL SELECT s.metric, NULL::int, sign FROM unnest(ARRAY['end_of_utterance_delay_ms', 'llm_ttft_ms', 'tts_ttfb_ms', 'e2e_latency_ms']) s(metric)
    WHERE EXISTS (SELECT 1 FROM "call_turns" t WHERE t."call_id" = c."id")
  UNION ALL SELECT v.metric, "histogram_bucket"(v.ms), sign FROM "call_turns" t,
    LATERAL (VALUES ('end_of_utterance_delay_ms', t."end_of_utterance_delay_ms"), ('llm_ttft_ms', t."llm_ttft_ms"), ('tts_ttfb_ms', t."tts_ttfb_ms"), ('e2e_latency_ms', t."e2e_latency_ms")) v(metric, ms)
    WHERE t."call_id" = c."id" AND v.ms IS NOT NULL
$$;

-- The one statement that adds entries to the histograms, given a query of them: the rollup key, `metric`, `bucket`
-- and `n`. Run with EXECUTE by each trigger, so that a trigger's transition table can be read in it. An organisation
-- that is gone (deleted with its calls) is skipped: its rows go with it.
CREATE FUNCTION "call_histograms_merge"(entries TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE AS $$
  SELECT format($q$
  INSERT INTO "call_rollup_histograms" AS r ("organization_id", "hour", "assistant_id", "campaign_id", "phone_number_id", "direction", "status", "transport", "end_reason", "sentiment",
    "metric", "calls", "value_count", "low_bucket", "counts")
  SELECT e."organization_id", e."hour", e."assistant_id", e."campaign_id", e."phone_number_id", e."direction", e."status", e."transport", e."end_reason", e."sentiment", e."metric",
    coalesce(sum(e.n) FILTER (WHERE e.bucket IS NULL), 0), coalesce(sum(e.n) FILTER (WHERE e.bucket IS NOT NULL), 0),
    coalesce(min(e.bucket) FILTER (WHERE e.n <> 0), 0),
    "histogram_dense"(array_agg(e.bucket) FILTER (WHERE e.bucket IS NOT NULL AND e.n <> 0), array_agg(e.n) FILTER (WHERE e.bucket IS NOT NULL AND e.n <> 0))
  FROM (SELECT e."organization_id", e."hour", e."assistant_id", e."campaign_id", e."phone_number_id", e."direction", e."status", e."transport", e."end_reason", e."sentiment", e."metric",
          e."bucket", sum(e."n")::int AS n
        FROM (%s) e
        WHERE EXISTS (SELECT 1 FROM "organizations" o WHERE o."id" = e."organization_id")
        GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12) e
  GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
  ON CONFLICT ("organization_id", "metric", "hour", "assistant_id", "campaign_id", "phone_number_id", "direction", "status", "transport", "end_reason", "sentiment") DO UPDATE SET
    "calls" = r."calls" + EXCLUDED."calls", "value_count" = r."value_count" + EXCLUDED."value_count",
    "low_bucket" = "histogram_low"(r."low_bucket", r."counts", EXCLUDED."low_bucket", EXCLUDED."counts"),
    "counts" = "histogram_add"(r."low_bucket", r."counts", EXCLUDED."low_bucket", EXCLUDED."counts")
  $q$, entries)
$$;

-- The entries of the ended calls in a set of calls (a query text over `c`), under each call's rollup key.
CREATE FUNCTION "call_histograms_of_calls"(calls TEXT, sign INTEGER) RETURNS TEXT LANGUAGE sql IMMUTABLE AS $$
  SELECT format('SELECT x."organization_id", x."hour", x."assistant_id", x."campaign_id", x."phone_number_id", x."direction", x."status", x."transport", x."end_reason", x."sentiment", h."metric", h."bucket", h."n"
    FROM %s, LATERAL "call_rollup_row"(c, 1) x, LATERAL "call_histogram_entries"(c, %s) h WHERE "call_has_ended"(c."status")', calls, sign)
$$;

-- An ended call that changes (or ends) moves between rollup rows: its histogram entries move with it.
CREATE OR REPLACE FUNCTION "call_rollups_follow"() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND "call_has_ended"(OLD."status") THEN
    PERFORM "call_rollup_apply"(OLD, -1);
    EXECUTE "call_histograms_merge"("call_histograms_of_calls"('unnest(ARRAY[$1]) c', -1)) USING OLD;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND "call_has_ended"(NEW."status") THEN
    PERFORM "call_rollup_apply"(NEW, 1);
    EXECUTE "call_histograms_merge"("call_histograms_of_calls"('unnest(ARRAY[$1]) c', 1)) USING NEW;
  END IF;
  RETURN NULL;
END;
$$;

-- Ended calls inserted in a statement (an import of call history) add their durations in one upsert per row; they
-- have no turns yet, which the turns' trigger adds as they come.
CREATE FUNCTION "call_histograms_follow_inserts"() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE "call_histograms_merge"("call_histograms_of_calls"('"changed_calls" c', 1));
  RETURN NULL;
END;
$$;
CREATE TRIGGER "calls_histograms_insert" AFTER INSERT ON "calls" REFERENCING NEW TABLE AS "changed_calls" FOR EACH STATEMENT EXECUTE FUNCTION "call_histograms_follow_inserts"();

-- A deleted call takes its entries away before it goes: its turns are deleted with it by the foreign key's cascade,
-- which runs before any trigger after the delete could read them. Once per deleted ended call; when the
-- organisation is deleted with its calls, its rows go with it and the call has nothing to take away.
CREATE FUNCTION "call_histograms_follow_delete"() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM "organizations" o WHERE o."id" = OLD."organization_id") THEN
    EXECUTE "call_histograms_merge"("call_histograms_of_calls"('unnest(ARRAY[$1]) c', -1)) USING OLD;
  END IF;
  RETURN OLD;
END;
$$;
CREATE TRIGGER "calls_histograms_delete" BEFORE DELETE ON "calls" FOR EACH ROW WHEN ("call_has_ended"(OLD."status")) EXECUTE FUNCTION "call_histograms_follow_delete"();

-- Turns written, changed or deleted after their call ended (the end of a call writes the turns a failed write left
-- out, after the call's status): their latencies are added or taken away under the call's key, and the call is
-- counted for the latency stages once it has a turn. Turns of calls under way change nothing here.
CREATE FUNCTION "call_histograms_follow_turns"() RETURNS TRIGGER LANGUAGE plpgsql AS $$
DECLARE
  changed TEXT := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT t.*, 1 AS sign FROM "new_turns" t'
    WHEN 'DELETE' THEN 'SELECT t.*, -1 AS sign FROM "old_turns" t'
    -- An update counts only where a latency changed: the text scrubbed from a contact's calls changes nothing here.
    ELSE replace('SELECT o.*, -1 AS sign FROM "old_turns" o JOIN "new_turns" n ON n."id" = o."id" WHERE $changed
          UNION ALL SELECT n.*, 1 AS sign FROM "new_turns" n JOIN "old_turns" o ON o."id" = n."id" WHERE $changed', '$changed',
          '(o."call_id", o."end_of_utterance_delay_ms", o."llm_ttft_ms", o."tts_ttfb_ms", o."e2e_latency_ms")
            IS DISTINCT FROM (n."call_id", n."end_of_utterance_delay_ms", n."llm_ttft_ms", n."tts_ttfb_ms", n."e2e_latency_ms")') END;
BEGIN
  EXECUTE "call_histograms_merge"(format($q$
    WITH changed AS (%s),
    ended AS (
      SELECT c, x, ch.delta, (SELECT count(*) FROM "call_turns" t WHERE t."call_id" = c."id") AS now
      FROM (SELECT "call_id", sum(sign) AS delta FROM changed GROUP BY 1) ch JOIN "calls" c ON c."id" = ch."call_id", LATERAL "call_rollup_row"(c, 1) x
      WHERE "call_has_ended"(c."status"))
    SELECT (e.x)."organization_id", (e.x)."hour", (e.x)."assistant_id", (e.x)."campaign_id", (e.x)."phone_number_id", (e.x)."direction", (e.x)."status", (e.x)."transport",
      (e.x)."end_reason", (e.x)."sentiment", v.metric AS "metric", "histogram_bucket"(v.ms) AS "bucket", t.sign AS "n"
    FROM changed t JOIN ended e ON (e.c)."id" = t."call_id",
      LATERAL (VALUES ('end_of_utterance_delay_ms', t."end_of_utterance_delay_ms"), ('llm_ttft_ms', t."llm_ttft_ms"), ('tts_ttfb_ms', t."tts_ttfb_ms"), ('e2e_latency_ms', t."e2e_latency_ms")) v(metric, ms)
    WHERE v.ms IS NOT NULL
    UNION ALL
    SELECT (e.x)."organization_id", (e.x)."hour", (e.x)."assistant_id", (e.x)."campaign_id", (e.x)."phone_number_id", (e.x)."direction", (e.x)."status", (e.x)."transport",
      (e.x)."end_reason", (e.x)."sentiment", s.metric, NULL::int, ((e.now > 0)::int - (e.now - e.delta > 0)::int)
    FROM ended e, unnest(ARRAY['end_of_utterance_delay_ms', 'llm_ttft_ms', 'tts_ttfb_ms', 'e2e_latency_ms']) s(metric)
    WHERE (e.now > 0) <> (e.now - e.delta > 0)
  $q$, changed));
  RETURN NULL;
END;
$$;
CREATE TRIGGER "call_turns_histograms_insert" AFTER INSERT ON "call_turns" REFERENCING NEW TABLE AS "new_turns" FOR EACH STATEMENT EXECUTE FUNCTION "call_histograms_follow_turns"();
CREATE TRIGGER "call_turns_histograms_delete" AFTER DELETE ON "call_turns" REFERENCING OLD TABLE AS "old_turns" FOR EACH STATEMENT EXECUTE FUNCTION "call_histograms_follow_turns"();
CREATE TRIGGER "call_turns_histograms_update" AFTER UPDATE ON "call_turns"
  REFERENCING OLD TABLE AS "old_turns" NEW TABLE AS "new_turns" FOR EACH STATEMENT EXECUTE FUNCTION "call_histograms_follow_turns"();

-- The calls that have ended already.
DO $$ BEGIN EXECUTE "call_histograms_merge"("call_histograms_of_calls"('"calls" c', 1)); END $$;
