import { llm } from '@livekit/agents';
import type { AssistantSettings } from '../../modules/assistants/index.js';
import type { UsageOut } from '../../modules/test-runs/index.js';
import { createLlm, type LlmEndpoint, type Sampling } from '../providers/llm-providers.js';
import type { VendorAccess } from '../providers/speech-providers.js';
import { llmEndpoints } from '../call/session-config.js';

// The models a test run uses besides the assistant's: the simulated user's and the judge's. Each is named by vendor and
// model, or defaults to the assistant's own; built through the same vendor table as the assistant's LLM, so any vendor
// a call can use can play the user or judge.

export type ModelRef = { provider: LlmEndpoint['provider']; model: string } | null;

/**
 * One completion may take this long: a model answering a line of dialogue or a yes/no question takes a few seconds;
 * 30 s is a vendor that is down.
 */
export const COMPLETION_TIMEOUT_MS = 30_000;

export const emptyUsage = (): UsageOut => ({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, requests: 0 });

export function addUsage(into: UsageOut, more: UsageOut): void {
  into.prompt_tokens += more.prompt_tokens;
  into.completion_tokens += more.completion_tokens;
  into.total_tokens += more.total_tokens;
  into.requests += more.requests;
}

/**
 * The endpoint of `ref`: the assistant's primary endpoint with another model when the vendor is the assistant's own
 * (its base URL and key carry over: a `custom` server stays the same server), else the deployment's key for the vendor.
 */
export function endpointOf(ref: ModelRef, settings: AssistantSettings, access: VendorAccess, sampling: Partial<Sampling>): LlmEndpoint {
  const primary = llmEndpoints(settings, access)[0]!;
  const tuned = { ...primary.sampling, frequencyPenalty: 0, presencePenalty: 0, stopSequences: [], ...sampling };
  if (ref === null) return { ...primary, sampling: tuned };
  if (ref.provider === primary.provider) return { ...primary, model: ref.model, sampling: tuned };
  return {
    provider: ref.provider,
    model: ref.model,
    apiKey: access.apiKey(ref.provider),
    baseUrl: access.baseUrl(ref.provider),
    sampling: tuned,
    customConfig: {},
    targets: access.targets,
  };
}

export function modelOf(ref: ModelRef, settings: AssistantSettings, access: VendorAccess, sampling: Partial<Sampling>): Promise<llm.LLM> {
  return createLlm(endpointOf(ref, settings, access, sampling));
}

/** The model's text answer to a chat, with its token usage; bounded by COMPLETION_TIMEOUT_MS and `signal`. */
export async function complete(model: llm.LLM, chatCtx: llm.ChatContext, signal: AbortSignal): Promise<{ text: string; usage: UsageOut }> {
  const stream = model.chat({ chatCtx });
  const usage = emptyUsage();
  usage.requests = 1;
  const abort = () => stream.close();
  const timer = setTimeout(abort, COMPLETION_TIMEOUT_MS);
  signal.addEventListener('abort', abort, { once: true });
  let text = '';
  try {
    for await (const chunk of stream) {
      if (chunk.delta?.content) text += chunk.delta.content;
      if (chunk.usage) {
        usage.prompt_tokens += chunk.usage.promptTokens;
        usage.completion_tokens += chunk.usage.completionTokens;
        usage.total_tokens += chunk.usage.totalTokens;
      }
    }
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', abort);
    stream.close();
  }
  if (signal.aborted) throw new Error('the run was stopped');
  return { text: text.trim(), usage };
}
