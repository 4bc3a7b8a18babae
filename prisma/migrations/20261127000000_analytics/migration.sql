-- Analytics (modules/analytics/): what each call used and cost, each assistant turn's latency as columns that
-- percentiles are computed over, saved charts, and an organisation's price overrides.

-- Usage metered by the runtime and its cost by component, in millionths of a US dollar (docs/analytics.md).
ALTER TABLE "calls" ADD COLUMN "usage" JSONB;
ALTER TABLE "calls" ADD COLUMN "cost" JSONB;
ALTER TABLE "calls" ADD COLUMN "llm_input_tokens" INTEGER;
ALTER TABLE "calls" ADD COLUMN "llm_output_tokens" INTEGER;
ALTER TABLE "calls" ADD COLUMN "stt_audio_ms" INTEGER;
ALTER TABLE "calls" ADD COLUMN "tts_characters" INTEGER;
ALTER TABLE "calls" ADD COLUMN "cost_micro_usd" BIGINT;
ALTER TABLE "calls" ADD COLUMN "cost_llm_micro_usd" BIGINT;
ALTER TABLE "calls" ADD COLUMN "cost_stt_micro_usd" BIGINT;
ALTER TABLE "calls" ADD COLUMN "cost_tts_micro_usd" BIGINT;
ALTER TABLE "calls" ADD COLUMN "cost_telephony_micro_usd" BIGINT;
ALTER TABLE "calls" ADD COLUMN "interruptions" INTEGER;
ALTER TABLE "calls" ADD COLUMN "tool_calls" INTEGER;
ALTER TABLE "calls" ADD COLUMN "tool_failures" INTEGER;

-- Each assistant turn's latency stages, ms.
ALTER TABLE "call_turns" ADD COLUMN "end_of_utterance_delay_ms" INTEGER;
ALTER TABLE "call_turns" ADD COLUMN "llm_ttft_ms" INTEGER;
ALTER TABLE "call_turns" ADD COLUMN "tts_ttfb_ms" INTEGER;
ALTER TABLE "call_turns" ADD COLUMN "e2e_latency_ms" INTEGER;

CREATE TABLE "analytics_charts" (
    "id" SERIAL NOT NULL,
    "organization_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "definition" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "analytics_charts_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "analytics_charts_organization_id_id_idx" ON "analytics_charts"("organization_id", "id");
ALTER TABLE "analytics_charts" ADD CONSTRAINT "analytics_charts_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "analytics_settings" (
    "organization_id" INTEGER NOT NULL,
    "prices" JSONB NOT NULL DEFAULT '[]',
    "default_charts_created_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "analytics_settings_pkey" PRIMARY KEY ("organization_id")
);
ALTER TABLE "analytics_settings" ADD CONSTRAINT "analytics_settings_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
