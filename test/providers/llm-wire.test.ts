import { APIConnectionError, APIStatusError, initializeLogger } from '@livekit/agents';
import { describe, expect } from 'vitest';
import { llmConformance, sse } from '../conformance/llm.js';

// Each LLM vendor's wire format against a fake on 127.0.0.1 that speaks it: the request the vendor documents (path,
// auth header, model, sampling, messages), its streamed answer, and its error bodies.

initializeLogger({ pretty: false, level: 'silent' });

describe('Anthropic Messages API', () => {
  llmConformance({
    provider: 'anthropic',
    model: 'claude-x',
    answer: (_req, res) =>
      sse(res, [
        {
          event: 'message_start',
          data: {
            type: 'message_start',
            message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'claude-x', usage: { input_tokens: 12, output_tokens: 1 } },
          },
        },
        { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'It is ' } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'noon.' } } },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
        { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 4 } } },
        { event: 'message_stop', data: { type: 'message_stop' } },
      ]),
    checkRequest(req) {
      expect(req.path).toBe('/v1/messages');
      expect(req.headers['x-api-key']).toBe('vendor-key');
      expect(req.headers['anthropic-version']).toBeTruthy();
      expect(req.json).toMatchObject({
        model: 'claude-x',
        stream: true,
        system: 'You are brief.',
        max_tokens: 128,
        temperature: 0.3,
        stop_sequences: ['END'],
        messages: [{ role: 'user', content: 'What time is it?' }],
      });
    },
    // Overloaded.
    error: {
      status: 529,
      body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      check(error) {
        expect(error).toBeInstanceOf(APIStatusError);
        expect((error as APIStatusError).statusCode).toBe(529);
      },
    },
  });
});

describe('Groq (OpenAI-compatible chat completions)', () => {
  llmConformance({
    provider: 'groq',
    model: 'llama',
    answer: (_req, res) =>
      sse(res, [
        {
          data: {
            id: 'c1',
            object: 'chat.completion.chunk',
            created: 1,
            model: 'llama',
            choices: [{ index: 0, delta: { role: 'assistant', content: 'It is ' }, finish_reason: null }],
          },
        },
        {
          data: {
            id: 'c1',
            object: 'chat.completion.chunk',
            created: 1,
            model: 'llama',
            choices: [{ index: 0, delta: { content: 'noon.' }, finish_reason: 'stop' }],
          },
        },
        { data: '[DONE]' },
      ]),
    checkRequest(req) {
      expect(req.path).toBe('/chat/completions');
      expect(req.headers.authorization).toBe('Bearer vendor-key');
      expect(req.json).toMatchObject({
        model: 'llama',
        stream: true,
        temperature: 0.3,
        top_p: 0.9,
        frequency_penalty: 0.1,
        presence_penalty: 0.2,
        stop: ['END'],
      });
    },
    error: {
      status: 401,
      body: { error: { message: 'Invalid API Key', type: 'invalid_request_error', code: 'invalid_api_key' } },
      check(error) {
        expect(error).toBeInstanceOf(APIStatusError);
        expect((error as APIStatusError).statusCode).toBe(401);
        expect((error as APIStatusError).retryable).toBe(false);
      },
    },
  });
});

describe('Mistral Conversations API', () => {
  llmConformance({
    provider: 'mistral',
    model: 'mistral-small',
    answer: (_req, res) =>
      sse(res, [
        {
          event: 'conversation.response.started',
          data: { type: 'conversation.response.started', conversation_id: 'conv_1', created_at: '2026-11-22T00:00:00Z' },
        },
        {
          event: 'message.output.delta',
          data: {
            type: 'message.output.delta',
            id: 'msg_1',
            output_index: 0,
            content_index: 0,
            model: 'mistral-small',
            role: 'assistant',
            content: 'It is ',
            created_at: '2026-11-22T00:00:00Z',
          },
        },
        {
          event: 'message.output.delta',
          data: {
            type: 'message.output.delta',
            id: 'msg_1',
            output_index: 0,
            content_index: 0,
            model: 'mistral-small',
            role: 'assistant',
            content: 'noon.',
            created_at: '2026-11-22T00:00:00Z',
          },
        },
        {
          event: 'conversation.response.done',
          data: {
            type: 'conversation.response.done',
            usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 },
            created_at: '2026-11-22T00:00:00Z',
          },
        },
      ]),
    checkRequest(req) {
      expect(req.path).toBe('/v1/conversations');
      expect(req.headers.authorization).toBe('Bearer vendor-key');
      expect(req.json).toMatchObject({
        model: 'mistral-small',
        stream: true,
        instructions: 'You are brief.',
        completion_args: { temperature: 0.3, top_p: 0.9, max_tokens: 128 },
      });
    },
    error: {
      status: 429,
      body: { object: 'error', message: 'Rate limit exceeded', type: 'rate_limited', code: '1300' },
      check(error) {
        expect(error).toBeInstanceOf(APIStatusError);
        expect((error as APIStatusError).statusCode).toBe(429);
      },
    },
  });
});

describe('Google Gemini', () => {
  llmConformance({
    provider: 'google',
    model: 'gemini-x',
    answer: (_req, res) =>
      sse(res, [
        { data: { candidates: [{ content: { role: 'model', parts: [{ text: 'It is ' }] }, index: 0 }] } },
        {
          data: {
            candidates: [{ content: { role: 'model', parts: [{ text: 'noon.' }] }, finishReason: 'STOP', index: 0 }],
            usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 4, totalTokenCount: 14 },
          },
        },
      ]),
    checkRequest(req) {
      expect(req.path).toMatch(/\/models\/gemini-x:streamGenerateContent\?alt=sse$/);
      expect(req.headers['x-goog-api-key']).toBe('vendor-key');
      expect(req.json).toMatchObject({ generationConfig: { temperature: 0.3, topP: 0.9, maxOutputTokens: 128 } });
      expect(JSON.stringify(req.json)).toContain('What time is it?');
    },
    error: {
      status: 400,
      body: { error: { code: 400, message: 'API key not valid', status: 'INVALID_ARGUMENT' } },
      check(error) {
        // The Google plugin reports every API failure as a connection-class error carrying the vendor's message.
        expect(error).toBeInstanceOf(APIConnectionError);
        expect((error as Error).message).toContain('API key not valid');
      },
    },
  });
});
