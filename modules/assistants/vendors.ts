// The vendors an assistant can name. Adding one here is the whole API-side change; the runtime maps each name to a
// provider class (agent/providers), so nothing in the pipeline branches on vendor names.

/** LLM vendors; the first is the default. `custom` is any OpenAI-compatible server reached through `base_url`. */
export const LLM_PROVIDERS = ['openai', 'anthropic', 'google', 'groq', 'mistral', 'custom'] as const;
// `local` needs no key and no network (bundled pocketsphinx model / espeak-ng): development and offline tests.
export const STT_PROVIDERS = ['deepgram', 'soniox', 'assemblyai', 'local'] as const;
export const TTS_PROVIDERS = ['elevenlabs', 'cartesia', 'deepgram', 'local'] as const;

/**
 * Speech-to-speech vendors (`realtime_settings`): one model hears the caller and speaks the reply, with no separate
 * recogniser or voice. Each is reached with the organisation's key of the vendor of the same name.
 */
export const REALTIME_PROVIDERS = ['openai', 'google'] as const;
/** Each vendor's model and voice when the assistant names none: Google's are its plugin's defaults (Gemini Live). */
export const DEFAULT_REALTIME_MODELS = {
  openai: { model: 'gpt-realtime', voice: 'marin' },
  google: { model: 'gemini-2.5-flash-native-audio-preview-12-2025', voice: 'Puck' },
} as const;

export type LlmProvider = (typeof LLM_PROVIDERS)[number];
export type SttProvider = (typeof STT_PROVIDERS)[number];
export type TtsProvider = (typeof TTS_PROVIDERS)[number];
export type RealtimeProvider = (typeof REALTIME_PROVIDERS)[number];

export const DEFAULT_LLM_MODEL = 'gpt-4.1-mini';
export const DEFAULT_STT_MODEL = 'nova-3';
