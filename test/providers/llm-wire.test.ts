import { APIConnectionError, APIStatusError, initializeLogger, llm } from '@livekit/agents';
import type http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createLlm, type LlmEndpoint } from '../../agent/providers/llm-providers.js';
import { startHttpServer, type FakeServer, type RecordedRequest } from '../fakes/http-server.js';

// Each LLM vendor's wire format against a fake on 127.0.0.1 that speaks it: the request the vendor documents (path,
// auth header, model, sampling, messages), its streamed answer, and its error bodies.

initializeLogger({ pretty: false, level: 'silent' });

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const sampling = { temperature: 0.3, topP: 0.9, maxTokens: 128, frequencyPenalty: 0.1, presencePenalty: 0.2, stopSequences: ['END'] };

function endpoint(provider: LlmEndpoint['provider'], baseUrl: string, model: string): LlmEndpoint {
  return { provider, model, apiKey: 'vendor-key', baseUrl, sampling, customConfig: {} };
}

function sse(res: http.ServerResponse, events: Array<{ event?: string; data: unknown }>) {
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

const only = (): RecordedRequest => server!.requests[0]!;

describe('Anthropic Messages API', () => {
  it('streams text deltas from POST /v1/messages with the key, version, system prompt and sampling', async () => {
    server = await startHttpServer((_req, res) =>
      sse(res, [
        { event: 'message_start', data: { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'claude-x', usage: { input_tokens: 12, output_tokens: 1 } } } },
        { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'It is ' } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'noon.' } } },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
        { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 4 } } },
        { event: 'message_stop', data: { type: 'message_stop' } },
      ]),
    );
    expect(await reply(createLlm(endpoint('anthropic', server.url, 'claude-x')))).toBe('It is noon.');
    const req = only();
    expect(req.path).toBe('/v1/messages');
    expect(req.headers['x-api-key']).toBe('vendor-key');
    expect(req.headers['anthropic-version']).toBeTruthy();
    expect(req.json).toMatchObject({ model: 'claude-x', stream: true, system: 'You are brief.', max_tokens: 128, temperature: 0.3, stop_sequences: ['END'], messages: [{ role: 'user', content: 'What time is it?' }] });
  });

  it('surfaces an overloaded (529) answer as an API status error, so a fallback can take over', async () => {
    server = await startHttpServer((_req, res) => {
      res.writeHead(529, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
    });
    const error = await failure(createLlm(endpoint('anthropic', server.url, 'claude-x')));
    expect(error).toBeInstanceOf(APIStatusError);
    expect((error as APIStatusError).statusCode).toBe(529);
  });
});

describe('Groq (OpenAI-compatible chat completions)', () => {
  it('streams chunks from POST /chat/completions with a bearer key and every sampling field', async () => {
    server = await startHttpServer((_req, res) =>
      sse(res, [
        { data: { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'llama', choices: [{ index: 0, delta: { role: 'assistant', content: 'It is ' }, finish_reason: null }] } },
        { data: { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'llama', choices: [{ index: 0, delta: { content: 'noon.' }, finish_reason: 'stop' }] } },
        { data: '[DONE]' },
      ]),
    );
    expect(await reply(createLlm(endpoint('groq', server.url, 'llama')))).toBe('It is noon.');
    const req = only();
    expect(req.path).toBe('/chat/completions');
    expect(req.headers.authorization).toBe('Bearer vendor-key');
    expect(req.json).toMatchObject({ model: 'llama', stream: true, temperature: 0.3, top_p: 0.9, frequency_penalty: 0.1, presence_penalty: 0.2, stop: ['END'] });
  });

  it('surfaces a 401 as a non-retryable API status error', async () => {
    server = await startHttpServer((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'Invalid API Key', type: 'invalid_request_error', code: 'invalid_api_key' } }));
    });
    const error = await failure(createLlm(endpoint('groq', server.url, 'llama')));
    expect(error).toBeInstanceOf(APIStatusError);
    expect((error as APIStatusError).statusCode).toBe(401);
    expect((error as APIStatusError).retryable).toBe(false);
  });
});

describe('Mistral Conversations API', () => {
  it('streams message.output.delta events from POST /v1/conversations with a bearer key and completion args', async () => {
    server = await startHttpServer((_req, res) =>
      sse(res, [
        { event: 'conversation.response.started', data: { type: 'conversation.response.started', conversation_id: 'conv_1', created_at: '2026-11-22T00:00:00Z' } },
        { event: 'message.output.delta', data: { type: 'message.output.delta', id: 'msg_1', output_index: 0, content_index: 0, model: 'mistral-small', role: 'assistant', content: 'It is ', created_at: '2026-11-22T00:00:00Z' } },
        { event: 'message.output.delta', data: { type: 'message.output.delta', id: 'msg_1', output_index: 0, content_index: 0, model: 'mistral-small', role: 'assistant', content: 'noon.', created_at: '2026-11-22T00:00:00Z' } },
        { event: 'conversation.response.done', data: { type: 'conversation.response.done', usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 }, created_at: '2026-11-22T00:00:00Z' } },
      ]),
    );
    expect(await reply(createLlm(endpoint('mistral', server.url, 'mistral-small')))).toBe('It is noon.');
    const req = only();
    expect(req.path).toBe('/v1/conversations');
    expect(req.headers.authorization).toBe('Bearer vendor-key');
    expect(req.json).toMatchObject({ model: 'mistral-small', stream: true, instructions: 'You are brief.', completion_args: { temperature: 0.3, top_p: 0.9, max_tokens: 128 } });
  });

  it('surfaces a 429 as an API status error', async () => {
    server = await startHttpServer((_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'error', message: 'Rate limit exceeded', type: 'rate_limited', code: '1300' }));
    });
    const error = await failure(createLlm(endpoint('mistral', server.url, 'mistral-small')));
    expect(error).toBeInstanceOf(APIStatusError);
    expect((error as APIStatusError).statusCode).toBe(429);
  });
});

describe('Google Gemini', () => {
  it('streams candidates from streamGenerateContent?alt=sse with the key and generation config', async () => {
    server = await startHttpServer((_req, res) =>
      sse(res, [
        { data: { candidates: [{ content: { role: 'model', parts: [{ text: 'It is ' }] }, index: 0 }] } },
        { data: { candidates: [{ content: { role: 'model', parts: [{ text: 'noon.' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 4, totalTokenCount: 14 } } },
      ]),
    );
    expect(await reply(createLlm(endpoint('google', server.url, 'gemini-x')))).toBe('It is noon.');
    const req = only();
    expect(req.path).toMatch(/\/models\/gemini-x:streamGenerateContent\?alt=sse$/);
    expect(req.headers['x-goog-api-key']).toBe('vendor-key');
    expect(req.json).toMatchObject({ generationConfig: { temperature: 0.3, topP: 0.9, maxOutputTokens: 128 } });
    expect(JSON.stringify(req.json)).toContain('What time is it?');
  });

  it('surfaces an error body as an API error', async () => {
    server = await startHttpServer((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 400, message: 'API key not valid', status: 'INVALID_ARGUMENT' } }));
    });
    const error = await failure(createLlm(endpoint('google', server.url, 'gemini-x')));
    // The Google plugin reports every API failure as a connection-class error carrying the vendor's message.
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toContain('API key not valid');
  });
});
