import { llm } from '@livekit/agents';
import * as google from '@livekit/agents-plugin-google';
import * as mistral from '@livekit/agents-plugin-mistralai';
import * as openai from '@livekit/agents-plugin-openai';
import { Mistral } from '@mistralai/mistralai';
import type { LlmProvider } from '../../modules/assistants/vendors.js';
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
}

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

  constructor(endpoint: LlmEndpoint, defaultBaseUrl: string | undefined) {
    const s = endpoint.sampling;
    super({
      model: endpoint.model,
      apiKey: endpoint.apiKey ?? 'unset',
      baseURL: endpoint.baseUrl ?? defaultBaseUrl,
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

/** One factory per vendor name in the assistant schema. The pipeline only ever calls through this table. */
export const llmFactories: Record<LlmProvider, (endpoint: LlmEndpoint) => llm.LLM> = {
  openai: (e) => new OpenAICompatibleLLM(e, undefined),
  groq: (e) => new OpenAICompatibleLLM(e, GROQ_BASE_URL),
  custom: (e) => {
    if (!e.baseUrl) throw new Error('a custom LLM provider needs llm_provider_config.base_url');
    return new OpenAICompatibleLLM(e, e.baseUrl);
  },
  anthropic: (e) => new AnthropicLLM(e),
  google: (e) =>
    new google.LLM({
      model: e.model,
      apiKey: e.apiKey,
      temperature: e.sampling.temperature,
      topP: e.sampling.topP,
      maxOutputTokens: e.sampling.maxTokens,
      frequencyPenalty: e.sampling.frequencyPenalty,
      presencePenalty: e.sampling.presencePenalty,
      ...(e.baseUrl ? { httpOptions: { baseUrl: e.baseUrl } } : {}),
    }),
  mistral: (e) =>
    new mistral.LLM({
      model: e.model,
      temperature: e.sampling.temperature,
      topP: e.sampling.topP,
      maxCompletionTokens: e.sampling.maxTokens,
      frequencyPenalty: e.sampling.frequencyPenalty,
      presencePenalty: e.sampling.presencePenalty,
      client: new Mistral({ apiKey: e.apiKey ?? '', ...(e.baseUrl ? { serverURL: e.baseUrl } : {}) }),
    }),
};

export function createLlm(endpoint: LlmEndpoint): llm.LLM {
  return llmFactories[endpoint.provider](endpoint);
}
