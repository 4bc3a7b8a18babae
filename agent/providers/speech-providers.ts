import type { stt, tts } from '@livekit/agents';
import * as cartesia from '@livekit/agents-plugin-cartesia';
import * as deepgram from '@livekit/agents-plugin-deepgram';
import * as elevenlabs from '@livekit/agents-plugin-elevenlabs';
import {
  type AssistantSettings,
  credentialOfStage,
  DEFAULT_STT_MODEL,
  MissingCredentialsError,
  type SttProvider,
  type TtsProvider,
} from '../../modules/assistants/index.js';
import type { AgentConfig, VendorSettings } from '../../lib/config.js';
import { vendorCredentialsFromEnv, vendorCredentialsOf, type VendorCredentials } from '../../lib/vendor-credentials.js';
import { DeepgramSTT } from './deepgram-stt.js';
import { AssemblyAISTT, endOfTurnConfidenceFromSensitivity } from './assemblyai-stt.js';
import { LocalSTT } from './local/local-stt.js';
import { LocalTTS } from './local/local-tts.js';
import { withObservedSynthesis } from './observed-synthesis.js';
import { SonioxSTT } from './soniox-stt.js';

type STTSettings = AssistantSettings['stt_settings'];
type TTSSettings = AssistantSettings['tts_settings'];

/**
 * How this process reaches each vendor: keys and endpoint overrides (`DEEPGRAM_API_KEY`, `DEEPGRAM_BASE_URL`, ...), the
 * same names the API checks when it warns about an assistant (modules/assistants/credentials.ts), and for `local`
 * speech the program that decodes it.
 */
export interface VendorAccess extends VendorCredentials {
  /** The offline recogniser's program (POCKETSPHINX_BIN); `pocketsphinx_continuous` on the PATH when absent. */
  pocketsphinxBin?: string | undefined;
}

/** The access a process's configuration gives (checked at start-up). */
export function vendorAccessOf(config: { vendors: VendorSettings; agent: Pick<AgentConfig, 'pocketsphinxBin'> }): VendorAccess {
  return { ...vendorCredentialsOf(config.vendors), pocketsphinxBin: config.agent.pocketsphinxBin };
}

/** The keys and endpoints in `env`, unchecked: for tests and tools that build one call's access by hand. */
export function vendorAccessFromEnv(env: NodeJS.ProcessEnv = process.env): VendorAccess {
  return vendorCredentialsFromEnv(env);
}

/**
 * The vendor's key, from the assistant's own settings or this process's access; a vendor is never built without one
 * (it would be refused mid-call), so its absence is the call's missing-credential error, raised before anything connects.
 */
function keyOf(stage: 'stt' | 'tts', vendor: string, access: VendorAccess, own?: string): string {
  const key = own ?? access.apiKey(vendor);
  if (!key) throw new MissingCredentialsError([stage], [credentialOfStage(stage, vendor)]);
  return key;
}

/**
 * `endpoint_latency_adjustment_level` 0-3 (0 answers fastest, 3 waits longest for the caller to go on) as the silence,
 * in ms, that a vendor's own endpointer waits before it finalises a transcript.
 */
export const ENDPOINTING_MS_BY_LEVEL = [10, 100, 300, 600] as const;

export class ProviderUnavailableError extends Error {
  constructor(kind: 'stt' | 'tts', vendor: string) {
    super(`${kind} provider ${vendor} is not available in this runtime`);
    this.name = 'ProviderUnavailableError';
  }
}

type SttFactory = (settings: STTSettings, access: VendorAccess) => stt.STT;
type TtsFactory = (settings: TTSSettings, access: VendorAccess) => tts.TTS;

function text(config: Record<string, unknown>, key: string): string | undefined {
  const value = config[key];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function num(config: Record<string, unknown>, key: string): number | undefined {
  const value = config[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export const sttFactories: Partial<Record<SttProvider, SttFactory>> = {
  // Our provider rather than the plugin's: the plugin's stream does not reconnect after a dropped connection.
  deepgram: (s, access) =>
    new DeepgramSTT({
      apiKey: keyOf('stt', 'deepgram', access),
      ...(access.baseUrl('deepgram') ? { baseUrl: access.baseUrl('deepgram') } : {}),
      model: s.model ?? DEFAULT_STT_MODEL,
      language: s.language,
      languageHints: s.language_hints,
      punctuate: s.punctuate,
      smartFormat: s.smart_format,
      keyterms: s.keyterms,
      ...(s.endpoint_latency_adjustment_level !== null ? { endpointingMs: ENDPOINTING_MS_BY_LEVEL[s.endpoint_latency_adjustment_level] } : {}),
    }),
  // The schema's default model is Deepgram's; with another vendor it means "that vendor's default".
  soniox: (s, access) =>
    new SonioxSTT({
      apiKey: keyOf('stt', 'soniox', access),
      ...(access.baseUrl('soniox') ? { baseUrl: access.baseUrl('soniox') } : {}),
      ...(s.model && s.model !== DEFAULT_STT_MODEL ? { model: s.model } : {}),
      language: s.language,
      languageHints: s.language_hints,
      keyterms: s.keyterms,
      ...(s.endpoint_latency_adjustment_level !== null ? { maxEndpointDelayMs: ENDPOINTING_MS_BY_LEVEL[s.endpoint_latency_adjustment_level] } : {}),
    }),
  assemblyai: (s, access) =>
    new AssemblyAISTT({
      apiKey: keyOf('stt', 'assemblyai', access),
      ...(access.baseUrl('assemblyai') ? { baseUrl: access.baseUrl('assemblyai') } : {}),
      ...(s.model && s.model !== DEFAULT_STT_MODEL ? { speechModel: s.model } : {}),
      language: s.language,
      languageDetection: s.language_hints.length > 1,
      keyterms: s.keyterms,
      formatTurns: s.punctuate || s.smart_format,
      ...(s.endpoint_latency_adjustment_level !== null
        ? { minEndOfTurnSilenceWhenConfidentMs: ENDPOINTING_MS_BY_LEVEL[s.endpoint_latency_adjustment_level] }
        : {}),
      ...(s.endpoint_sensitivity !== null ? { endOfTurnConfidenceThreshold: endOfTurnConfidenceFromSensitivity(s.endpoint_sensitivity) } : {}),
    }),
  local: (s, access) => new LocalSTT({ keyterms: s.keyterms, language: s.language, ...(access.pocketsphinxBin ? { program: access.pocketsphinxBin } : {}) }),
};

// Each TTS as its vendor's class, but a failed synthesize() cannot leave a rejection nobody handles (the framework's
// ChunkedStream does; see observed-synthesis.ts).
const ElevenLabsTTS = withObservedSynthesis(elevenlabs.TTS);
const CartesiaTTS = withObservedSynthesis(cartesia.TTS);
const DeepgramTTS = withObservedSynthesis(deepgram.TTS);
const EspeakTTS = withObservedSynthesis(LocalTTS);

export const ttsFactories: Partial<Record<TtsProvider, TtsFactory>> = {
  elevenlabs: (s, access) =>
    new ElevenLabsTTS({
      apiKey: keyOf('tts', 'elevenlabs', access, text(s.provider_config, 'api_key')),
      ...(s.voice_id ? { voiceId: s.voice_id } : {}),
      ...(s.model_id ? { model: s.model_id } : {}),
      ...((text(s.provider_config, 'base_url') ?? access.baseUrl('elevenlabs'))
        ? { baseURL: text(s.provider_config, 'base_url') ?? access.baseUrl('elevenlabs') }
        : {}),
    }),
  cartesia: (s, access) =>
    new CartesiaTTS({
      apiKey: keyOf('tts', 'cartesia', access, text(s.provider_config, 'api_key')),
      ...(s.voice_id ? { voice: s.voice_id } : {}),
      ...(s.model_id ? { model: s.model_id } : {}),
      ...(num(s.provider_config, 'speed') !== undefined ? { speed: num(s.provider_config, 'speed') } : {}),
      ...((text(s.provider_config, 'base_url') ?? access.baseUrl('cartesia'))
        ? { baseUrl: text(s.provider_config, 'base_url') ?? access.baseUrl('cartesia') }
        : {}),
    }),
  deepgram: (s, access) =>
    new DeepgramTTS({
      apiKey: keyOf('tts', 'deepgram', access, text(s.provider_config, 'api_key')),
      // Deepgram names a voice by its model ("aura-2-thalia-en").
      ...((s.voice_id ?? s.model_id) ? { model: (s.voice_id ?? s.model_id)! } : {}),
      ...((text(s.provider_config, 'base_url') ?? access.baseUrl('deepgram'))
        ? { baseUrl: text(s.provider_config, 'base_url') ?? access.baseUrl('deepgram') }
        : {}),
    }),
  local: (s) =>
    new EspeakTTS({
      voice: s.voice_id ?? 'en-us',
      ...(num(s.provider_config, 'words_per_minute') !== undefined ? { wordsPerMinute: num(s.provider_config, 'words_per_minute') } : {}),
      ...(num(s.provider_config, 'pitch') !== undefined ? { pitch: num(s.provider_config, 'pitch') } : {}),
    }),
};

export function createStt(settings: STTSettings, access: VendorAccess): stt.STT {
  const factory = sttFactories[settings.provider];
  if (!factory) throw new ProviderUnavailableError('stt', settings.provider);
  return factory(settings, access);
}

export function createTts(settings: TTSSettings, access: VendorAccess): tts.TTS {
  const factory = ttsFactories[settings.provider];
  if (!factory) throw new ProviderUnavailableError('tts', settings.provider);
  return factory(settings, access);
}
