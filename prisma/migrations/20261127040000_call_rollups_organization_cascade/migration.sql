-- The rollups belong to their organisation: deleting it deletes them, as it deletes its calls. Rows left by
-- organisations deleted before go first.
DELETE FROM "call_rollups" r WHERE NOT EXISTS (SELECT 1 FROM "organizations" o WHERE o."id" = r."organization_id");
ALTER TABLE "call_rollups" ADD CONSTRAINT "call_rollups_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- When an organisation is deleted its calls go in the same statement, and their rollup rows with them: the trigger
-- that takes deleted calls away skips an organisation that is gone rather than write rows for it, which the foreign
-- key would refuse (whichever of the two cascades runs first).
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
  WHERE "call_has_ended"(c."status") AND EXISTS (SELECT 1 FROM "organizations" o WHERE o."id" = c."organization_id")
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
