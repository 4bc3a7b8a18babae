-- Hourly rollups of ended calls for analytics (modules/analytics/rollups.ts): per organisation, UTC hour of creation and
-- the fields charts group and filter by, the sums every per-call metric is computed from. Kept by a trigger on calls,
-- so every path that ends a call, or changes an ended one (its assistant deleted), keeps them true in its own
-- transaction. A call adds to them once, when it ends: calls under way (a few per organisation at any time, bounded by
-- its concurrency) are read from the calls themselves, as the same rows (`call_rollup_row`).
CREATE TABLE "call_rollups" (
    "organization_id" INTEGER NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "assistant_id" INTEGER NOT NULL,
    "campaign_id" INTEGER NOT NULL,
    "phone_number_id" INTEGER NOT NULL,
    "direction" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "transport" TEXT NOT NULL,
    "end_reason" TEXT NOT NULL,
    "calls" INTEGER NOT NULL DEFAULT 0,
    "started" INTEGER NOT NULL DEFAULT 0,
    "answered" INTEGER NOT NULL DEFAULT 0,
    "machine" INTEGER NOT NULL DEFAULT 0,
    "transferred" INTEGER NOT NULL DEFAULT 0,
    "goal_true" INTEGER NOT NULL DEFAULT 0,
    "goal_judged" INTEGER NOT NULL DEFAULT 0,
    "duration_calls" INTEGER NOT NULL DEFAULT 0,
    "duration_ms" BIGINT NOT NULL DEFAULT 0,
    "talk_calls" INTEGER NOT NULL DEFAULT 0,
    "talk_ms" BIGINT NOT NULL DEFAULT 0,
    "metered" INTEGER NOT NULL DEFAULT 0,
    "cost_micro_usd" BIGINT NOT NULL DEFAULT 0,
    "cost_llm_micro_usd" BIGINT NOT NULL DEFAULT 0,
    "cost_stt_micro_usd" BIGINT NOT NULL DEFAULT 0,
    "cost_tts_micro_usd" BIGINT NOT NULL DEFAULT 0,
    "cost_telephony_micro_usd" BIGINT NOT NULL DEFAULT 0,
    "llm_input_tokens" BIGINT NOT NULL DEFAULT 0,
    "llm_output_tokens" BIGINT NOT NULL DEFAULT 0,
    "stt_audio_ms" BIGINT NOT NULL DEFAULT 0,
    "tts_characters" BIGINT NOT NULL DEFAULT 0,
    "interruptions" BIGINT NOT NULL DEFAULT 0,
    "tool_calls" BIGINT NOT NULL DEFAULT 0,
    "tool_failures" BIGINT NOT NULL DEFAULT 0,
    -- One row per combination. A call without an assistant, campaign, number or end reason is under 0 or '', so
    -- that the key has no nulls.
    CONSTRAINT "call_rollups_pkey" PRIMARY KEY ("organization_id", "hour", "assistant_id", "campaign_id", "phone_number_id", "direction", "status", "transport", "end_reason")
);

-- What one call adds to its rollup row (sign 1), or takes away (sign -1). Also how charts read the calls still under way.
CREATE FUNCTION "call_rollup_row"(c "calls", sign INTEGER) RETURNS "call_rollups" LANGUAGE sql STABLE AS $$
  SELECT c."organization_id", date_trunc('hour', c."created_at", 'UTC'), coalesce(c."assistant_id", 0), coalesce(c."campaign_id", 0), coalesce(c."phone_number_id", 0),
    c."direction", c."status", c."transport", coalesce(c."end_reason", ''),
    sign,
    sign * (c."started_at" IS NOT NULL)::int,
    sign * (c."started_at" IS NOT NULL AND c."status" <> 'voicemail' AND (c."answered_by" IS NULL OR c."answered_by" IN ('human', 'unknown')))::int,
    sign * (c."status" = 'voicemail' OR coalesce(c."answered_by" LIKE 'machine%' OR c."answered_by" = 'fax', false))::int,
    sign * (c."started_at" IS NOT NULL AND c."end_reason" IS NOT DISTINCT FROM 'transferred')::int,
    sign * (coalesce(c."outcomes" ->> 'goal_achieved', '') = 'true')::int,
    sign * (coalesce(c."outcomes" ->> 'goal_achieved', '') IN ('true', 'false'))::int,
    sign * (c."duration_ms" IS NOT NULL)::int,
    sign * coalesce(c."duration_ms", 0)::bigint,
    sign * (c."started_at" IS NOT NULL AND c."duration_ms" IS NOT NULL)::int,
    sign * CASE WHEN c."started_at" IS NOT NULL THEN coalesce(c."duration_ms", 0) ELSE 0 END::bigint,
    sign * (c."cost_micro_usd" IS NOT NULL)::int,
    sign * coalesce(c."cost_micro_usd", 0), sign * coalesce(c."cost_llm_micro_usd", 0), sign * coalesce(c."cost_stt_micro_usd", 0),
    sign * coalesce(c."cost_tts_micro_usd", 0), sign * coalesce(c."cost_telephony_micro_usd", 0),
    sign * coalesce(c."llm_input_tokens", 0)::bigint, sign * coalesce(c."llm_output_tokens", 0)::bigint, sign * coalesce(c."stt_audio_ms", 0)::bigint,
    sign * coalesce(c."tts_characters", 0)::bigint, sign * coalesce(c."interruptions", 0)::bigint, sign * coalesce(c."tool_calls", 0)::bigint,
    sign * coalesce(c."tool_failures", 0)::bigint
$$;

CREATE FUNCTION "call_rollup_apply"(c "calls", sign INTEGER) RETURNS VOID LANGUAGE sql AS $$
  INSERT INTO "call_rollups" AS r SELECT x.* FROM "call_rollup_row"(c, sign) x
  ON CONFLICT ("organization_id", "hour", "assistant_id", "campaign_id", "phone_number_id", "direction", "status", "transport", "end_reason") DO UPDATE SET
    "calls" = r."calls" + EXCLUDED."calls", "started" = r."started" + EXCLUDED."started", "answered" = r."answered" + EXCLUDED."answered",
    "machine" = r."machine" + EXCLUDED."machine", "transferred" = r."transferred" + EXCLUDED."transferred",
    "goal_true" = r."goal_true" + EXCLUDED."goal_true", "goal_judged" = r."goal_judged" + EXCLUDED."goal_judged",
    "duration_calls" = r."duration_calls" + EXCLUDED."duration_calls", "duration_ms" = r."duration_ms" + EXCLUDED."duration_ms",
    "talk_calls" = r."talk_calls" + EXCLUDED."talk_calls", "talk_ms" = r."talk_ms" + EXCLUDED."talk_ms", "metered" = r."metered" + EXCLUDED."metered",
    "cost_micro_usd" = r."cost_micro_usd" + EXCLUDED."cost_micro_usd", "cost_llm_micro_usd" = r."cost_llm_micro_usd" + EXCLUDED."cost_llm_micro_usd",
    "cost_stt_micro_usd" = r."cost_stt_micro_usd" + EXCLUDED."cost_stt_micro_usd", "cost_tts_micro_usd" = r."cost_tts_micro_usd" + EXCLUDED."cost_tts_micro_usd",
    "cost_telephony_micro_usd" = r."cost_telephony_micro_usd" + EXCLUDED."cost_telephony_micro_usd",
    "llm_input_tokens" = r."llm_input_tokens" + EXCLUDED."llm_input_tokens", "llm_output_tokens" = r."llm_output_tokens" + EXCLUDED."llm_output_tokens",
    "stt_audio_ms" = r."stt_audio_ms" + EXCLUDED."stt_audio_ms", "tts_characters" = r."tts_characters" + EXCLUDED."tts_characters",
    "interruptions" = r."interruptions" + EXCLUDED."interruptions", "tool_calls" = r."tool_calls" + EXCLUDED."tool_calls",
    "tool_failures" = r."tool_failures" + EXCLUDED."tool_failures";
$$;

-- The final statuses (modules/calls/statuses.ts TERMINAL).
CREATE FUNCTION "call_has_ended"(status TEXT) RETURNS BOOLEAN LANGUAGE sql IMMUTABLE AS $$
  SELECT status IN ('completed', 'failed', 'busy', 'no_answer', 'voicemail', 'canceled')
$$;

CREATE FUNCTION "call_rollups_follow"() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND "call_has_ended"(OLD."status") THEN PERFORM "call_rollup_apply"(OLD, -1); END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND "call_has_ended"(NEW."status") THEN PERFORM "call_rollup_apply"(NEW, 1); END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER "calls_rollup_insert_delete" AFTER INSERT OR DELETE ON "calls" FOR EACH ROW EXECUTE FUNCTION "call_rollups_follow"();
-- Only updates that change what a rollup holds: a heartbeat, a turn or a recording changes nothing here.
CREATE TRIGGER "calls_rollup_update" AFTER UPDATE ON "calls" FOR EACH ROW
  WHEN ((OLD."status", OLD."end_reason", OLD."assistant_id", OLD."campaign_id", OLD."phone_number_id", OLD."direction", OLD."transport", OLD."started_at", OLD."answered_by",
         OLD."duration_ms", OLD."cost_micro_usd", OLD."cost_llm_micro_usd", OLD."cost_stt_micro_usd", OLD."cost_tts_micro_usd", OLD."cost_telephony_micro_usd",
         OLD."llm_input_tokens", OLD."llm_output_tokens", OLD."stt_audio_ms", OLD."tts_characters", OLD."interruptions", OLD."tool_calls", OLD."tool_failures",
         OLD."outcomes" ->> 'goal_achieved', OLD."created_at", OLD."organization_id")
    IS DISTINCT FROM (NEW."status", NEW."end_reason", NEW."assistant_id", NEW."campaign_id", NEW."phone_number_id", NEW."direction", NEW."transport", NEW."started_at", NEW."answered_by",
         NEW."duration_ms", NEW."cost_micro_usd", NEW."cost_llm_micro_usd", NEW."cost_stt_micro_usd", NEW."cost_tts_micro_usd", NEW."cost_telephony_micro_usd",
         NEW."llm_input_tokens", NEW."llm_output_tokens", NEW."stt_audio_ms", NEW."tts_characters", NEW."interruptions", NEW."tool_calls", NEW."tool_failures",
         NEW."outcomes" ->> 'goal_achieved', NEW."created_at", NEW."organization_id"))
  EXECUTE FUNCTION "call_rollups_follow"();

-- The calls that have ended already.
SELECT "call_rollup_apply"(c, 1) FROM "calls" c WHERE "call_has_ended"(c."status");
