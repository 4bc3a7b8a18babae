import type { z } from 'zod';
import type { Db } from '../../prisma/client.js';
import { Prisma } from '../../prisma/generated/client.js';
import { conformer } from '../../lib/zod/walk.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { openKeys } from './keys.js';
import {
  AssistantSettings,
  CallStartLookup,
  InterruptionSettings,
  LLMFallbackSettings,
  LLMProviderConfig,
  LLMSettings,
  RealtimeSettings,
  RecordingSettings,
  STTSettings,
  TTSSettings,
} from './settings.js';
import { RAGSettings } from '../knowledge/index.js';
import { privacyModeOf } from '../calls/index.js';

// An assistant's row and its settings, both ways: what the API writes and reads, and what a call loads. Nothing here
// knows of HTTP; the API masks secrets and shapes responses on top of it. Vendor keys in the settings are stored sealed
// (keys.ts): `settingsOf` gives them as stored, `loadAssistantSettings` opened for a call.

export type Settings = z.output<typeof AssistantSettings>;
type FallbackSettings = Settings['llm_fallback_providers'];

export const withAssignments = {
  tools: { select: { toolId: true, tool: { select: { enabled: true } } }, orderBy: { position: 'asc' } },
  documents: { select: { documentId: true }, orderBy: { position: 'asc' } },
  playbooks: { select: { playbookId: true }, orderBy: { position: 'asc' } },
} satisfies Prisma.AssistantInclude;

export type AssistantRow = Prisma.AssistantGetPayload<{ include: typeof withAssignments }>;

const conform = {
  llmProviderConfig: conformer(LLMProviderConfig),
  llmSettings: conformer(LLMSettings),
  llmFallbackProviders: conformer(LLMFallbackSettings),
  sttSettings: conformer(STTSettings),
  ttsSettings: conformer(TTSSettings),
  ragSettings: conformer(RAGSettings),
  recordingSettings: conformer(RecordingSettings),
  interruptionSettings: conformer(InterruptionSettings),
  callStartLookup: conformer(CallStartLookup),
  realtimeSettings: conformer(RealtimeSettings),
};

/**
 * The stored settings of a row, in the API's field names, completed with defaults of fields added since it was written.
 * Vendor keys are as stored: sealed (or in the clear, in a row written before keys were sealed).
 */
export function settingsOf(row: AssistantRow): Settings {
  return {
    name: row.name,
    description: row.description,
    is_active: row.isActive,
    llm_provider: row.llmProvider as Settings['llm_provider'],
    llm_provider_config: conform.llmProviderConfig(row.llmProviderConfig) as Settings['llm_provider_config'],
    llm_settings: conform.llmSettings(row.llmSettings) as Settings['llm_settings'],
    llm_fallback_providers: conform.llmFallbackProviders(row.llmFallbackProviders) as FallbackSettings,
    stt_settings: conform.sttSettings(row.sttSettings) as Settings['stt_settings'],
    tts_settings: conform.ttsSettings(row.ttsSettings) as Settings['tts_settings'],
    realtime_settings: conform.realtimeSettings(row.realtimeSettings ?? {}) as Settings['realtime_settings'],
    rag_settings: conform.ragSettings(row.ragSettings) as Settings['rag_settings'],
    recording_settings: conform.recordingSettings(row.recordingSettings) as Settings['recording_settings'],
    interruption_settings: conform.interruptionSettings(row.interruptionSettings) as Settings['interruption_settings'],
    idle_message: row.idleMessage,
    idle_timeout: row.idleTimeout,
    max_idle_messages: row.maxIdleMessages,
    call_start_lookup: conform.callStartLookup(row.callStartLookup ?? {}) as Settings['call_start_lookup'],
    // Each entry with the defaults of fields added since it was written.
    languages: ((row.languages ?? []) as Partial<Settings['languages'][number]>[]).map((l) => ({ language: '', voice_id: null, welcome_message: null, ...l })),
    custom_settings: row.customSettings as Settings['custom_settings'],
    privacy_mode: row.privacyMode === null ? null : privacyModeOf(row.privacyMode),
    playbook_ids: row.hasPlaybookIds ? row.playbooks.map((p) => p.playbookId) : null,
    assigned_documents: row.documents.map((d) => d.documentId),
    // Only enabled tools reach a call, so only those are listed (spec: "IDs of assigned tools that are enabled").
    assigned_tools: row.tools.filter((t) => t.tool.enabled).map((t) => t.toolId),
  };
}

/** The row's columns for `settings` (assignments are written apart). */
export function columnsOf(settings: Settings) {
  const json = (value: unknown) => (value === null ? Prisma.DbNull : (value as Prisma.InputJsonValue));
  return {
    name: settings.name,
    description: settings.description,
    isActive: settings.is_active,
    llmProvider: settings.llm_provider,
    llmProviderConfig: settings.llm_provider_config as Prisma.InputJsonValue,
    llmSettings: settings.llm_settings as Prisma.InputJsonValue,
    llmFallbackProviders: settings.llm_fallback_providers as Prisma.InputJsonValue,
    sttSettings: settings.stt_settings as Prisma.InputJsonValue,
    ttsSettings: settings.tts_settings as Prisma.InputJsonValue,
    realtimeSettings: settings.realtime_settings as Prisma.InputJsonValue,
    ragSettings: settings.rag_settings as Prisma.InputJsonValue,
    recordingSettings: settings.recording_settings as Prisma.InputJsonValue,
    interruptionSettings: settings.interruption_settings as Prisma.InputJsonValue,
    idleMessage: settings.idle_message,
    idleTimeout: settings.idle_timeout,
    maxIdleMessages: settings.max_idle_messages,
    callStartLookup: settings.call_start_lookup as Prisma.InputJsonValue,
    languages: settings.languages as Prisma.InputJsonValue,
    customSettings: json(settings.custom_settings),
    privacyMode: settings.privacy_mode,
    hasPlaybookIds: settings.playbook_ids !== null,
  };
}

/** An assistant of the organisation with its assignments; null for a missing id and another organisation's alike. */
export async function readAssistantRow(db: Db, organizationId: number, id: number): Promise<AssistantRow | null> {
  return db.assistant.findFirst({ where: { id, organizationId }, include: withAssignments, relationLoadStrategy: 'join' });
}

/**
 * The stored settings for the call runtime, vendor keys opened with `secrets` (the SECRETS_KEY the API sealed them
 * with); a key that does not open is left out, so the call reports it missing instead of sending ciphertext.
 */
export async function loadAssistantSettings(db: Db, organizationId: number, id: number, secrets: SecretBox): Promise<Settings | null> {
  const row = await readAssistantRow(db, organizationId, id);
  return row ? openKeys(settingsOf(row), secrets, row.organizationId) : null;
}

/**
 * The opened settings and the number of the version they are, from one read: what a call or a test run records. With
 * `draft`, the assistant's draft when it has one (`draft: true` in the answer), made on that version.
 */
export async function loadAssistantVersioned(
  db: Db,
  organizationId: number,
  id: number,
  secrets: SecretBox,
  options: { draft?: boolean } = {},
): Promise<{ settings: Settings; version: number; draft: boolean } | null> {
  const row = await readAssistantRow(db, organizationId, id);
  if (!row) return null;
  const fromDraft = options.draft === true && row.draft !== null;
  const settings = fromDraft ? (row.draft as unknown as Settings) : settingsOf(row);
  return { settings: openKeys(settings, secrets, row.organizationId), version: row.version, draft: fromDraft };
}
