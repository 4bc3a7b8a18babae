-- The post-call analysis's sentiment as a field of the rollups ('' when a call has none), so that the default "top
-- outcomes" chart is read from them too: the analysis always gives one of three values, so it adds at most four rows
-- per combination. The rollups are rebuilt from the ended calls.
ALTER TABLE "call_rollups" ADD COLUMN "sentiment" TEXT NOT NULL DEFAULT '';
ALTER TABLE "call_rollups" DROP CONSTRAINT "call_rollups_pkey";
ALTER TABLE "call_rollups" ADD CONSTRAINT "call_rollups_pkey" PRIMARY KEY ("organization_id", "hour", "assistant_id", "campaign_id", "phone_number_id", "direction", "status", "transport", "end_reason", "sentiment");

CREATE OR REPLACE FUNCTION "call_rollup_row"(c "calls", sign INTEGER) RETURNS "call_rollups" LANGUAGE sql STABLE AS $$
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
    sign * coalesce(c."tool_failures", 0)::bigint,
    coalesce(c."outcomes" ->> 'sentiment', '')
$$;

CREATE OR REPLACE FUNCTION "call_rollup_apply"(c "calls", sign INTEGER) RETURNS VOID LANGUAGE sql AS $$
  INSERT INTO "call_rollups" AS r SELECT x.* FROM "call_rollup_row"(c, sign) x
  ON CONFLICT ("organization_id", "hour", "assistant_id", "campaign_id", "phone_number_id", "direction", "status", "transport", "end_reason", "sentiment") DO UPDATE SET
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

CREATE OR REPLACE FUNCTION "call_rollups_follow_statement"() RETURNS TRIGGER LANGUAGE plpgsql AS $$
DECLARE
  sign INTEGER := CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END;
BEGIN
  INSERT INTO "call_rollups" AS r
  SELECT x."organization_id", x."hour", x."assistant_id", x."campaign_id", x."phone_number_id", x."direction", x."status", x."transport", x."end_reason",
    sum(x."calls"), sum(x."started"), sum(x."answered"), sum(x."machine"), sum(x."transferred"), sum(x."goal_true"), sum(x."goal_judged"),
    sum(x."duration_calls"), sum(x."duration_ms"), sum(x."talk_calls"), sum(x."talk_ms"), sum(x."metered"),
    sum(x."cost_micro_usd"), sum(x."cost_llm_micro_usd"), sum(x."cost_stt_micro_usd"), sum(x."cost_tts_micro_usd"), sum(x."cost_telephony_micro_usd"),
    sum(x."llm_input_tokens"), sum(x."llm_output_tokens"), sum(x."stt_audio_ms"), sum(x."tts_characters"), sum(x."interruptions"), sum(x."tool_calls"), sum(x."tool_failures"), x."sentiment"
  FROM "changed_calls" c, LATERAL "call_rollup_row"(c, sign) x
  WHERE "call_has_ended"(c."status")
  GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 34
  ON CONFLICT ("organization_id", "hour", "assistant_id", "campaign_id", "phone_number_id", "direction", "status", "transport", "end_reason", "sentiment") DO UPDATE SET
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
  RETURN NULL;
END;
$$;

DROP TRIGGER "calls_rollup_update" ON "calls";
-- Only updates that change what a rollup holds: a heartbeat, a turn or a recording changes nothing here.
CREATE TRIGGER "calls_rollup_update" AFTER UPDATE ON "calls" FOR EACH ROW
  WHEN ((OLD."status", OLD."end_reason", OLD."assistant_id", OLD."campaign_id", OLD."phone_number_id", OLD."direction", OLD."transport", OLD."started_at", OLD."answered_by",
         OLD."duration_ms", OLD."cost_micro_usd", OLD."cost_llm_micro_usd", OLD."cost_stt_micro_usd", OLD."cost_tts_micro_usd", OLD."cost_telephony_micro_usd",
         OLD."llm_input_tokens", OLD."llm_output_tokens", OLD."stt_audio_ms", OLD."tts_characters", OLD."interruptions", OLD."tool_calls", OLD."tool_failures",
         OLD."outcomes" ->> 'goal_achieved', OLD."outcomes" ->> 'sentiment', OLD."created_at", OLD."organization_id")
    IS DISTINCT FROM (NEW."status", NEW."end_reason", NEW."assistant_id", NEW."campaign_id", NEW."phone_number_id", NEW."direction", NEW."transport", NEW."started_at", NEW."answered_by",
         NEW."duration_ms", NEW."cost_micro_usd", NEW."cost_llm_micro_usd", NEW."cost_stt_micro_usd", NEW."cost_tts_micro_usd", NEW."cost_telephony_micro_usd",
         NEW."llm_input_tokens", NEW."llm_output_tokens", NEW."stt_audio_ms", NEW."tts_characters", NEW."interruptions", NEW."tool_calls", NEW."tool_failures",
         NEW."outcomes" ->> 'goal_achieved', NEW."outcomes" ->> 'sentiment', NEW."created_at", NEW."organization_id"))
  EXECUTE FUNCTION "call_rollups_follow"();

TRUNCATE "call_rollups";
SELECT "call_rollup_apply"(c, 1) FROM "calls" c WHERE "call_has_ended"(c."status");
