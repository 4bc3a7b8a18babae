import { llm } from '@livekit/agents';
import * as openai from '@livekit/agents-plugin-openai';
import OpenAI from 'openai';
import { NO_PRIVATE_VENDOR_HOSTS, vendorFetch } from '../../lib/net/vendor-targets.js';
import type { VendorTargetPolicy } from '../../lib/net/vendor-targets.js';
import { credentialOfStage, type LlmProvider, MissingCredentialsError } from '../../modules/assistants/index.js';
import { AnthropicLLM } from './anthropic-llm.js';

/** What one LLM endpoint needs, whatever the vendor: the runtime builds this from the assistant's settings. */
export interface LlmEndpoint {
  provider: LlmProvider;
  model: string;
  apiKey: string | undefined;
  baseUrl: string | undefined;
  sampling: Sampling;
  /** Vendor-specific extras from `llm_provider_config.custom_config`, passed through untouched. */
  customConfig: Record<string, unknown>;
  /** Where the endpoint may connect besides public addresses (VendorCredentials.targets); absent, nowhere else. */
  targets?: VendorTargetPolicy | undefined;
}

/** The `fetch` an endpoint's client connects with: guarded on every address it connects to (lib/net/vendor-targets.ts). */
export function endpointFetch(endpoint: LlmEndpoint): typeof fetch {
  return vendorFetch(endpoint.targets ?? NO_PRIVATE_VENDOR_HOSTS);
}

/** An endpoint whose vendor's key is there: what a provider that needs a key is built from. */
export type KeyedLlmEndpoint = LlmEndpoint & { apiKey: string };

/**
 * Whether the endpoint has what its vendor needs to be reached: its key, or for `custom` (any OpenAI-compatible
 * server, many of which take no key) the server's address.
 */
export function hasCredential(endpoint: LlmEndpoint): boolean {
  return endpoint.provider === 'custom' ? Boolean(endpoint.baseUrl) : Boolean(endpoint.apiKey);
}

/** The endpoint with its key, or the call's missing-credential error: a vendor is never reached without one. */
function keyed(endpoint: LlmEndpoint): KeyedLlmEndpoint {
  if (!endpoint.apiKey) throw new MissingCredentialsError(['llm'], [credentialOfStage('llm', endpoint.provider)]);
  return { ...endpoint, apiKey: endpoint.apiKey };
}

/**
 * What OpenAI's client is given for a `custom` server that takes no key: the client refuses to start without one, and
 * such a server (Ollama, vLLM started without --api-key) ignores it. No other vendor is built without its own key.
 */
const KEYLESS_SERVER = 'no-key-needed';

export interface Sampling {
  temperature: number;
  topP: number;
  maxTokens: number;
  frequencyPenalty: number;
  presencePenalty: number;
  stopSequences: string[];
}

type ChatOptions = Parameters<llm.LLM['chat']>[0];

/**
 * OpenAI's plugin with every sampling field of the assistant: the plugin takes temperature and top_p itself, and the
 * rest travel as request fields (the same names on every OpenAI-compatible server: Groq, Ollama, vLLM, ...).
 */
class OpenAICompatibleLLM extends openai.LLM {
  readonly #extra: Record<string, unknown>;

  constructor(endpoint: LlmEndpoint, apiKey: string, defaultBaseUrl: string | undefined) {
    const s = endpoint.sampling;
    super({
      model: endpoint.model,
      // The plugin's own client, but connecting through the guarded fetch; no retries of its own, as the plugin sets.
      client: new OpenAI({ apiKey, baseURL: endpoint.baseUrl ?? defaultBaseUrl, maxRetries: 0, fetch: endpointFetch(endpoint) }),
      temperature: s.temperature,
      topP: s.topP,
      maxCompletionTokens: s.maxTokens,
    });
    this.#extra = {
      frequency_penalty: s.frequencyPenalty,
      presence_penalty: s.presencePenalty,
      ...(s.stopSequences.length > 0 ? { stop: s.stopSequences } : {}),
      ...endpoint.customConfig,
    };
  }

  override chat(options: ChatOptions) {
    return super.chat({ ...options, extraKwargs: { ...this.#extra, ...options.extraKwargs } });
  }
}

const GROQ_BASE_URL = 'https://api.groq.com/openai/v1';

/**
 * One factory per vendor name in the assistant schema. The pipeline only ever calls through this table. Google's and
 * Mistral's clients are loaded the first time an assistant uses them: Mistral's SDK alone is over a thousand modules,
 * about half a second of CPU that every process start paid whether or not any assistant used it.
 */
export const llmFactories: Record<LlmProvider, (endpoint: LlmEndpoint) => llm.LLM | Promise<llm.LLM>> = {
  openai: (e) => new OpenAICompatibleLLM(e, keyed(e).apiKey, undefined),
  groq: (e) => new OpenAICompatibleLLM(e, keyed(e).apiKey, GROQ_BASE_URL),
  custom: (e) => {
    if (!hasCredential(e)) throw new MissingCredentialsError(['llm'], [credentialOfStage('llm', 'custom')]);
    return new OpenAICompatibleLLM(e, e.apiKey ?? KEYLESS_SERVER, e.baseUrl);
  },
  anthropic: (e) => new AnthropicLLM(keyed(e)),
  google: async (e) => {
    const { apiKey } = keyed(e);
    const google = await import('@livekit/agents-plugin-google');
    return new google.LLM({
      model: e.model,
      apiKey,
      temperature: e.sampling.temperature,
      topP: e.sampling.topP,
      maxOutputTokens: e.sampling.maxTokens,
      frequencyPenalty: e.sampling.frequencyPenalty,
      presencePenalty: e.sampling.presencePenalty,
      httpOptions: { ...(e.baseUrl ? { baseUrl: e.baseUrl } : {}), fetch: endpointFetch(e) },
    });
  },
  mistral: async (e) => {
    const { apiKey } = keyed(e);
    const [mistral, { Mistral }, { HTTPClient }] = await Promise.all([
      import('@livekit/agents-plugin-mistralai'),
      import('@mistralai/mistralai'),
      import('@mistralai/mistralai/lib/http.js'),
    ]);
    return new mistral.LLM({
      model: e.model,
      temperature: e.sampling.temperature,
      topP: e.sampling.topP,
      maxCompletionTokens: e.sampling.maxTokens,
      frequencyPenalty: e.sampling.frequencyPenalty,
      presencePenalty: e.sampling.presencePenalty,
      client: new Mistral({
        apiKey,
        httpClient: new HTTPClient({ fetcher: endpointFetch(e) }),
        ...(e.baseUrl ? { serverURL: e.baseUrl } : {}),
      }),
    });
  },
};

/** The endpoint's LLM; MissingCredentialsError when its vendor's key (or a custom server's address) is not there. */
export async function createLlm(endpoint: LlmEndpoint): Promise<llm.LLM> {
  return llmFactories[endpoint.provider](endpoint);
}
