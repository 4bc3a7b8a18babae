import { llm, log, voice, type VAD } from '@livekit/agents';
import {
  type AssistantSettings,
  DEFAULT_LLM_MODEL,
  credentialOfStage,
  missingCredentials,
  MissingCredentialsError,
  refusedVendorUrls,
  unusableStages,
} from '../../modules/assistants/index.js';
import { createLlm, hasCredential, type LlmEndpoint } from '../providers/llm-providers.js';
import { createStt, type VendorAccess } from '../providers/speech-providers.js';
import { createRealtimeModel, type RealtimeEndpoint } from '../providers/realtime-models.js';
import { listeningSettings, voicesOf } from './languages.js';
import { TurnTaking } from '../turn/turn-taking.js';
import { NO_PRIVATE_VENDOR_HOSTS } from '../../lib/net/vendor-targets.js';

// The assistant's settings (seconds, the API's units and names) turned into an AgentSession's options (ms, the
// framework's names). Everything vendor-specific happens in the provider tables; nothing here names a vendor.

export const secondsToMs = (seconds: number): number => Math.round(seconds * 1000);

/**
 * One LLM attempt may take this long before the fallback adapter moves on: a first token after 10 s is a dead
 * vendor on a phone call.
 */
export const LLM_ATTEMPT_TIMEOUT_MS = 10_000;
/** One retry per vendor, half a second apart: a flaky connection gets a second chance without the caller noticing. */
const VENDOR_CONN_OPTIONS = { maxRetry: 1, retryIntervalMs: 500, timeoutMs: 10_000 };

function stringOf(record: Record<string, unknown> | null, key: string): string | undefined {
  const value = record?.[key];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

export function llmEndpoints(settings: AssistantSettings, access: VendorAccess): LlmEndpoint[] {
  const s = settings.llm_settings;
  const sampling = {
    temperature: s.temperature,
    topP: s.top_p,
    maxTokens: s.max_tokens,
    frequencyPenalty: s.frequency_penalty,
    presencePenalty: s.presence_penalty,
    stopSequences: s.stop_sequences,
  };
  const provider = settings.llm_provider ?? 'openai';
  const config = settings.llm_provider_config;
  const { api_key: _key, base_url: _url, ...customConfig } = config.custom_config ?? {};
  const model = config.model ?? DEFAULT_LLM_MODEL;
  const primary: LlmEndpoint = {
    provider,
    model,
    apiKey: stringOf(config.custom_config, 'api_key') ?? access.apiKey(provider),
    baseUrl: config.base_url ?? access.baseUrl(provider),
    sampling,
    customConfig,
    targets: access.targets,
  };
  const fallbacks = settings.llm_fallback_providers.enabled
    ? settings.llm_fallback_providers.fallbacks.map((f): LlmEndpoint => ({
        provider: f.provider,
        model: f.model ?? model,
        apiKey: f.api_key ?? access.apiKey(f.provider),
        baseUrl: f.base_url ?? access.baseUrl(f.provider),
        sampling,
        customConfig: {},
        targets: access.targets,
      }))
    : [];
  return [primary, ...fallbacks];
}

/**
 * The assistant's LLM, wrapped with its fallbacks in order when they are enabled. An endpoint without its credential
 * is left out (the others answer); when none has one, building the first raises MissingCredentialsError.
 */
export async function buildLlm(settings: AssistantSettings, access: VendorAccess): Promise<llm.LLM> {
  const endpoints = llmEndpoints(settings, access);
  const usable = endpoints.filter(hasCredential);
  const llms = await Promise.all((usable.length > 0 ? usable : endpoints.slice(0, 1)).map(createLlm));
  if (llms.length === 1) return llms[0]!;
  return new llm.FallbackAdapter({ llms, attemptTimeout: LLM_ATTEMPT_TIMEOUT_MS, maxRetryPerLLM: 0, retryInterval: 500 });
}

/** What a call's session carries for code that runs inside it. */
export interface CallUserData {
  /** The assistant's `custom_settings`, untouched. */
  customSettings: Record<string, unknown>;
}

// Raised by the check below and by any provider asked for without its key; the call ends `missing_credentials`.
export { MissingCredentialsError };

/** A vendor URL of the assistant's that leads to an address the service does not call; the call ends `vendor_target_refused`. */
export class VendorTargetRefusedError extends Error {
  constructor(readonly fields: string[]) {
    super(
      `the assistant's vendor URL leads to a loopback, private or reserved address the operator has not allowed (VENDOR_PRIVATE_HOSTS): ${fields.join(', ')}`,
    );
    this.name = 'VendorTargetRefusedError';
  }
}

/**
 * Resolves every vendor URL of the assistant's that the call will use and throws VendorTargetRefusedError when one
 * leads inside. Vendors whose clients connect through the guarded fetch are checked again on each connection; the
 * others (speech vendors' sockets, Google's client) rely on this check.
 */
export async function checkVendorTargets(settings: AssistantSettings, access: VendorAccess): Promise<void> {
  const used = {
    ...settings,
    llm_fallback_providers: settings.llm_fallback_providers.enabled ? settings.llm_fallback_providers : { ...settings.llm_fallback_providers, fallbacks: [] },
    // The speech-to-speech model's socket is opened by its plugin, outside the guarded fetch: this is its only check.
    realtime_settings: settings.realtime_settings.enabled ? settings.realtime_settings : { ...settings.realtime_settings, base_url: null },
  };
  const refused = await refusedVendorUrls(used, access.targets ?? NO_PRIVATE_VENDOR_HOSTS);
  if (refused.length > 0) throw new VendorTargetRefusedError(refused);
}

/** Throws MissingCredentialsError when a stage of the call cannot run; warns of credentials only a fallback covers. */
export function checkCredentials(settings: AssistantSettings, access: VendorAccess): void {
  const missing = missingCredentials(settings, access);
  if (missing.length === 0) return;
  const stages = unusableStages(settings, missing);
  if (stages.length > 0) throw new MissingCredentialsError(stages, missing);
  // Variable names and setting paths only: never a value.
  log().warn(
    { variables: missing.map((m) => m.variable), fields: missing.map((m) => m.field) },
    'an llm endpoint has no credential: the call relies on the others',
  );
}

export interface SessionParts {
  options: voice.AgentSessionOptions;
  /** The text model: the session's, or with a speech-to-speech model the post-call analysis's alone. */
  llm: llm.LLM;
  /** The speech-to-speech model the session runs on instead of a recogniser, the text model and a voice. */
  realtime?: { model: llm.RealtimeModel; endpoint: RealtimeEndpoint };
  /** The call's turn-taking: attach it to the session, and give it to the call's agent (agent/call/call-agent.ts). */
  turns: TurnTaking;
}

/**
 * The interruption options the framework is given. With `resume_false_interruption` the caller's voice alone pauses
 * the reply after `min_interruption_duration` (the framework's word count set to 0), and the words decide: the
 * overlap filter lets them through as a turn, which interrupts the reply, once they hold `min_interruption_words`
 * words that are not acknowledgements, and otherwise the reply resumes. A recogniser's words come a few hundred ms
 * after the voice, so waiting for them would stop a barge-in late. Without resume a pause cannot be undone, so the
 * framework waits for the words as well.
 */
export function interruptionOptions(settings: AssistantSettings) {
  const interruption = settings.interruption_settings;
  return {
    enabled: interruption.allow_interruptions,
    mode: 'vad' as const,
    minDuration: secondsToMs(interruption.min_interruption_duration),
    minWords: interruption.resume_false_interruption ? 0 : interruption.min_interruption_words,
    falseInterruptionTimeout: secondsToMs(interruption.false_interruption_timeout),
    resumeFalseInterruption: interruption.resume_false_interruption,
  };
}

export async function buildSessionOptions(
  settings: AssistantSettings,
  deps: { vad?: VAD | undefined; access: VendorAccess; stt?: voice.AgentSessionOptions['stt'] },
): Promise<SessionParts> {
  checkCredentials(settings, deps.access);
  await checkVendorTargets(settings, deps.access);
  const turn = settings.stt_settings.turn_detection;
  const delays = { minMs: secondsToMs(turn.min_endpointing_delay), maxMs: secondsToMs(turn.max_endpointing_delay) };
  const turns = new TurnTaking({ mode: turn.mode, delays, minInterruptionWords: settings.interruption_settings.min_interruption_words });
  if (settings.realtime_settings.enabled) return realtimeSessionOptions(settings, deps.access, turns);
  if (!deps.vad) throw new Error('a session with a recogniser needs a VAD');
  const chatLlm = await buildLlm(settings, deps.access);
  const options: voice.AgentSessionOptions = {
    vad: deps.vad,
    stt: deps.stt ?? createStt(listeningSettings(settings), deps.access),
    llm: chatLlm,
    tts: voicesOf(settings, deps.access),
    // Read by whatever runs inside the session (tools, handoffs) as `session.userData.customSettings`.
    userData: { customSettings: settings.custom_settings ?? {} } satisfies CallUserData,
    // The idle behaviour is the assistant's own (idle_timeout); the framework's "away" state is not used.
    userAwayTimeout: null,
    // No echo on our transports' separate tracks, so no warm-up during which the caller could not interrupt.
    aecWarmupDuration: null,
    connOptions: { sttConnOptions: VENDOR_CONN_OPTIONS, llmConnOptions: VENDOR_CONN_OPTIONS, ttsConnOptions: VENDOR_CONN_OPTIONS, maxUnrecoverableErrors: 0 },
    turnHandling: {
      turnDetection: turns.detector(),
      endpointing: { mode: 'fixed', minDelay: delays.minMs, maxDelay: delays.maxMs },
      interruption: interruptionOptions(settings),
      // A reply generated before the turn ends is made without the turn's knowledge passages, so it would always be
      // thrown away and paid for; retrieval starts at the same moment instead (agent/call/turn-prompt.ts).
      ...(settings.rag_settings.enabled ? { preemptiveGeneration: { enabled: false } } : {}),
    },
  };
  return { options, llm: chatLlm, turns };
}

/**
 * A session on a speech-to-speech model: no recogniser, voice or local VAD. The vendor ends the caller's turn (its
 * server VAD) and answers at once, and cancels its reply when the caller speaks over it; the framework then truncates
 * the reply where its playout stopped, so the model knows what the caller heard. The text model is still built when
 * its key is there: the post-call analysis runs on it.
 */
async function realtimeSessionOptions(settings: AssistantSettings, access: VendorAccess, turns: TurnTaking): Promise<SessionParts> {
  const realtime = await createRealtimeModel(settings, access);
  const usable = llmEndpoints(settings, access).filter(hasCredential);
  const textLlm = usable.length > 0 ? await buildLlm(settings, access) : new UnavailableLlm(settings.llm_provider ?? 'openai');
  const options: voice.AgentSessionOptions = {
    llm: realtime.model,
    userData: { customSettings: settings.custom_settings ?? {} } satisfies CallUserData,
    userAwayTimeout: null,
    aecWarmupDuration: null,
    connOptions: { llmConnOptions: VENDOR_CONN_OPTIONS, maxUnrecoverableErrors: 0 },
    turnHandling: {
      turnDetection: 'realtime_llm',
      interruption: { enabled: settings.interruption_settings.allow_interruptions, resumeFalseInterruption: false },
    },
  };
  return { options, llm: textLlm, realtime, turns };
}

/** Without the text model's key a speech-to-speech call runs all the same; its analysis records why it was not made. */
class UnavailableLlm extends llm.LLM {
  readonly #vendor: string;
  constructor(vendor: string) {
    super();
    this.#vendor = vendor;
  }
  label(): string {
    return 'unavailable';
  }
  chat(): llm.LLMStream {
    throw new Error(`the text model has no key (${credentialOfStage('llm', this.#vendor).variable} is not set)`);
  }
}
