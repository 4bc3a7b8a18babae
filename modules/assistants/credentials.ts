import { apiKeyVariable, baseUrlVariable } from '../../lib/config.js';
import type { VendorCredentials } from '../../lib/vendor-credentials.js';
import type { AssistantSettings } from './settings.js';

// Which vendor credentials an assistant's settings need and this process does not have. One function for both
// processes: the API shows it as `warnings` on the assistant, so a user learns it before a caller does, and the call
// runtime refuses to start a call that cannot work and says which variable is unset. Each process answers for its
// own environment: in production the API and the agents may run with different variables.

/** The stage of a call a credential belongs to. */
export type CallStage = 'stt' | 'tts' | 'llm' | 'realtime';

export interface MissingCredential {
  stage: CallStage;
  /** The setting that names the vendor, in the API's dotted form: `stt_settings.provider`, `llm_fallback_providers.fallbacks.0.provider`. */
  field: string;
  provider: string;
  /** The environment variable that would supply it. */
  variable: string;
  /** Where the assistant itself could carry it instead, when it can. */
  setting: string | null;
  message: string;
}

type Settings = Pick<AssistantSettings, 'llm_provider' | 'llm_provider_config' | 'llm_fallback_providers' | 'stt_settings' | 'tts_settings'> &
  Partial<Pick<AssistantSettings, 'realtime_settings'>>;

const KEYLESS = new Set(['local']);

function text(record: Record<string, unknown> | null | undefined, key: string): string | undefined {
  const value = record?.[key];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function needsKey(stage: CallStage, field: string, provider: string, setting: string | null): MissingCredential {
  const variable = apiKeyVariable(provider);
  const label = { stt: 'STT', tts: 'TTS', llm: 'LLM', realtime: 'Speech-to-speech' }[stage];
  const instead = setting ? ` (or set ${setting} on the assistant)` : '';
  return { stage, field, provider, variable, setting, message: `${label} provider ${provider} needs ${variable}, which is not set on this service${instead}` };
}

/** `custom` is any OpenAI-compatible server: it needs an address, and a key only if that server asks for one. */
function needsBaseUrl(field: string, setting: string): MissingCredential {
  const variable = baseUrlVariable('custom');
  return {
    stage: 'llm',
    field,
    provider: 'custom',
    variable,
    setting,
    message: `LLM provider custom needs the address of an OpenAI-compatible server: set ${setting} on the assistant, or ${variable} on this service`,
  };
}

/**
 * Every vendor the settings name whose credential is neither in the settings nor in `source`, in the order a call
 * builds them: STT, TTS (or instead of both, the speech-to-speech model), the LLM, then each enabled LLM fallback.
 * `local` needs nothing.
 */
export function missingCredentials(settings: Settings, source: VendorCredentials): MissingCredential[] {
  const missing: MissingCredential[] = [];
  const realtime = settings.realtime_settings;
  if (realtime?.enabled) {
    // The speech-to-speech model hears and speaks: no recogniser or voice is built, so neither needs a key.
    if (!source.apiKey(realtime.provider)) missing.push(needsKey('realtime', 'realtime_settings.provider', realtime.provider, null));
  } else {
    const stt = settings.stt_settings.provider;
    if (!KEYLESS.has(stt) && !source.apiKey(stt)) missing.push(needsKey('stt', 'stt_settings.provider', stt, null));

    const tts = settings.tts_settings.provider;
    if (!KEYLESS.has(tts) && !text(settings.tts_settings.provider_config, 'api_key') && !source.apiKey(tts)) {
      missing.push(needsKey('tts', 'tts_settings.provider', tts, 'tts_settings.provider_config.api_key'));
    }
  }

  const llm = settings.llm_provider ?? 'openai';
  const config = settings.llm_provider_config;
  if (llm === 'custom') {
    if (!config.base_url && !source.baseUrl('custom')) missing.push(needsBaseUrl('llm_provider_config.base_url', 'llm_provider_config.base_url'));
  } else if (!text(config.custom_config, 'api_key') && !source.apiKey(llm)) {
    missing.push(needsKey('llm', 'llm_provider', llm, 'llm_provider_config.custom_config.api_key'));
  }

  if (settings.llm_fallback_providers.enabled) {
    settings.llm_fallback_providers.fallbacks.forEach((f, i) => {
      const at = `llm_fallback_providers.fallbacks.${i}`;
      if (f.provider === 'custom') {
        if (!f.base_url && !source.baseUrl('custom')) missing.push(needsBaseUrl(`${at}.provider`, `${at}.base_url`));
      } else if (!f.api_key && !source.apiKey(f.provider)) {
        missing.push(needsKey('llm', `${at}.provider`, f.provider, `${at}.api_key`));
      }
    });
  }
  return missing;
}

/**
 * The stages a call cannot run at all: STT or TTS without its credential, or an LLM whose primary and every enabled
 * fallback lack theirs (a fallback with a key still answers when the primary cannot).
 */
export function unusableStages(settings: Settings, missing: readonly MissingCredential[]): CallStage[] {
  const stages: CallStage[] = [];
  if (missing.some((m) => m.stage === 'stt')) stages.push('stt');
  if (missing.some((m) => m.stage === 'tts')) stages.push('tts');
  if (missing.some((m) => m.stage === 'realtime')) stages.push('realtime');
  // With a speech-to-speech model the text model only writes the post-call analysis: the call runs without it.
  if (settings.realtime_settings?.enabled) return stages;
  const llmEndpoints = 1 + (settings.llm_fallback_providers.enabled ? settings.llm_fallback_providers.fallbacks.length : 0);
  if (missing.filter((m) => m.stage === 'llm').length >= llmEndpoints) stages.push('llm');
  return stages;
}

/** The credential a provider asked for without it lacks, reported as the setting of its stage that names the vendor. */
export function credentialOfStage(stage: CallStage, provider: string): MissingCredential {
  if (stage === 'realtime') return needsKey('realtime', 'realtime_settings.provider', provider, null);
  if (stage === 'stt') return needsKey('stt', 'stt_settings.provider', provider, null);
  if (stage === 'tts') return needsKey('tts', 'tts_settings.provider', provider, 'tts_settings.provider_config.api_key');
  if (provider === 'custom') return needsBaseUrl('llm_provider_config.base_url', 'llm_provider_config.base_url');
  return needsKey('llm', 'llm_provider', provider, 'llm_provider_config.custom_config.api_key');
}

/**
 * A call whose settings name a vendor this process has no credential for, at a stage nothing else can fill. Raised
 * before anything connects, by the call's check of its settings and by any provider asked for without its key, so the
 * call ends `missing_credentials` and the log names the unset variable, instead of a vendor refusing a key mid-call.
 */
export class MissingCredentialsError extends Error {
  constructor(
    readonly stages: CallStage[],
    readonly missing: MissingCredential[],
  ) {
    super(`no credentials for ${stages.join(', ')}: ${missing.map((m) => m.variable).join(', ')} not set`);
    this.name = 'MissingCredentialsError';
  }
}
