-- Ended calls are folded into the rollups in batches behind a watermark instead of in the transaction that ends each
-- call. With the rollups kept by triggers in that transaction, every call ending in the same hour updated the same few
-- rollup and histogram rows, and concurrent enders (two campaign dispatchers with an instant dialler) waited on each
-- other's row locks: the campaign benchmark fell from 249 to 127 dials per second (docs/benchmarks.md). Now the ending
-- transaction only appends its deltas to two pending tables (no row is shared, nothing waits), and one folder at a time
-- (modules/analytics/fold.ts, every second in each API process, an advisory lock keeping it to one) moves every
-- committed delta up to the highest sequence number it sees into the rollups, summed by row, in one transaction.
-- Charts read the rollups and the pending deltas together, so they are exact before and after the fold.
--
-- Calls inserted or deleted many at a time (an import of call history) still update the rollups in their own
-- statement: they are already grouped by rollup row there, and nothing else writes those rows at that moment.

-- A rollup delta per ended call that changed, in the rollups' own columns, in the order they were appended.
CREATE TABLE "call_rollup_pending" (LIKE "call_rollups" INCLUDING DEFAULTS);
ALTER TABLE "call_rollup_pending" ADD COLUMN "seq" BIGSERIAL NOT NULL, ADD COLUMN "queued_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
ALTER TABLE "call_rollup_pending" ADD CONSTRAINT "call_rollup_pending_pkey" PRIMARY KEY ("seq");
CREATE INDEX "call_rollup_pending_organization_id_hour_idx" ON "call_rollup_pending"("organization_id", "hour");

-- The histograms' entries, as call_histogram_entries gives them under each call's rollup key (the whole hour's row,
-- assistant -1, is added when they are folded, as before).
CREATE TABLE "call_rollup_histogram_pending" (
    "seq" BIGSERIAL NOT NULL,
    "organization_id" INTEGER NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "assistant_id" INTEGER NOT NULL,
    "campaign_id" INTEGER NOT NULL,
    "phone_number_id" INTEGER NOT NULL,
    "direction" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "transport" TEXT NOT NULL,
    "end_reason" TEXT NOT NULL,
    "sentiment" TEXT NOT NULL,
    "metric" TEXT NOT NULL,
    "bucket" INTEGER,
    "n" INTEGER NOT NULL,
    "queued_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "call_rollup_histogram_pending_pkey" PRIMARY KEY ("seq")
);
CREATE INDEX "call_rollup_histogram_pending_organization_id_metric_hour_idx" ON "call_rollup_histogram_pending"("organization_id", "metric", "hour");

-- What the charts read: the folded rows and the deltas not folded yet. Sums of both are the exact figures. (A column
-- added to call_rollups later must be added here too.)
CREATE VIEW "call_rollups_current" AS
  SELECT "organization_id", "hour", "assistant_id", "campaign_id", "phone_number_id", "direction", "status", "transport", "end_reason", "calls", "started", "answered", "machine", "transferred", "goal_true", "goal_judged", "duration_calls", "duration_ms", "talk_calls", "talk_ms", "metered", "cost_micro_usd", "cost_llm_micro_usd", "cost_stt_micro_usd", "cost_tts_micro_usd", "cost_telephony_micro_usd", "llm_input_tokens", "llm_output_tokens", "stt_audio_ms", "tts_characters", "interruptions", "tool_calls", "tool_failures", "sentiment" FROM "call_rollups"
  UNION ALL
  SELECT "organization_id", "hour", "assistant_id", "campaign_id", "phone_number_id", "direction", "status", "transport", "end_reason", "calls", "started", "answered", "machine", "transferred", "goal_true", "goal_judged", "duration_calls", "duration_ms", "talk_calls", "talk_ms", "metered", "cost_micro_usd", "cost_llm_micro_usd", "cost_stt_micro_usd", "cost_tts_micro_usd", "cost_telephony_micro_usd", "llm_input_tokens", "llm_output_tokens", "stt_audio_ms", "tts_characters", "interruptions", "tool_calls", "tool_failures", "sentiment" FROM "call_rollup_pending";

-- One ended call's delta (sign 1 added, -1 taken away), appended for the folder.
CREATE OR REPLACE FUNCTION "call_rollup_apply"(c "calls", sign INTEGER) RETURNS VOID LANGUAGE sql AS $$
  INSERT INTO "call_rollup_pending" SELECT x.* FROM "call_rollup_row"(c, sign) x
$$;

-- The histograms' upsert of a query of entries, as it was: now used by the folder and by whole statements.
ALTER FUNCTION "call_histograms_merge"(TEXT) RENAME TO "call_histograms_fold_entries";

-- Entries of the row triggers (a call that ended or changed, turns written after its end), appended for the folder.
CREATE FUNCTION "call_histograms_merge"(entries TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE AS $$
  SELECT format($q$
  INSERT INTO "call_rollup_histogram_pending" ("organization_id", "hour", "assistant_id", "campaign_id", "phone_number_id", "direction", "status", "transport",
    "end_reason", "sentiment", "metric", "bucket", "n")
  SELECT e."organization_id", e."hour", e."assistant_id", e."campaign_id", e."phone_number_id", e."direction", e."status", e."transport", e."end_reason",
    e."sentiment", e."metric", e."bucket", e."n"
  FROM (%s) e WHERE e."n" <> 0
  $q$, entries)
$$;

-- The row trigger of a call that ended or changed after its end, in static statements: their plans are kept for the
-- session, where the dynamic statement of each row was planned again every time (the instant dialler of the campaign
-- benchmark ends up to 200 calls in one statement).
CREATE OR REPLACE FUNCTION "call_rollups_follow"() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND "call_has_ended"(OLD."status") THEN
    INSERT INTO "call_rollup_pending" SELECT x.* FROM "call_rollup_row"(OLD, -1) x;
    INSERT INTO "call_rollup_histogram_pending" ("organization_id", "hour", "assistant_id", "campaign_id", "phone_number_id", "direction", "status", "transport", "end_reason", "sentiment", "metric", "bucket", "n")
    SELECT x."organization_id", x."hour", x."assistant_id", x."campaign_id", x."phone_number_id", x."direction", x."status", x."transport", x."end_reason", x."sentiment", h."metric", h."bucket", h."n" FROM "call_rollup_row"(OLD, 1) x, "call_histogram_entries"(OLD, -1) h;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND "call_has_ended"(NEW."status") THEN
    INSERT INTO "call_rollup_pending" SELECT x.* FROM "call_rollup_row"(NEW, 1) x;
    INSERT INTO "call_rollup_histogram_pending" ("organization_id", "hour", "assistant_id", "campaign_id", "phone_number_id", "direction", "status", "transport", "end_reason", "sentiment", "metric", "bucket", "n")
    SELECT x."organization_id", x."hour", x."assistant_id", x."campaign_id", x."phone_number_id", x."direction", x."status", x."transport", x."end_reason", x."sentiment", h."metric", h."bucket", h."n" FROM "call_rollup_row"(NEW, 1) x, "call_histogram_entries"(NEW, 1) h;
  END IF;
  RETURN NULL;
END;
$$;

-- Ended calls inserted in one statement keep adding their durations in that statement, grouped by row.
CREATE OR REPLACE FUNCTION "call_histograms_follow_inserts"() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
  -- Most inserts are calls queued or ringing: nothing to add, and no dynamic statement to plan for them.
  IF NOT EXISTS (SELECT 1 FROM "changed_calls" c WHERE "call_has_ended"(c."status")) THEN
    RETURN NULL;
  END IF;
  EXECUTE "call_histograms_fold_entries"("call_histograms_of_calls"('"changed_calls" c', 1));
  RETURN NULL;
END;
$$;

-- Folds the pending deltas into the rollups, at most `batch` of each table, oldest first: every delta that is committed
-- up to the highest sequence number seen is moved (deleted from pending and added to its rollup row) in this
-- transaction. A delta still uncommitted below that number stays and is folded by a later pass. Returns the number of
-- deltas folded, or -1 when another process is folding now. Deltas of an organisation deleted meanwhile are dropped.
CREATE FUNCTION "call_rollups_fold"(batch INTEGER) RETURNS INTEGER LANGUAGE plpgsql AS $$
DECLARE
  upto BIGINT;
  folded INTEGER := 0;
  n_moved INTEGER;
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtext('call_rollups_fold')) THEN
    RETURN -1;
  END IF;
  SELECT max(s."seq") INTO upto FROM (SELECT p."seq" FROM "call_rollup_pending" p ORDER BY p."seq" LIMIT batch) s;
  IF upto IS NOT NULL THEN
    WITH moved AS (DELETE FROM "call_rollup_pending" p WHERE p."seq" <= upto RETURNING p.*),
    added AS (
      INSERT INTO "call_rollups" AS r
      SELECT m."organization_id", m."hour", m."assistant_id", m."campaign_id", m."phone_number_id", m."direction", m."status", m."transport", m."end_reason",
    sum(m."calls"), sum(m."started"), sum(m."answered"), sum(m."machine"), sum(m."transferred"), sum(m."goal_true"), sum(m."goal_judged"), sum(m."duration_calls"), sum(m."duration_ms"), sum(m."talk_calls"), sum(m."talk_ms"), sum(m."metered"), sum(m."cost_micro_usd"), sum(m."cost_llm_micro_usd"), sum(m."cost_stt_micro_usd"), sum(m."cost_tts_micro_usd"), sum(m."cost_telephony_micro_usd"), sum(m."llm_input_tokens"), sum(m."llm_output_tokens"), sum(m."stt_audio_ms"), sum(m."tts_characters"), sum(m."interruptions"), sum(m."tool_calls"), sum(m."tool_failures"), m."sentiment"
      FROM moved m
      WHERE EXISTS (SELECT 1 FROM "organizations" o WHERE o."id" = m."organization_id")
      GROUP BY m."organization_id", m."hour", m."assistant_id", m."campaign_id", m."phone_number_id", m."direction", m."status", m."transport", m."end_reason", m."sentiment"
      ON CONFLICT ("organization_id", "hour", "assistant_id", "campaign_id", "phone_number_id", "direction", "status", "transport", "end_reason", "sentiment") DO UPDATE SET
    "calls" = r."calls" + EXCLUDED."calls",
    "started" = r."started" + EXCLUDED."started",
    "answered" = r."answered" + EXCLUDED."answered",
    "machine" = r."machine" + EXCLUDED."machine",
    "transferred" = r."transferred" + EXCLUDED."transferred",
    "goal_true" = r."goal_true" + EXCLUDED."goal_true",
    "goal_judged" = r."goal_judged" + EXCLUDED."goal_judged",
    "duration_calls" = r."duration_calls" + EXCLUDED."duration_calls",
    "duration_ms" = r."duration_ms" + EXCLUDED."duration_ms",
    "talk_calls" = r."talk_calls" + EXCLUDED."talk_calls",
    "talk_ms" = r."talk_ms" + EXCLUDED."talk_ms",
    "metered" = r."metered" + EXCLUDED."metered",
    "cost_micro_usd" = r."cost_micro_usd" + EXCLUDED."cost_micro_usd",
    "cost_llm_micro_usd" = r."cost_llm_micro_usd" + EXCLUDED."cost_llm_micro_usd",
    "cost_stt_micro_usd" = r."cost_stt_micro_usd" + EXCLUDED."cost_stt_micro_usd",
    "cost_tts_micro_usd" = r."cost_tts_micro_usd" + EXCLUDED."cost_tts_micro_usd",
    "cost_telephony_micro_usd" = r."cost_telephony_micro_usd" + EXCLUDED."cost_telephony_micro_usd",
    "llm_input_tokens" = r."llm_input_tokens" + EXCLUDED."llm_input_tokens",
    "llm_output_tokens" = r."llm_output_tokens" + EXCLUDED."llm_output_tokens",
    "stt_audio_ms" = r."stt_audio_ms" + EXCLUDED."stt_audio_ms",
    "tts_characters" = r."tts_characters" + EXCLUDED."tts_characters",
    "interruptions" = r."interruptions" + EXCLUDED."interruptions",
    "tool_calls" = r."tool_calls" + EXCLUDED."tool_calls",
    "tool_failures" = r."tool_failures" + EXCLUDED."tool_failures"
    )
    SELECT count(*) INTO n_moved FROM moved;
    folded := folded + n_moved;
  END IF;
  SELECT max(s."seq") INTO upto FROM (SELECT p."seq" FROM "call_rollup_histogram_pending" p ORDER BY p."seq" LIMIT batch) s;
  IF upto IS NOT NULL THEN
    EXECUTE format('WITH moved AS (DELETE FROM "call_rollup_histogram_pending" p WHERE p."seq" <= %s RETURNING p.*), folded AS (%s) SELECT count(*) FROM moved', upto,
      "call_histograms_fold_entries"('SELECT m."organization_id", m."hour", m."assistant_id", m."campaign_id", m."phone_number_id", m."direction", m."status",
        m."transport", m."end_reason", m."sentiment", m."metric", m."bucket", m."n" FROM moved m')) INTO n_moved;
    folded := folded + n_moved;
  END IF;
  RETURN folded;
END;
$$;
