import { initializeLogger, llm } from '@livekit/agents';
import { describe, expect, it } from 'vitest';
import { MissingCredentialsError } from '../../modules/assistants/credentials.js';
import { AssistantSettings } from '../../modules/assistants/settings.js';
import { LLM_PROVIDERS } from '../../modules/assistants/vendors.js';
import { buildLlm } from '../call/session-config.js';
import { createLlm, type LlmEndpoint } from './llm-providers.js';
import { createStt, createTts, sttFactories, ttsFactories, vendorAccessFromEnv, type VendorAccess } from './speech-providers.js';

// A vendor is never built without its key: a stand-in key would be refused by the vendor mid-call, after the caller
// has heard the greeting. Asked for without one, every provider raises the call's missing-credential error instead,
// which ends the call `missing_credentials` before anything connects and names the variable to set.

initializeLogger({ pretty: false, level: 'silent' });

const noKeys: VendorAccess = vendorAccessFromEnv({});
const sttSettings = (provider: string) => AssistantSettings.shape.stt_settings.parse({ provider });
const ttsSettings = (provider: string, providerConfig: Record<string, unknown> = {}) =>
  AssistantSettings.shape.tts_settings.parse({ provider, provider_config: providerConfig });
const sampling = { temperature: 0.3, topP: 1, maxTokens: 64, frequencyPenalty: 0, presencePenalty: 0, stopSequences: [] };
const endpoint = (provider: LlmEndpoint['provider'], fields: Partial<LlmEndpoint> = {}): LlmEndpoint => ({
  provider,
  model: 'some-model',
  apiKey: undefined,
  baseUrl: undefined,
  sampling,
  customConfig: {},
  ...fields,
});

function missingOf(build: () => unknown): { stages: string[]; variables: string[] } {
  try {
    build();
  } catch (error) {
    return missingIn(error);
  }
  throw new Error('built without a key');
}

/** The same, for a provider built asynchronously (the LLMs, whose clients are loaded on first use). */
async function missingOfAsync(build: () => Promise<unknown>): Promise<{ stages: string[]; variables: string[] }> {
  const error = await build().then(
    () => {
      throw new Error('built without a key');
    },
    (e: unknown) => e,
  );
  return missingIn(error);
}

function missingIn(error: unknown): { stages: string[]; variables: string[] } {
  expect(error).toBeInstanceOf(MissingCredentialsError);
  const e = error as MissingCredentialsError;
  return { stages: e.stages, variables: e.missing.map((m) => m.variable) };
}

const keyed = <T extends string>(vendors: T[]) => vendors.filter((v) => v !== 'local');

describe('a provider asked for without its key', () => {
  it.each(keyed(Object.keys(sttFactories)))('STT %s raises the missing-credential error naming its variable', (vendor) => {
    expect(missingOf(() => createStt(sttSettings(vendor), noKeys))).toEqual({ stages: ['stt'], variables: [`${vendor.toUpperCase()}_API_KEY`] });
  });

  it.each(keyed(Object.keys(ttsFactories)))('TTS %s raises the missing-credential error naming its variable', (vendor) => {
    expect(missingOf(() => createTts(ttsSettings(vendor), noKeys))).toEqual({ stages: ['tts'], variables: [`${vendor.toUpperCase()}_API_KEY`] });
    // The assistant's own key is a key.
    expect(createTts(ttsSettings(vendor, { api_key: 'own-key' }), noKeys)).toBeDefined();
  });

  it.each(LLM_PROVIDERS.filter((p) => p !== 'custom'))('LLM %s raises the missing-credential error naming its variable', async (vendor) => {
    expect(await missingOfAsync(() => createLlm(endpoint(vendor)))).toEqual({ stages: ['llm'], variables: [`${vendor.toUpperCase()}_API_KEY`] });
    expect(await createLlm(endpoint(vendor, { apiKey: 'vendor-key', baseUrl: 'http://127.0.0.1:9/v1' }))).toBeInstanceOf(llm.LLM);
  });

  it('a custom LLM needs the address of its server, and a key only if that server asks for one', async () => {
    expect(await missingOfAsync(() => createLlm(endpoint('custom')))).toEqual({ stages: ['llm'], variables: ['CUSTOM_BASE_URL'] });
    expect(await createLlm(endpoint('custom', { baseUrl: 'http://127.0.0.1:11434/v1' }))).toBeInstanceOf(llm.LLM);
  });

  it('the local vendors need nothing', () => {
    expect(createStt(sttSettings('local'), noKeys)).toBeDefined();
    expect(createTts(ttsSettings('local'), noKeys)).toBeDefined();
  });
});

describe("a call's LLM with fallbacks", () => {
  const settings = (primary: string, fallback: string) =>
    AssistantSettings.parse({ name: 'Keys', llm_provider: primary, llm_fallback_providers: { enabled: true, fallbacks: [{ provider: fallback }] } });
  const only = (vendor: string): VendorAccess => vendorAccessFromEnv({ [`${vendor.toUpperCase()}_API_KEY`]: `${vendor}-key` });

  it('leaves out an endpoint without its key instead of building it, so the others answer', async () => {
    const withoutFallback = await buildLlm(settings('openai', 'anthropic'), only('openai'));
    expect(withoutFallback).not.toBeInstanceOf(llm.FallbackAdapter);
    expect(withoutFallback.label()).toBe('openai.LLM');
    const withoutPrimary = await buildLlm(settings('openai', 'anthropic'), only('anthropic'));
    expect(withoutPrimary.label()).toBe('anthropic.LLM');
  });

  it('raises the missing-credential error when no endpoint has its key', async () => {
    expect(await missingOfAsync(() => buildLlm(settings('openai', 'anthropic'), noKeys))).toEqual({ stages: ['llm'], variables: ['OPENAI_API_KEY'] });
  });
});
