import { APIError, llm } from '@livekit/agents';
import type http from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { createLlm, type LlmEndpoint } from '../../agent/providers/llm-providers.js';
import { startHttpServer, type FakeServer, type RecordedRequest } from '../fakes/http-server.js';
import { NO_PRIVATE_VENDOR_HOSTS } from '../../lib/net/vendor-targets.js';
import { LOOPBACK_VENDOR_HOSTS } from '../helpers/vendor-hosts.js';

// What every LLM vendor does against a fake on 127.0.0.1 that speaks its wire format: the reply streamed back from
// the request the vendor documents, and an error answer reported as an API error, which is what the session and the
// fallback adapter act on. The vendor's test says what its request, its stream and its errors look like.

/** The assistant's sampling settings, each of which the vendor's request must carry in its own spelling. */
export const SAMPLING = { temperature: 0.3, topP: 0.9, maxTokens: 128, frequencyPenalty: 0.1, presencePenalty: 0.2, stopSequences: ['END'] };

export interface LlmTarget {
  provider: LlmEndpoint['provider'];
  model: string;
  /** The vendor's stream of a reply saying "It is " then "noon.". */
  answer(req: RecordedRequest, res: http.ServerResponse): void;
  /** The request the vendor documents: path, key header, model, sampling and the conversation. */
  checkRequest(req: RecordedRequest): void;
  /** An error answer, and what the error reported for it must be. */
  error: { status: number; body: unknown; check(error: unknown): void };
}

/** Server-sent events as vendors stream them. */
export function sse(res: http.ServerResponse, events: Array<{ event?: string; data: unknown }>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const e of events) res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`);
  res.end();
}

async function reply(model: llm.LLM): Promise<string> {
  const chatCtx = llm.ChatContext.empty();
  chatCtx.addMessage({ role: 'system', content: 'You are brief.' });
  chatCtx.addMessage({ role: 'user', content: 'What time is it?' });
  let text = '';
  const stream = model.chat({ chatCtx, connOptions: { maxRetry: 0, retryIntervalMs: 100, timeoutMs: 5000 } });
  for await (const chunk of stream) text += chunk.delta?.content ?? '';
  return text;
}

/** The error the LLM reports (its `error` event, which the session and the fallback adapter act on). */
async function failure(model: llm.LLM): Promise<unknown> {
  let reported: unknown = new Error('no error');
  model.on('error', (ev: { error: unknown }) => (reported = ev.error));
  await reply(model).catch(() => {});
  return reported;
}

/** Registers the shared scenarios, in the calling describe, for the vendor `target` describes. */
export function llmConformance(target: LlmTarget): void {
  let server: FakeServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const model = (url: string, targets = LOOPBACK_VENDOR_HOSTS) =>
    createLlm({ provider: target.provider, model: target.model, apiKey: 'vendor-key', baseUrl: url, sampling: SAMPLING, customConfig: {}, targets });

  it('streams the reply to the request the vendor documents: its path, key, model and sampling', async () => {
    server = await startHttpServer(target.answer);
    expect(await reply(await model(server.url))).toBe('It is noon.');
    target.checkRequest(server.requests[0]!);
  });

  it('surfaces an error answer as an API error, so a fallback can take over', async () => {
    server = await startHttpServer((_req, res) => {
      res.writeHead(target.error.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(target.error.body));
    });
    const error = await failure(await model(server.url));
    expect(error).toBeInstanceOf(APIError);
    target.error.check(error);
  });

  it('connects to no loopback server the operator has not allowed: the vendor key never leaves', async () => {
    server = await startHttpServer(target.answer);
    const error = await failure(await model(server.url, NO_PRIVATE_VENDOR_HOSTS));
    expect(error).toBeInstanceOf(Error);
    expect(server.requests).toHaveLength(0);
  });
}
