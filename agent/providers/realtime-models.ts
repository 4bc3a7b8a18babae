import type { llm } from '@livekit/agents';
import * as openai from '@livekit/agents-plugin-openai';
import { AudioResampler, type AudioFrame } from '@livekit/rtc-node';
import {
  type AssistantSettings,
  credentialOfStage,
  DEFAULT_REALTIME_MODELS,
  MissingCredentialsError,
  type RealtimeProvider,
} from '../../modules/assistants/index.js';
import type { VendorAccess } from './speech-providers.js';
import { createGeminiLiveModel } from './gemini-live.js';

// The speech-to-speech model of an assistant's `realtime_settings`, through the framework's own plugins: one model
// hears the caller, decides when the turn ends (the vendor's own voice activity detection), and speaks the reply; the
// caller's words come back as the vendor's input transcription, for the transcript. The vendor's socket is opened by
// the plugin, not through the guarded fetch, so its URL is checked before the call connects (session-config.ts).
// OpenAI's model is here; Google's (Gemini Live) is in gemini-live.ts.

export interface RealtimeEndpoint {
  provider: RealtimeProvider;
  model: string;
  voice: string;
  apiKey: string;
  /** The vendor's API base; absent, the vendor's own. */
  baseUrl: string | undefined;
  /** OpenAI's choice; Gemini Live ends a turn on silence alone (semantic_vad is refused for it at write). */
  turnDetection: 'server_vad' | 'semantic_vad';
  /** Silence that ends the caller's turn (server_vad; Gemini's silenceDurationMs), ms. */
  silenceMs: number;
}

/** The endpoint the settings name, with the organisation's key; MissingCredentialsError without one. */
export function realtimeEndpoint(settings: AssistantSettings, access: VendorAccess): RealtimeEndpoint {
  const r = settings.realtime_settings;
  const apiKey = access.apiKey(r.provider);
  if (!apiKey) throw new MissingCredentialsError(['realtime'], [credentialOfStage('realtime', r.provider)]);
  const defaults = DEFAULT_REALTIME_MODELS[r.provider];
  return {
    provider: r.provider,
    model: r.model ?? defaults.model,
    voice: r.voice ?? defaults.voice,
    apiKey,
    baseUrl: r.base_url ?? access.baseUrl(r.provider),
    turnDetection: r.turn_detection,
    // The endpointing delay the assistant already sets for its own detector; the vendor takes whole milliseconds.
    silenceMs: Math.max(Math.round(settings.stt_settings.turn_detection.min_endpointing_delay * 1000), 100),
  };
}

/** The recogniser OpenAI's model transcribes the caller with: the transcript's caller side comes from it. */
const OPENAI_TRANSCRIPTION_MODEL = 'gpt-4o-mini-transcribe';

/**
 * OpenAI's plugin sends each frame's samples as they are, labelled 24 kHz: a room's input is 24 kHz, but a phone line's
 * or a browser socket's is 8 or 16 kHz, which the model would hear too fast. Frames at another rate are resampled first.
 */
class ResampledOpenAISession extends openai.realtime.RealtimeSession {
  #resampler: AudioResampler | undefined;

  override pushAudio(frame: AudioFrame): void {
    const rate = openai.realtime.SAMPLE_RATE;
    if (frame.sampleRate === rate) return super.pushAudio(frame);
    if (this.#resampler?.inputRate !== frame.sampleRate) this.#resampler = new AudioResampler(frame.sampleRate, rate, 1);
    for (const resampled of this.#resampler.push(frame)) super.pushAudio(resampled);
  }
}

class OpenAIRealtimeModel extends openai.realtime.RealtimeModel {
  override session(): openai.realtime.RealtimeSession {
    return new ResampledOpenAISession(this);
  }
}

export const realtimeFactories: Record<
  RealtimeProvider,
  (endpoint: RealtimeEndpoint, settings: AssistantSettings) => llm.RealtimeModel | Promise<llm.RealtimeModel>
> = {
  openai: (e, settings) =>
    new OpenAIRealtimeModel({
      model: e.model,
      voice: e.voice,
      apiKey: e.apiKey,
      ...(e.baseUrl ? { baseURL: e.baseUrl.replace(/\/+$/, '') } : {}),
      inputAudioTranscription: { model: OPENAI_TRANSCRIPTION_MODEL, language: settings.stt_settings.language.split('-')[0]! },
      turnDetection:
        e.turnDetection === 'semantic_vad'
          ? { type: 'semantic_vad', eagerness: 'auto', create_response: true, interrupt_response: settings.interruption_settings.allow_interruptions }
          : {
              type: 'server_vad',
              threshold: 0.5,
              prefix_padding_ms: 300,
              silence_duration_ms: e.silenceMs,
              create_response: true,
              interrupt_response: settings.interruption_settings.allow_interruptions,
            },
      // One reconnect, as the other vendors get (session-config.ts); a dead vendor ends the call rather than hang it.
      connOptions: { maxRetry: 1, retryIntervalMs: 500, timeoutMs: 10_000 },
    }),
  google: createGeminiLiveModel,
};

export async function createRealtimeModel(
  settings: AssistantSettings,
  access: VendorAccess,
): Promise<{ model: llm.RealtimeModel; endpoint: RealtimeEndpoint }> {
  const endpoint = realtimeEndpoint(settings, access);
  return { model: await realtimeFactories[endpoint.provider](endpoint, settings), endpoint };
}
