import { z } from 'zod';
import { int } from '../../lib/zod/int.js';
import { RAGSettings } from '../knowledge/index.js';
import { PRIVACY_MODES } from '../calls/index.js';
import { DEFAULT_LLM_MODEL, DEFAULT_STT_MODEL, LLM_PROVIDERS, REALTIME_PROVIDERS, STT_PROVIDERS, TTS_PROVIDERS } from './vendors.js';

// Settings of an assistant as the API accepts and returns them, with the spec's defaults. Shared by the API (which
// validates and stores them) and the agent (which builds a call's pipeline from them). Time values are in seconds,
// as the API writes them; the runtime converts to milliseconds at its edge.

export const DEFAULT_SYSTEM_PROMPT = 'You are a helpful assistant that can answer questions and help with tasks.';
export const DEFAULT_IDLE_MESSAGE = "Are you still there? I'm here to help if you need anything.";

/** Free-form JSON objects are bounded so one assistant cannot hold megabytes of settings. */
const freeForm = z.record(z.string().max(200), z.unknown());
const shortText = z.string().max(200);

export const LLMProviderConfig = z
  .strictObject({
    base_url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .nullable()
      .default(null),
    custom_config: freeForm
      .nullable()
      .default(null)
      .describe("Passed on to the vendor. `api_key`, the assistant's own key, is write-only: stored sealed, masked in every answer."),
    model: shortText.nullable().default(DEFAULT_LLM_MODEL),
  })
  .meta({ id: 'LLMProviderConfig' });

export const LLMSettings = z
  .strictObject({
    system_prompt: z.string().max(100_000).nullable().default(DEFAULT_SYSTEM_PROMPT),
    welcome_message: z.string().max(10_000).nullable().default(null),
    temperature: z.number().min(0).max(2).default(0.5),
    top_p: z.number().min(0).max(1).default(1),
    max_tokens: int().min(1).max(128_000).default(1000),
    frequency_penalty: z.number().min(-2).max(2).default(0),
    presence_penalty: z.number().min(-2).max(2).default(0),
    stop_sequences: z.array(z.string().min(1).max(200)).max(16).default([]),
  })
  .meta({ id: 'LLMSettings' });

export const LLMFallbackProvider = z
  .strictObject({
    provider: z.enum(LLM_PROVIDERS),
    api_key: z.string().max(1000).nullable().default(null).describe('Write-only: stored sealed, masked in every answer.'),
    base_url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .nullable()
      .default(null),
    model: shortText.nullable().default(null),
  })
  .meta({ id: 'LLMFallbackProvider' });

export const LLMFallbackSettings = z
  .strictObject({
    enabled: z.boolean().default(false),
    // Each fallback adds a full LLM attempt to a failing turn; five keeps the worst case bounded.
    fallbacks: z.array(LLMFallbackProvider).max(5).default([]),
  })
  .meta({ id: 'LLMFallbackSettings' });

export const TurnDetectionSettings = z
  .strictObject({
    mode: z.enum(['turn_detector', 'text_turn_detector']).default('turn_detector'),
    min_endpointing_delay: z.number().min(0).max(10).default(0.3),
    max_endpointing_delay: z.number().min(0).max(30).default(2.5),
  })
  .meta({ id: 'TurnDetectionSettings' });

export const STTSettings = z
  .strictObject({
    provider: z.enum(STT_PROVIDERS).default(STT_PROVIDERS[0]),
    model: shortText.nullable().default(DEFAULT_STT_MODEL),
    language: z.string().min(2).max(35).default('en'),
    language_hints: z.array(z.string().min(2).max(35)).max(20).default([]),
    keyterms: z.array(z.string().min(1).max(100)).max(100).default([]),
    punctuate: z.boolean().default(true),
    smart_format: z.boolean().default(true),
    endpoint_latency_adjustment_level: int().min(0).max(3).nullable().default(null),
    endpoint_sensitivity: z.number().min(-1).max(1).nullable().default(null),
    turn_detection: TurnDetectionSettings.prefault({}),
  })
  .meta({ id: 'STTSettings' });

export const TTSSettings = z
  .strictObject({
    provider: z.enum(TTS_PROVIDERS).default(TTS_PROVIDERS[0]),
    voice_id: shortText.nullable().default(null),
    model_id: shortText.nullable().default(null),
    provider_config: freeForm
      .default({})
      .describe("Passed on to the vendor. `api_key`, the assistant's own key, is write-only: stored sealed, masked in every answer."),
  })
  .meta({ id: 'TTSSettings' });

// A speech-to-speech model in place of the recogniser, the text model and the voice in calls (docs/runtime.md,
// "Speech-to-speech"). The text model (llm_provider) still writes the post-call analysis and answers text test runs.
export const RealtimeSettings = z
  .strictObject({
    enabled: z.boolean().default(false).describe('Calls run on the speech-to-speech model instead of stt_settings, llm_provider and tts_settings'),
    provider: z.enum(REALTIME_PROVIDERS).default(REALTIME_PROVIDERS[0]),
    model: shortText
      .nullable()
      .default(null)
      .describe("The vendor's speech-to-speech model; null: openai gpt-realtime, google gemini-2.5-flash-native-audio-preview-12-2025"),
    voice: shortText.nullable().default(null).describe("One of the model's own voices; null: the vendor's default (openai marin, google Puck)"),
    base_url: z
      .url({ protocol: /^(https?|wss?)$/ })
      .max(2048)
      .nullable()
      .default(null)
      .describe(
        "The vendor's API base (https://api.openai.com/v1, https://generativelanguage.googleapis.com); null: the service's OPENAI_BASE_URL or GOOGLE_BASE_URL, else the vendor's own",
      ),
    turn_detection: z
      .enum(['server_vad', 'semantic_vad'])
      .default('server_vad')
      .describe(
        "The vendor's own end-of-turn detection: on silence (server_vad, silence_duration from stt_settings.turn_detection.min_endpointing_delay) or on what was said (semantic_vad, openai only)",
      ),
  })
  .meta({ id: 'RealtimeSettings' });

export const RecordingSettings = z
  .strictObject({
    recording_enabled: z.boolean().default(true),
    recording_format: z.enum(['mp3', 'wav']).default('mp3'),
    record_user_audio: z.boolean().default(true),
    record_assistant_audio: z.boolean().default(true),
    record_mixed_audio: z.boolean().default(true),
    consent_required: z.boolean().default(false),
    consent_prompt: z.string().max(2000).default(''),
  })
  .meta({ id: 'RecordingSettings' });

export const InterruptionSettings = z
  .strictObject({
    allow_interruptions: z.boolean().default(true),
    allow_welcome_interruption: z.boolean().default(true),
    min_interruption_duration: z.number().min(0).max(10).default(0.5),
    min_interruption_words: int().min(0).max(50).default(1),
    false_interruption_timeout: z.number().min(0).max(30).default(2),
    resume_false_interruption: z.boolean().default(true),
  })
  .meta({ id: 'InterruptionSettings' });

/** Why a new lookup secret is not a Standard Webhooks secret (`whsec_` and the base64 of 24 to 64 bytes); null when it is. */
export function signingSecretProblem(value: string): string | null {
  const encoded = value.startsWith('whsec_') ? value.slice('whsec_'.length) : null;
  const bytes = encoded !== null && /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) ? Buffer.from(encoded, 'base64').length : 0;
  return bytes >= 24 && bytes <= 64
    ? null
    : 'The secret must be whsec_ followed by the base64 of 24 to 64 random bytes: whsec_ and the output of openssl rand -base64 32';
}

// Asked of the team's own server as each call starts, before the greeting (agent/call/start-lookup.ts): who is
// calling, so the greeting and the prompt can use a CRM's answer. Off while `url` is null.
export const CallStartLookup = z
  .strictObject({
    url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .nullable()
      .default(null)
      .describe('Called with a signed POST as each call starts; its answer sets variables and overrides for that call. Null: no lookup'),
    // Checked as a Standard Webhooks secret when it is new (keys.ts): a read shows it masked, and a write may send that back.
    secret: z
      .string()
      .min(1)
      .max(200)
      .nullable()
      .default(null)
      .describe('Signs each request as a webhook is signed (Standard Webhooks). Write-only: stored sealed, masked in every answer. Required with `url`'),
    timeout_ms: int().min(100).max(10_000).default(2000).describe('How long the call waits for the answer before it goes on with what it has, ms'),
  })
  .meta({ id: 'CallStartLookup' });

/** A language the assistant also speaks, besides its main one (`stt_settings.language`), with its own voice and welcome. */
export const LanguageOption = z
  .strictObject({
    language: z
      .string()
      .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be a language code such as es, fr or pt-BR')
      .max(35)
      .describe('BCP 47 code; matched on its base language (es matches es-MX)'),
    voice_id: shortText.nullable().default(null).describe("The voice in this language, of the assistant's voice provider; null: the assistant's voice"),
    welcome_message: z.string().max(10_000).nullable().default(null).describe("The first message when a call starts in this language; null: the assistant's"),
  })
  .meta({ id: 'LanguageOption' });

/** The base of a language code, lower-cased: `es` for `es-MX`. */
export const baseLanguage = (code: string) => code.split('-')[0]!.toLowerCase();

const idList = z.array(int().min(1).max(2_147_483_647)).max(200);

/** Every writable field of an assistant, with the spec's defaults. */
export const assistantFields = {
  name: z.string().trim().min(1).max(200),
  description: z.string().max(5000).nullable().default(null),
  is_active: z.boolean().nullable().default(true),
  llm_provider: z.enum(LLM_PROVIDERS).nullable().default(LLM_PROVIDERS[0]),
  llm_provider_config: LLMProviderConfig.prefault({}),
  llm_settings: LLMSettings.prefault({}),
  llm_fallback_providers: LLMFallbackSettings.prefault({}),
  stt_settings: STTSettings.prefault({}),
  tts_settings: TTSSettings.prefault({}),
  realtime_settings: RealtimeSettings.prefault({}),
  rag_settings: RAGSettings.prefault({}),
  recording_settings: RecordingSettings.prefault({}),
  interruption_settings: InterruptionSettings.prefault({}),
  idle_message: z.string().max(2000).nullable().default(DEFAULT_IDLE_MESSAGE),
  // Seconds of caller silence before the idle message; a day is far past any real call.
  idle_timeout: int().min(1).max(86_400).nullable().default(null),
  max_idle_messages: int().min(0).max(100).nullable().default(null),
  call_start_lookup: CallStartLookup.prefault({}),
  // Other languages a caller may speak: the recogniser listens for all of them, and the reply and voice follow the caller.
  languages: z.array(LanguageOption).max(10).default([]),
  custom_settings: freeForm.nullable().default(null),
  // Calls run under the stricter of this and the organisation's mode (modules/calls/privacy.ts): it can only keep less.
  privacy_mode: z
    .enum(PRIVACY_MODES)
    .nullable()
    .default(null)
    .describe(
      "What this assistant's calls keep: full, redacted (personal details masked, beeped in recordings) or metadata_only. Null follows the organisation's privacy_mode; a call runs under the stricter of the two, so an assistant can never keep more than its organisation allows",
    ),
  playbook_ids: idList.nullable().default(null),
  assigned_documents: idList.default([]),
  assigned_tools: idList.default([]),
};

/** Cross-field rules, checked on the whole assistant after defaults (create) or after merging (update). */
function crossFieldRules(value: AssistantSettingsInput, ctx: z.RefinementCtx): void {
  const turn = value.stt_settings.turn_detection;
  if (turn.min_endpointing_delay > turn.max_endpointing_delay) {
    ctx.addIssue({
      code: 'custom',
      path: ['stt_settings', 'turn_detection', 'max_endpointing_delay'],
      message: 'max_endpointing_delay must be greater than or equal to min_endpointing_delay',
      params: { type: 'greater_than_equal' },
    });
  }
  // Gemini Live ends a turn on silence only: its detector has no notion of what was said.
  if (value.realtime_settings.provider !== 'openai' && value.realtime_settings.turn_detection === 'semantic_vad') {
    ctx.addIssue({
      code: 'custom',
      path: ['realtime_settings', 'turn_detection'],
      message: `semantic_vad is OpenAI's alone; ${value.realtime_settings.provider} ends the turn on silence (server_vad)`,
      params: { type: 'value_error' },
    });
  }
  const lookup = value.call_start_lookup;
  if (lookup.url !== null && lookup.secret === null) {
    ctx.addIssue({
      code: 'custom',
      path: ['call_start_lookup', 'secret'],
      message: 'a lookup url needs a secret to sign its requests: whsec_ followed by base64 (openssl rand -base64 32)',
      params: { type: 'missing' },
    });
  }
  const main = baseLanguage(value.stt_settings.language);
  const seen = new Set([main]);
  value.languages.forEach((option, i) => {
    const base = baseLanguage(option.language);
    if (seen.has(base)) {
      ctx.addIssue({
        code: 'custom',
        path: ['languages', i, 'language'],
        message: base === main ? `${option.language} is the main language (stt_settings.language)` : `${option.language} is listed twice`,
        params: { type: 'value_error' },
      });
    }
    seen.add(base);
  });
  const rag = value.rag_settings;
  if (rag.chunk_overlap >= rag.chunk_size) {
    ctx.addIssue({
      code: 'custom',
      path: ['rag_settings', 'chunk_overlap'],
      message: 'chunk_overlap must be smaller than chunk_size',
      params: { type: 'less_than' },
    });
  }
}

const assistantObject = z.strictObject(assistantFields);
export type AssistantSettingsInput = z.output<typeof assistantObject>;

/** A whole assistant as created: every omitted field takes its default. */
export const AssistantSettings = assistantObject.superRefine(crossFieldRules);
export type AssistantSettings = z.output<typeof AssistantSettings>;
