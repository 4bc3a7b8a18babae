import crypto from 'node:crypto';
import dns from 'node:dns/promises';
import os from 'node:os';
import { describe, expect } from 'vitest';
import { SecretBox } from '../../lib/secret-box.js';
import { createTool } from '../../modules/tools/service.js';
import { dbTest } from '../helpers/fixtures.js';
import { startFakeOpenAI } from '../fakes/vendors/openai.js';
import { eventsOf, startFakeOpenAIRealtime, type RealtimeReply, type ResponseRequest } from '../fakes/vendors/openai-realtime.js';
import { afterReply, createCall, localSettings, runTimeline, runtimeOrganization, whileSpeaking } from './call-harness.js';

// Whole calls on OpenAI's speech-to-speech model (realtime_settings), against a fake of its Realtime WebSocket: no
// recogniser or voice of ours runs; the vendor's VAD takes the turns, its transcription gives the caller's side of the
// transcript, and its tokens are the call's usage. The text model (the chat-completions fake) writes the analysis.

const KEY = 'sk-realtime-test-key';
const secrets = new SecretBox(crypto.randomBytes(32));
const ANALYSIS = JSON.stringify({ summary: 'The caller asked the time.', goal_achieved: true, sentiment: 'neutral', fields: {} });

/** What a `response.create` asked the model to say word for word (agent/call/speak.ts), if that is what it asked. */
function verbatimOf(request: ResponseRequest): string | undefined {
  const match = /word for word, and nothing else: ("(?:[^"\\]|\\.)*")/.exec(request.instructions ?? '');
  return match ? (JSON.parse(match[1]!) as string) : undefined;
}

const it = dbTest.extend('llm', { scope: 'file' }, async ({}, { onCleanup }) => {
  const llm = await startFakeOpenAI(() => ({ text: ANALYSIS }));
  onCleanup(() => llm.close());
  return llm;
});

function realtimeSettings(llmUrl: string, baseUrl: string, overrides: Record<string, unknown> = {}) {
  return localSettings(llmUrl, {
    realtime_settings: { enabled: true, provider: 'openai', model: 'gpt-realtime', voice: 'cedar', base_url: baseUrl },
    llm_settings: { system_prompt: 'You are the front desk of a dental clinic.', welcome_message: 'Hello, this is the clinic.' },
    ...overrides,
  });
}

const env = { OPENAI_API_KEY: KEY };

describe("a call on OpenAI's speech-to-speech model", () => {
  it('says the welcome, hears the caller through the vendor, answers, and stores both sides in spoken order with latency, usage and cost', async ({
    db,
    llm,
  }) => {
    const fake = await startFakeOpenAIRealtime({
      apiKey: KEY,
      heard: (turn) => ['what time is it'][turn] ?? '',
      reply: (request): RealtimeReply => ({ text: verbatimOf(request) ?? 'It is noon.' }),
    });
    try {
      const call = await createCall(db.prisma, realtimeSettings(llm.url, fake.baseUrl));
      const run = await runTimeline(db.prisma, call.id, [{ after: afterReply(1), atMs: 500, text: 'what time is it' }], {
        hangupWhen: afterReply(2),
        env,
      });
      expect(run.result.status).toBe('completed');

      // The session as configured: the model, the voice, the prompt, the vendor's VAD and its transcription.
      const session = fake.session() as Record<string, any>;
      expect(fake.connections[0]!.url.searchParams.get('model')).toBe('gpt-realtime');
      expect(fake.connections[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(session.audio.output.voice).toBe('cedar');
      expect(session.audio.input.format).toEqual({ type: 'audio/pcm', rate: 24_000 });
      expect(session.audio.input.turn_detection).toMatchObject({ type: 'server_vad', silence_duration_ms: 300, create_response: true });
      expect(session.audio.input.transcription).toMatchObject({ model: 'gpt-4o-mini-transcribe', language: 'en' });
      expect(session.instructions).toContain('front desk of a dental clinic');
      // The caller's audio reached the vendor at its rate: about as long as the call, not two thirds of it.
      expect(fake.audioMs()).toBeGreaterThan(1_500);

      // The welcome was asked for word for word; the caller's turn was answered by the vendor's own response.
      expect(fake.requests.map((r) => r.trigger)).toEqual(['client', 'turn']);
      expect(verbatimOf(fake.requests[0]!)).toBe('Hello, this is the clinic.');
      expect(fake.requests[1]!.heard).toBe('what time is it');

      const turns = await db.prisma.callTurn.findMany({ where: { callId: call.id }, orderBy: { position: 'asc' } });
      expect(turns.map((t) => [t.role, t.text])).toEqual([
        ['assistant', 'Hello, this is the clinic.'],
        ['user', 'what time is it'],
        ['assistant', 'It is noon.'],
      ]);
      expect(turns[1]!.startMs).toBeGreaterThanOrEqual(turns[0]!.endMs - 50);
      expect(turns[2]!.startMs).toBeGreaterThan(turns[1]!.endMs);
      const latency = turns[2]!.metrics as Record<string, number>;
      expect(latency.end_of_utterance_delay_ms).toBe(300);
      expect(latency.llm_ttft_ms).toBeGreaterThanOrEqual(0);
      expect(latency.e2e_latency_ms).toBeGreaterThanOrEqual(300);

      // Tokens as the vendor reported them in each response.done, audio apart, priced at the audio rates.
      const reported = eventsOf(fake.serverEvents(), 'response.done').map((e) => (e.response as { usage: Record<string, any> }).usage);
      const sum = (of: (u: Record<string, any>) => number) => reported.reduce((n, u) => n + of(u), 0);
      const stored = await db.prisma.call.findUniqueOrThrow({ where: { id: call.id } });
      const usage = stored.usage as Record<string, any>;
      expect(usage.stt).toEqual([]);
      expect(usage.tts).toEqual([]);
      const realtime = usage.llm.find((u: { model: string }) => u.model === 'gpt-realtime');
      expect(realtime).toEqual({
        provider: 'openai',
        model: 'gpt-realtime',
        input_tokens: sum((u) => u.input_tokens),
        output_tokens: sum((u) => u.output_tokens),
        cached_input_tokens: 0,
        input_audio_tokens: sum((u) => u.input_token_details.audio_tokens),
        output_audio_tokens: sum((u) => u.output_token_details.audio_tokens),
      });
      expect(realtime.input_audio_tokens).toBeGreaterThan(0);
      expect(realtime.output_audio_tokens).toBeGreaterThan(0);
      const cost = stored.cost as { lines: Array<Record<string, any>> };
      const lines = cost.lines.filter((l) => l.model === 'gpt-realtime');
      expect(lines.find((l) => l.unit === 'output_audio_token')).toMatchObject({ quantity: realtime.output_audio_tokens, unit_price: 64 / 1e6 });
      expect(lines.find((l) => l.unit === 'input_audio_token')).toMatchObject({ quantity: realtime.input_audio_tokens, unit_price: 32 / 1e6 });
      expect(lines.find((l) => l.unit === 'output_token')).toMatchObject({
        quantity: realtime.output_tokens - realtime.output_audio_tokens,
        unit_price: 16 / 1e6,
      });
      // The analysis ran on the text model, over the transcript.
      expect(stored.summary).toBe('The caller asked the time.');
    } finally {
      await fake.close();
    }
  }, 120_000);

  it('calls a tool the model asks for, gives it the output, and ends the call with the end-call tool', async ({ db, llm }) => {
    const organizationId = await runtimeOrganization(db.prisma);
    const endCall = await createTool({ db: db.prisma, secrets, policy: { allowPrivateTargets: true } }, organizationId, {
      name: 'end_call',
      description: 'Ends the call once the caller is done',
      type: 'end_call',
      enabled: true,
      parameters: { type: 'object', properties: {} },
      http: null,
      transfer: null,
      messages: { on_start: null, on_slow: null, slow_after_ms: 2_000, on_failure: null },
    });
    const fake = await startFakeOpenAIRealtime({
      apiKey: KEY,
      heard: (turn) => ['thank you'][turn] ?? '',
      reply: (request): RealtimeReply => {
        const said = verbatimOf(request);
        if (said) return { text: said };
        if (request.toolOutputs.length > 0) return { text: 'Goodbye.' };
        return { toolCalls: [{ name: 'end_call', arguments: '{}' }] };
      },
    });
    try {
      const call = await createCall(db.prisma, realtimeSettings(llm.url, fake.baseUrl, { assigned_tools: [endCall.id] }));
      // No hang-up: the assistant ends the call.
      const run = await runTimeline(db.prisma, call.id, [{ after: afterReply(1), atMs: 500, text: 'thank you' }], { env, secrets });
      expect(run.result.status).toBe('completed');
      expect(run.result.endReason).toBe('assistant_ended_call');

      const tools = (fake.session() as { tools: Array<{ name: string; type: string }> }).tools;
      expect(tools.map((t) => [t.type, t.name])).toContainEqual(['function', 'end_call']);
      // The function's output went back to the vendor as a function_call_output item.
      const outputs = eventsOf(fake.clientEvents(), 'conversation.item.create').filter((e) => (e.item as { type: string }).type === 'function_call_output');
      expect(outputs).toHaveLength(1);
      const turns = await db.prisma.callTurn.findMany({ where: { callId: call.id }, orderBy: { position: 'asc' } });
      const calls = turns.flatMap((t) => (t.toolCalls as Array<{ name: string; is_error: boolean }> | null) ?? []);
      expect(calls).toEqual([expect.objectContaining({ name: 'end_call', is_error: false })]);
      expect(turns.filter((t) => t.role === 'user').map((t) => t.text)).toEqual(['thank you']);
    } finally {
      await fake.close();
    }
  }, 120_000);

  it('stops its reply when the caller talks over it, truncates the item where the playout stopped, and marks the turn interrupted', async ({ db, llm }) => {
    const long = 'Our clinic opens at eight in the morning on weekdays and at nine on Saturdays, and we close at six every evening except Sundays.';
    const fake = await startFakeOpenAIRealtime({
      apiKey: KEY,
      heard: (turn) => ['book an appointment', 'stop'][turn] ?? '',
      reply: (request): RealtimeReply => ({ text: verbatimOf(request) ?? (request.heard === 'stop' ? 'Of course.' : long) }),
    });
    try {
      const call = await createCall(db.prisma, realtimeSettings(llm.url, fake.baseUrl));
      const run = await runTimeline(
        db.prisma,
        call.id,
        [
          { after: afterReply(1), atMs: 500, text: 'book an appointment' },
          // A second into the long answer the caller speaks over it.
          { after: whileSpeaking(2), atMs: 1_000, text: 'stop' },
        ],
        { hangupWhen: afterReply(3), env },
      );
      expect(run.result.status).toBe('completed');

      const truncates = eventsOf(fake.clientEvents(), 'conversation.item.truncate');
      expect(truncates).toHaveLength(1);
      const played = truncates[0]!.audio_end_ms as number;
      // Cut a second or so in: far short of the answer's length (400 ms a word).
      expect(played).toBeGreaterThan(0);
      expect(played).toBeLessThan(long.split(' ').length * 400 - 2_000);
      const turns = await db.prisma.callTurn.findMany({ where: { callId: call.id }, orderBy: { position: 'asc' } });
      const cut = turns.find((t) => t.role === 'assistant' && t.interrupted)!;
      expect(long.startsWith(cut.text.replace(/…$/, '').trim()) || long.includes(cut.text.trim())).toBe(true);
      expect(cut.text.length).toBeLessThan(long.length);
      expect(turns.map((t) => t.role)).toEqual(['assistant', 'user', 'assistant', 'user', 'assistant']);
      expect(turns.at(-1)!.text).toBe('Of course.');
    } finally {
      await fake.close();
    }
  }, 120_000);

  it('says an idle prompt through the model when the caller stays silent', async ({ db, llm }) => {
    const fake = await startFakeOpenAIRealtime({ apiKey: KEY, reply: (request): RealtimeReply => ({ text: verbatimOf(request) ?? 'Yes?' }) });
    try {
      const call = await createCall(
        db.prisma,
        realtimeSettings(llm.url, fake.baseUrl, { idle_timeout: 1, max_idle_messages: 1, idle_message: 'Are you still with me?' }),
      );
      // The caller never speaks: one prompt, then the goodbye, then the call ends itself.
      const run = await runTimeline(db.prisma, call.id, [], { env });
      expect(run.result).toMatchObject({ status: 'completed', endReason: 'idle_timeout' });
      const said = fake.requests.map(verbatimOf);
      expect(said.slice(0, 2)).toEqual(['Hello, this is the clinic.', 'Are you still with me?']);
      expect(said).toHaveLength(3);
      const turns = await db.prisma.callTurn.findMany({ where: { callId: call.id }, orderBy: { position: 'asc' } });
      expect(turns.map((t) => t.text).slice(0, 2)).toEqual(['Hello, this is the clinic.', 'Are you still with me?']);
    } finally {
      await fake.close();
    }
  }, 120_000);

  it('ends missing_credentials without connecting when the vendor key is not set', async ({ db, llm }) => {
    const fake = await startFakeOpenAIRealtime({ apiKey: KEY });
    try {
      const call = await createCall(db.prisma, realtimeSettings(llm.url, fake.baseUrl));
      const run = await runTimeline(db.prisma, call.id, [{ atMs: 500, text: 'good morning' }], { env: { OPENAI_API_KEY: '' } });
      expect(run.result).toMatchObject({ status: 'failed', endReason: 'missing_credentials' });
      expect(fake.connections).toHaveLength(0);
    } finally {
      await fake.close();
    }
  }, 60_000);

  it('ends vendor_target_refused without connecting when base_url resolves inside and the host is not allowed', async ({ db, llm }) => {
    const fake = await startFakeOpenAIRealtime({ apiKey: KEY });
    try {
      // The machine's own host name passes the check at create (a name, not an address) and resolves inside.
      const name = os.hostname();
      expect((await dns.lookup(name, { all: true })).length).toBeGreaterThan(0);
      const url = new URL(fake.baseUrl);
      url.hostname = name;
      const call = await createCall(db.prisma, realtimeSettings(llm.url, url.href));
      const run = await runTimeline(db.prisma, call.id, [{ atMs: 500, text: 'good morning' }], { env: { ...env, VENDOR_PRIVATE_HOSTS: '' } });
      expect(run.result).toMatchObject({ status: 'failed', endReason: 'vendor_target_refused' });
      expect(fake.connections).toHaveLength(0);
    } finally {
      await fake.close();
    }
  }, 60_000);
});
