-- Assistant versions: every saved change of an assistant kept whole, numbered per assistant; calls and test runs
-- record the version they ran. Each existing assistant gets its current settings as version 1.

-- AlterTable
ALTER TABLE "assistants" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "calls" ADD COLUMN "assistant_version" INTEGER;

-- AlterTable
ALTER TABLE "test_runs" ADD COLUMN "assistant_version" INTEGER;

-- CreateTable
CREATE TABLE "assistant_versions" (
    "id" SERIAL NOT NULL,
    "organization_id" INTEGER NOT NULL,
    "assistant_id" INTEGER NOT NULL,
    "number" INTEGER NOT NULL,
    "settings" JSONB NOT NULL,
    "changed" JSONB NOT NULL DEFAULT '[]',
    "user_id" INTEGER,
    "via" TEXT NOT NULL,
    "restored_from" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "assistant_versions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "assistant_versions_assistant_id_number_key" ON "assistant_versions"("assistant_id", "number");

-- CreateIndex
CREATE INDEX "assistant_versions_organization_id_assistant_id_idx" ON "assistant_versions"("organization_id", "assistant_id");

-- AddForeignKey
ALTER TABLE "assistant_versions" ADD CONSTRAINT "assistant_versions_assistant_id_fkey" FOREIGN KEY ("assistant_id") REFERENCES "assistants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Version 1 of every assistant: its settings as they are, in the shape the service stores versions in.
INSERT INTO "assistant_versions" ("organization_id", "assistant_id", "number", "settings", "changed", "user_id", "via", "created_at")
SELECT a.organization_id, a.id, 1,
  jsonb_build_object(
    'name', a.name, 'description', a.description, 'is_active', a.is_active, 'llm_provider', a.llm_provider,
    'llm_provider_config', a.llm_provider_config, 'llm_settings', a.llm_settings,
    'llm_fallback_providers', a.llm_fallback_providers, 'stt_settings', a.stt_settings, 'tts_settings', a.tts_settings,
    'rag_settings', a.rag_settings, 'recording_settings', a.recording_settings,
    'interruption_settings', a.interruption_settings, 'idle_message', a.idle_message, 'idle_timeout', a.idle_timeout,
    'max_idle_messages', a.max_idle_messages, 'call_start_lookup', a.call_start_lookup, 'languages', a.languages,
    'custom_settings', a.custom_settings,
    'playbook_ids', CASE WHEN a.has_playbook_ids THEN COALESCE((SELECT jsonb_agg(p.playbook_id ORDER BY p.position) FROM assistant_playbooks p WHERE p.assistant_id = a.id), '[]'::jsonb) ELSE 'null'::jsonb END,
    'assigned_documents', COALESCE((SELECT jsonb_agg(d.document_id ORDER BY d.position) FROM assistant_documents d WHERE d.assistant_id = a.id), '[]'::jsonb),
    'assigned_tools', COALESCE((SELECT jsonb_agg(t.tool_id ORDER BY t.position) FROM assistant_tools t JOIN tools ON tools.id = t.tool_id AND tools.enabled WHERE t.assistant_id = a.id), '[]'::jsonb)
  ),
  '[]'::jsonb, a.user_id, 'migration', a.updated_at
FROM "assistants" a;
