import { inference, initializeLogger, llm, type VAD } from '@livekit/agents';
import { beforeAll, describe, expect, it } from 'vitest';
import { AssistantSettings } from '../../modules/assistants/settings.js';
import type { VendorAccess } from '../providers/speech-providers.js';
import { loadVad } from '../turn/vad.js';
import { buildLlm, buildSessionOptions, llmEndpoints } from './session-config.js';
import { TextTurnDetector } from '../turn/text-turn-detector.js';

// The assistant's settings, field by field, as they arrive in the session's options. The scripted call tests show the
// same fields at work in a running call; here each one is isolated.

initializeLogger({ pretty: false, level: 'silent' });

const access: VendorAccess = {
  apiKey: (vendor) => `env-key-${vendor}`,
  baseUrl: () => undefined,
};

const settings = (fields: Record<string, unknown> = {}) =>
  AssistantSettings.parse({ name: 'Settings', stt_settings: { provider: 'local' }, tts_settings: { provider: 'local' }, ...fields });

let vad: VAD;
beforeAll(async () => {
  vad = await loadVad();
});

describe('turn handling from stt_settings.turn_detection', () => {
  it('uses the text end-of-turn rules for text_turn_detector', async () => {
    const { options } = await buildSessionOptions(settings({ stt_settings: { provider: 'local', turn_detection: { mode: 'text_turn_detector' } } }), {
      vad,
      access,
    });
    expect(options.turnHandling?.turnDetection).toBeInstanceOf(TextTurnDetector);
  });

  it("uses LiveKit's audio end-of-turn model for turn_detector (the default)", async () => {
    const { options } = await buildSessionOptions(settings(), { vad, access });
    expect(options.turnHandling?.turnDetection).toBeInstanceOf(inference.TurnDetector);
  });

  it('turns the endpointing delays from seconds into milliseconds', async () => {
    const s = settings({
      stt_settings: { provider: 'local', turn_detection: { mode: 'text_turn_detector', min_endpointing_delay: 0.45, max_endpointing_delay: 3.2 } },
    });
    const { options } = await buildSessionOptions(s, { vad, access });
    expect(options.turnHandling?.endpointing).toMatchObject({ minDelay: 450, maxDelay: 3200 });
  });
});

describe('custom_settings', () => {
  it('reach the session untouched as its user data, an empty object when unset', async () => {
    const custom = { crm: { pipeline: 'sales', stage: 3 }, tags: ['vip'] };
    const { options } = await buildSessionOptions(settings({ custom_settings: custom }), { vad, access });
    expect(options.userData).toEqual({ customSettings: custom });
    expect((await buildSessionOptions(settings(), { vad, access })).options.userData).toEqual({ customSettings: {} });
  });
});

describe('interruptions from interruption_settings', () => {
  it('carries every field, seconds turned into milliseconds', async () => {
    const s = settings({
      stt_settings: { provider: 'local', turn_detection: { mode: 'text_turn_detector' } },
      interruption_settings: {
        allow_interruptions: false,
        min_interruption_duration: 0.8,
        min_interruption_words: 3,
        false_interruption_timeout: 1.5,
        resume_false_interruption: false,
      },
    });
    const { options } = await buildSessionOptions(s, { vad, access });
    expect(options.turnHandling?.interruption).toMatchObject({
      enabled: false,
      minDuration: 800,
      minWords: 3,
      falseInterruptionTimeout: 1500,
      resumeFalseInterruption: false,
    });
  });

  it('keeps the defaults of the spec (allowed, 0.5 s, 2 s, resume) and lets the voice pause the reply while the words decide', async () => {
    const { options } = await buildSessionOptions(settings({ stt_settings: { provider: 'local', turn_detection: { mode: 'text_turn_detector' } } }), {
      vad,
      access,
    });
    // min_interruption_words (1) is applied to the words by the overlap filter, not by the framework's pause.
    expect(options.turnHandling?.interruption).toMatchObject({
      enabled: true,
      minDuration: 500,
      minWords: 0,
      falseInterruptionTimeout: 2000,
      resumeFalseInterruption: true,
    });
  });
});

describe('the LLM from llm_provider, llm_provider_config, llm_settings and llm_fallback_providers', () => {
  it('passes the model and every sampling field', () => {
    const s = settings({
      llm_provider: 'groq',
      llm_provider_config: { model: 'llama-3.3-70b-versatile' },
      llm_settings: { temperature: 0.1, top_p: 0.9, max_tokens: 77, frequency_penalty: 0.3, presence_penalty: -0.4, stop_sequences: ['Bye.'] },
    });
    const [primary] = llmEndpoints(s, access);
    expect(primary).toMatchObject({
      provider: 'groq',
      model: 'llama-3.3-70b-versatile',
      apiKey: 'env-key-groq',
      sampling: { temperature: 0.1, topP: 0.9, maxTokens: 77, frequencyPenalty: 0.3, presencePenalty: -0.4, stopSequences: ['Bye.'] },
    });
  });

  it('prefers the key and base URL of llm_provider_config over the environment, and passes the rest of custom_config on', () => {
    const s = settings({
      llm_provider: 'custom',
      llm_provider_config: { base_url: 'http://127.0.0.1:11434/v1', model: 'llama3', custom_config: { api_key: 'own-key', seed: 7 } },
    });
    const [primary] = llmEndpoints(s, access);
    expect(primary).toMatchObject({ provider: 'custom', baseUrl: 'http://127.0.0.1:11434/v1', apiKey: 'own-key', customConfig: { seed: 7 } });
  });

  it('adds the fallbacks in order only when they are enabled, each inheriting the model when it names none', () => {
    const fallbacks = [
      { provider: 'anthropic', model: 'claude-sonnet-4-5' },
      { provider: 'openai', api_key: 'fallback-key' },
    ];
    expect(llmEndpoints(settings({ llm_fallback_providers: { enabled: false, fallbacks } }), access)).toHaveLength(1);
    const endpoints = llmEndpoints(settings({ llm_fallback_providers: { enabled: true, fallbacks } }), access);
    expect(endpoints.map((e) => [e.provider, e.model, e.apiKey])).toEqual([
      ['openai', 'gpt-4.1-mini', 'env-key-openai'],
      ['anthropic', 'claude-sonnet-4-5', 'env-key-anthropic'],
      ['openai', 'gpt-4.1-mini', 'fallback-key'],
    ]);
  });

  it('wraps several LLMs in a fallback adapter and leaves a single one bare', async () => {
    expect(await buildLlm(settings(), access)).not.toBeInstanceOf(llm.FallbackAdapter);
    const wrapped = await buildLlm(settings({ llm_fallback_providers: { enabled: true, fallbacks: [{ provider: 'groq' }] } }), access);
    expect(wrapped).toBeInstanceOf(llm.FallbackAdapter);
  });
});
