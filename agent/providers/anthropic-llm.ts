import { APIConnectionError, APIStatusError, DEFAULT_API_CONNECT_OPTIONS, llm, shortuuid, type APIConnectOptions } from '@livekit/agents';
import type { KeyedLlmEndpoint, LlmEndpoint } from './llm-providers.js';
import { readSse } from './sse.js';
import { NO_PRIVATE_VENDOR_HOSTS, vendorFetch } from '../../lib/net/vendor-targets.js';

// Anthropic's Messages API (no official LiveKit plugin for Node): POST /v1/messages with `stream: true`, answered by
// server-sent events `message_start`, `content_block_delta` (text deltas), `message_delta` (usage), `message_stop`,
// or `error`. The base class owns retries, metrics and cancellation; this class owns the wire format.

const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
const ANTHROPIC_VERSION = '2023-06-01';

type ChatOptions = Parameters<llm.LLM['chat']>[0];

export class AnthropicLLM extends llm.LLM {
  readonly endpoint: KeyedLlmEndpoint;

  constructor(endpoint: KeyedLlmEndpoint) {
    super();
    this.endpoint = endpoint;
  }

  label(): string {
    return 'anthropic.LLM';
  }

  override get model(): string {
    return this.endpoint.model;
  }

  override get provider(): string {
    return 'anthropic';
  }

  chat(options: ChatOptions): llm.LLMStream {
    return new AnthropicStream(this, options.chatCtx, options.toolCtx, options.connOptions ?? DEFAULT_API_CONNECT_OPTIONS);
  }
}

/** The Messages API takes the system prompt apart from the turns, and turns must alternate user/assistant. */
export function toAnthropicRequest(endpoint: LlmEndpoint, chatCtx: llm.ChatContext): Record<string, unknown> {
  const system: string[] = [];
  const messages: Array<{ role: 'user' | 'assistant'; content: string }> = [];
  for (const item of chatCtx.items) {
    if (item.type !== 'message') continue;
    const text = item.textContent ?? '';
    if (item.role === 'system' || item.role === 'developer') {
      if (text) system.push(text);
      continue;
    }
    const role = item.role === 'assistant' ? 'assistant' : 'user';
    const last = messages[messages.length - 1];
    if (last && last.role === role) last.content = `${last.content}\n${text}`;
    else messages.push({ role, content: text });
  }
  // The API requires the first turn to be the user's; an assistant's opening line is carried as context.
  if (messages[0]?.role === 'assistant') messages.unshift({ role: 'user', content: '(call connected)' });
  const s = endpoint.sampling;
  return {
    model: endpoint.model,
    max_tokens: s.maxTokens,
    temperature: Math.min(s.temperature, 1),
    top_p: s.topP,
    ...(s.stopSequences.length > 0 ? { stop_sequences: s.stopSequences } : {}),
    ...(system.length > 0 ? { system: system.join('\n\n') } : {}),
    messages,
    stream: true,
    ...endpoint.customConfig,
  };
}

class AnthropicStream extends llm.LLMStream {
  readonly #owner: AnthropicLLM;

  constructor(owner: AnthropicLLM, chatCtx: llm.ChatContext, toolCtx: ChatOptions['toolCtx'], connOptions: APIConnectOptions) {
    super(owner, { chatCtx, toolCtx, connOptions });
    this.#owner = owner;
  }

  protected async run(): Promise<void> {
    const endpoint = this.#owner.endpoint;
    const url = `${(endpoint.baseUrl ?? ANTHROPIC_BASE_URL).replace(/\/$/, '')}/v1/messages`;
    const signal = AbortSignal.any([this.abortController.signal, AbortSignal.timeout(this._connOptions.timeoutMs)]);
    let response: Response;
    try {
      response = await vendorFetch(endpoint.targets ?? NO_PRIVATE_VENDOR_HOSTS)(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': endpoint.apiKey, 'anthropic-version': ANTHROPIC_VERSION },
        body: JSON.stringify(toAnthropicRequest(endpoint, this.chatCtx)),
        signal,
      });
    } catch (error) {
      if (this.abortController.signal.aborted) return;
      throw new APIConnectionError({ message: 'anthropic request failed to connect', options: { retryable: true } });
    }
    const requestId = response.headers.get('request-id');
    if (!response.ok || !response.body) {
      const body = await response.text().catch(() => '');
      let message = `anthropic returned ${response.status}`;
      try {
        message = (JSON.parse(body) as { error?: { message?: string } }).error?.message ?? message;
      } catch {
        // Keep the status line: the body was not the documented JSON error.
      }
      // 408, 409, 429 and 5xx are transient by Anthropic's own guidance; other 4xx are the request's fault.
      const retryable = response.status === 408 || response.status === 409 || response.status === 429 || response.status >= 500;
      throw new APIStatusError({ message, options: { statusCode: response.status, requestId, retryable } });
    }
    const id = shortuuid('anthropic_');
    let promptTokens = 0;
    try {
      for await (const { event, data } of readSse(response.body)) {
        const payload = JSON.parse(data) as Record<string, any>;
        if (event === 'message_start') {
          promptTokens = payload.message?.usage?.input_tokens ?? 0;
        } else if (event === 'content_block_delta' && payload.delta?.type === 'text_delta') {
          this.queue.put({ id, delta: { role: 'assistant', content: String(payload.delta.text) } });
        } else if (event === 'message_delta' && payload.usage) {
          const completionTokens = Number(payload.usage.output_tokens ?? 0);
          this.queue.put({ id, usage: { completionTokens, promptTokens, promptCachedTokens: 0, totalTokens: promptTokens + completionTokens } });
        } else if (event === 'error') {
          const type = String(payload.error?.type ?? 'api_error');
          throw new APIStatusError({
            message: String(payload.error?.message ?? 'anthropic stream error'),
            options: { statusCode: type === 'overloaded_error' ? 529 : 500, requestId, retryable: true },
          });
        } else if (event === 'message_stop') {
          break;
        }
      }
    } catch (error) {
      if (this.abortController.signal.aborted) return;
      if (error instanceof APIStatusError) throw error;
      throw new APIConnectionError({ message: 'anthropic stream interrupted', options: { retryable: true } });
    }
  }
}
