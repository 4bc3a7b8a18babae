import crypto from 'node:crypto';
import dns from 'node:dns/promises';
import os from 'node:os';
import { describe, expect } from 'vitest';
import { SecretBox } from '../../lib/secret-box.js';
import { createTool } from '../../modules/tools/service.js';
import { dbTest } from '../helpers/fixtures.js';
import { startFakeOpenAI } from '../fakes/vendors/openai.js';
import { startFakeGeminiLive, type GeminiReply, type GeminiRequest } from '../fakes/vendors/gemini-live.js';
import { afterReply, createCall, localSettings, runTimeline, runtimeOrganization, whileSpeaking } from './call-harness.js';

// Whole calls on Google's speech-to-speech model (Gemini Live), against a fake of the Live API's WebSocket: the
// server's VAD takes the turns, its transcriptions give both sides of the transcript, and its usageMetadata is the
// call's usage. The same scenarios as OpenAI's (call-realtime.test.ts).

const KEY = 'google-live-test-key';
const MODEL = 'gemini-2.5-flash-native-audio-preview-12-2025';
const secrets = new SecretBox(crypto.randomBytes(32));
const ANALYSIS = JSON.stringify({ summary: 'The caller asked the time.', goal_achieved: true, sentiment: 'neutral', fields: {} });

/** What a reply was asked to say word for word (agent/call/speak.ts), if that is what it was asked. */
function verbatimOf(request: GeminiRequest): string | undefined {
  const match = /word for word, and nothing else: ("(?:[^"\\]|\\.)*")/.exec(request.instructions ?? '');
  return match ? (JSON.parse(match[1]!) as string) : undefined;
}

const it = dbTest.extend('llm', { scope: 'file' }, async ({}, { onCleanup }) => {
  const llm = await startFakeOpenAI(() => ({ text: ANALYSIS }));
  onCleanup(() => llm.close());
  return llm;
});

function googleSettings(llmUrl: string, baseUrl: string, overrides: Record<string, unknown> = {}) {
  return localSettings(llmUrl, {
    realtime_settings: { enabled: true, provider: 'google', model: null, voice: 'Kore', base_url: baseUrl },
    llm_settings: { system_prompt: 'You are the front desk of a dental clinic.', welcome_message: 'Hello, this is the clinic.' },
    ...overrides,
  });
}

const env = { GOOGLE_API_KEY: KEY, OPENAI_API_KEY: 'sk-analysis' };

describe("a call on Google's speech-to-speech model (Gemini Live)", () => {
  it('says the welcome, hears the caller through the vendor, answers, and stores both sides in spoken order with latency, usage and cost', async ({
    db,
    llm,
  }) => {
    const fake = await startFakeGeminiLive({
      apiKey: KEY,
      heard: (turn) => ['what time is it'][turn] ?? '',
      reply: (request): GeminiReply => ({ text: verbatimOf(request) ?? 'It is noon.' }),
    });
    try {
      const call = await createCall(db.prisma, googleSettings(llm.url, fake.baseUrl));
      const run = await runTimeline(db.prisma, call.id, [{ after: afterReply(1), atMs: 500, text: 'what time is it' }], {
        hangupWhen: afterReply(2),
        env,
      });
      expect(run.result.status).toBe('completed');

      // The setup as sent: the default model, the voice, the prompt, the server's VAD and both transcriptions.
      const setup = fake.setup();
      expect(fake.connections[0]!.url.searchParams.get('key')).toBe(KEY);
      expect(setup.model).toBe(`models/${MODEL}`);
      expect(setup.generationConfig.speechConfig.voiceConfig.prebuiltVoiceConfig.voiceName).toBe('Kore');
      expect(setup.generationConfig.responseModalities).toEqual(['AUDIO']);
      expect(setup.realtimeInputConfig).toMatchObject({
        automaticActivityDetection: { silenceDurationMs: 300 },
        activityHandling: 'START_OF_ACTIVITY_INTERRUPTS',
      });
      expect(setup.inputAudioTranscription).toEqual({});
      expect(setup.outputAudioTranscription).toEqual({});
      expect(JSON.stringify(setup.systemInstruction)).toContain('front desk of a dental clinic');
      // The caller's audio reached the vendor resampled to 16 kHz: about as long as the call.
      expect(fake.audioMs()).toBeGreaterThan(1_500);

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
      expect(turns[1]!.endMs).toBeGreaterThanOrEqual(turns[1]!.startMs);
      expect(turns[2]!.startMs).toBeGreaterThan(turns[1]!.endMs);
      const latency = turns[2]!.metrics as Record<string, number>;
      expect(latency.end_of_utterance_delay_ms).toBe(300);
      expect(latency.llm_ttft_ms).toBeGreaterThanOrEqual(0);
      expect(latency.e2e_latency_ms).toBeGreaterThanOrEqual(300);

      // Tokens as the vendor reported them with each turnComplete, audio apart, priced at Gemini Live's audio rates.
      const reported = fake.serverMessages().flatMap((m) => (m.usageMetadata ? [m.usageMetadata as Record<string, any>] : []));
      const of = (details: Array<{ modality: string; tokenCount: number }> | undefined, modality: string) =>
        (details ?? []).filter((d) => d.modality === modality).reduce((n, d) => n + d.tokenCount, 0);
      const sum = (pick: (u: Record<string, any>) => number) => reported.reduce((n, u) => n + pick(u), 0);
      const stored = await db.prisma.call.findUniqueOrThrow({ where: { id: call.id } });
      const usage = stored.usage as Record<string, any>;
      expect(usage.stt).toEqual([]);
      expect(usage.tts).toEqual([]);
      const realtime = usage.llm.find((u: { model: string }) => u.model === MODEL);
      expect(realtime).toEqual({
        provider: 'google',
        model: MODEL,
        input_tokens: sum((u) => u.promptTokenCount),
        output_tokens: sum((u) => u.responseTokenCount),
        cached_input_tokens: 0,
        input_audio_tokens: sum((u) => of(u.promptTokensDetails, 'AUDIO')),
        output_audio_tokens: sum((u) => of(u.responseTokensDetails, 'AUDIO')),
      });
      expect(realtime.input_audio_tokens).toBeGreaterThan(0);
      expect(realtime.output_audio_tokens).toBeGreaterThan(0);
      const lines = (stored.cost as { lines: Array<Record<string, any>> }).lines.filter((l) => l.model === MODEL);
      expect(lines.find((l) => l.unit === 'output_audio_token')).toMatchObject({ quantity: realtime.output_audio_tokens, unit_price: 12 / 1e6 });
      expect(lines.find((l) => l.unit === 'input_audio_token')).toMatchObject({ quantity: realtime.input_audio_tokens, unit_price: 3 / 1e6 });
      expect(lines.find((l) => l.unit === 'input_token')).toMatchObject({
        quantity: realtime.input_tokens - realtime.input_audio_tokens,
        unit_price: 0.5 / 1e6,
      });
      expect(stored.summary).toBe('The caller asked the time.');
    } finally {
      await fake.close();
    }
  }, 120_000);

  it('calls a tool the model asks for, answers it with a toolResponse, and ends the call with the end-call tool', async ({ db, llm }) => {
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
    const fake = await startFakeGeminiLive({
      apiKey: KEY,
      heard: (turn) => ['thank you'][turn] ?? '',
      reply: (request): GeminiReply => {
        const said = verbatimOf(request);
        if (said) return { text: said };
        if (request.toolResponses.length > 0) return { text: 'Goodbye.' };
        return { toolCalls: [{ name: 'end_call', args: {} }] };
      },
    });
    try {
      const call = await createCall(db.prisma, googleSettings(llm.url, fake.baseUrl, { assigned_tools: [endCall.id] }));
      const run = await runTimeline(db.prisma, call.id, [{ after: afterReply(1), atMs: 500, text: 'thank you' }], { env, secrets });
      expect(run.result.status).toBe('completed');
      expect(run.result.endReason).toBe('assistant_ended_call');

      const declarations = (fake.setup().tools as Array<{ functionDeclarations?: Array<{ name: string }> }>).flatMap((t) => t.functionDeclarations ?? []);
      expect(declarations.map((d) => d.name)).toContain('end_call');
      const responses = fake.clientMessages().filter((m) => m.toolResponse);
      expect(responses).toHaveLength(1);
      expect((responses[0]!.toolResponse as { functionResponses: Array<{ name: string; id: string }> }).functionResponses).toEqual([
        expect.objectContaining({ name: 'end_call', id: expect.stringMatching(/^function-call-/) }),
      ]);
      const turns = await db.prisma.callTurn.findMany({ where: { callId: call.id }, orderBy: { position: 'asc' } });
      const calls = turns.flatMap((t) => (t.toolCalls as Array<{ name: string; is_error: boolean }> | null) ?? []);
      expect(calls).toEqual([expect.objectContaining({ name: 'end_call', is_error: false })]);
      expect(turns.filter((t) => t.role === 'user').map((t) => t.text)).toEqual(['thank you']);
    } finally {
      await fake.close();
    }
  }, 120_000);

  it('stops its reply when the caller talks over it and marks the turn interrupted, cut where the playout stopped', async ({ db, llm }) => {
    const long = 'Our clinic opens at eight in the morning on weekdays and at nine on Saturdays, and we close at six every evening except Sundays.';
    const fake = await startFakeGeminiLive({
      apiKey: KEY,
      heard: (turn) => ['book an appointment', 'stop'][turn] ?? '',
      reply: (request): GeminiReply => ({ text: verbatimOf(request) ?? (request.heard === 'stop' ? 'Of course.' : long) }),
      // Generated at the pace it is spoken, so the caller's speech finds it still in progress on the server.
      speedup: 1,
    });
    try {
      const call = await createCall(db.prisma, googleSettings(llm.url, fake.baseUrl));
      const run = await runTimeline(
        db.prisma,
        call.id,
        [
          { after: afterReply(1), atMs: 500, text: 'book an appointment' },
          { after: whileSpeaking(2), atMs: 1_000, text: 'stop' },
        ],
        { hangupWhen: afterReply(3), env },
      );
      expect(run.result.status).toBe('completed');

      expect(fake.serverMessages().filter((m) => (m.serverContent as { interrupted?: boolean } | undefined)?.interrupted)).toHaveLength(1);
      const turns = await db.prisma.callTurn.findMany({ where: { callId: call.id }, orderBy: { position: 'asc' } });
      const cut = turns.find((t) => t.role === 'assistant' && t.interrupted)!;
      expect(long.startsWith(cut.text.replace(/…$/, '').trim())).toBe(true);
      expect(cut.text.length).toBeLessThan(long.length);
      expect(turns.map((t) => t.role)).toEqual(['assistant', 'user', 'assistant', 'user', 'assistant']);
      expect(turns.filter((t) => t.role === 'user').map((t) => t.text)).toEqual(['book an appointment', 'stop']);
      expect(turns.at(-1)!.text).toBe('Of course.');
    } finally {
      await fake.close();
    }
  }, 120_000);

  it('says an idle prompt through the model when the caller stays silent', async ({ db, llm }) => {
    const fake = await startFakeGeminiLive({ apiKey: KEY, reply: (request): GeminiReply => ({ text: verbatimOf(request) ?? 'Yes?' }) });
    try {
      const call = await createCall(
        db.prisma,
        googleSettings(llm.url, fake.baseUrl, { idle_timeout: 1, max_idle_messages: 1, idle_message: 'Are you still with me?' }),
      );
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

  it('ends missing_credentials without connecting when GOOGLE_API_KEY is not set', async ({ db, llm }) => {
    const fake = await startFakeGeminiLive({ apiKey: KEY });
    try {
      const call = await createCall(db.prisma, googleSettings(llm.url, fake.baseUrl));
      const run = await runTimeline(db.prisma, call.id, [{ atMs: 500, text: 'good morning' }], { env: { ...env, GOOGLE_API_KEY: '' } });
      expect(run.result).toMatchObject({ status: 'failed', endReason: 'missing_credentials' });
      expect(fake.connections).toHaveLength(0);
    } finally {
      await fake.close();
    }
  }, 60_000);

  it('ends vendor_target_refused without connecting when base_url resolves inside and the host is not allowed', async ({ db, llm }) => {
    const fake = await startFakeGeminiLive({ apiKey: KEY });
    try {
      const name = os.hostname();
      expect((await dns.lookup(name, { all: true })).length).toBeGreaterThan(0);
      const url = new URL(fake.baseUrl);
      url.hostname = name;
      const call = await createCall(db.prisma, googleSettings(llm.url, url.href));
      const run = await runTimeline(db.prisma, call.id, [{ atMs: 500, text: 'good morning' }], { env: { ...env, VENDOR_PRIVATE_HOSTS: '' } });
      expect(run.result).toMatchObject({ status: 'failed', endReason: 'vendor_target_refused' });
      expect(fake.connections).toHaveLength(0);
    } finally {
      await fake.close();
    }
  }, 60_000);
});
