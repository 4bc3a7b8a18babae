import { initializeLogger } from '@livekit/agents';
import { afterAll, describe, expect, vi } from 'vitest';
import { dbTest } from '../helpers/fixtures.js';
import { afterReply, createCall, localSettings, runTimeline } from './call-harness.js';
import { startFakeOpenAI } from '../fakes/vendors/openai.js';

// What a call writes to the log: the framework's logger at debug level, its JSON lines on stdout captured.

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

const INFO = 30;
const WARN = 40;

let lines: string[] = [];

const it = dbTest.extend('llm', { scope: 'file' }, async ({}, { onCleanup }) => {
  const llm = await startFakeOpenAI(() => ({ text: 'Your appointment is on Tuesday.' }));
  onCleanup(() => llm.close());
  return llm;
});

afterAll(async () => {
  initializeLogger({ pretty: false, level: 'silent' });
});

/** Runs `fn` with the framework's log lines at debug and above captured instead of printed. */
async function capturingLogs<T>(fn: () => Promise<T>): Promise<{ result: T; logs: LogLine[] }> {
  lines = [];
  initializeLogger({ pretty: false, level: 'debug' });
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
    return true;
  });
  try {
    const result = await fn();
    return {
      result,
      logs: lines
        .flatMap((l) => l.split('\n'))
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as LogLine),
    };
  } finally {
    write.mockRestore();
    initializeLogger({ pretty: false, level: 'silent' });
  }
}

describe('the log of a call', () => {
  it("keeps the caller's words and the assistant's replies out of info lines, and has them at debug", async ({ db, llm }) => {
    const call = await createCall(db.prisma, localSettings(llm.url, { llm_settings: { welcome_message: 'Hello, how can I help?' } }));
    // Half a second after the welcome the caller asks; once the answer has been spoken, they hang up.
    const { result, logs } = await capturingLogs(() =>
      runTimeline(db.prisma, call.id, [{ after: afterReply(1), atMs: 500, text: 'book an appointment' }], { hangupWhen: afterReply(2) }),
    );
    expect(result.result.transcript.map((t) => t.text)).toEqual(['Hello, how can I help?', 'book an appointment', 'Your appointment is on Tuesday.']);

    const said = /book an appointment|appointment is on tuesday|how can i help/i;
    const atInfo = logs.filter((l) => l.level >= INFO);
    expect(atInfo.length).toBeGreaterThan(0);
    expect(atInfo.filter((l) => said.test(JSON.stringify(l)))).toEqual([]);
    // The same lines are still written, with the personal fields marked.
    expect(atInfo.some((l) => Object.entries(l).some(([k, v]) => /(^|\.)pii(\.|$)/.test(k) && typeof v === 'string' && v.startsWith('[redacted')))).toBe(true);
    // Whoever debugs a call still has what was said.
    expect(logs.filter((l) => l.level < INFO).some((l) => /book an appointment/i.test(JSON.stringify(l)))).toBe(true);
  }, 120_000);
});

describe('a call to an assistant whose vendors have no key', () => {
  it('ends failed with missing_credentials before connecting anywhere, and the log names each unset variable', async ({ db }) => {
    // The README's first assistant: every vendor the default, and no key in the environment.
    const call = await createCall(db.prisma, { recording_settings: { recording_enabled: false } });
    // Nobody hangs up: the call ends before it starts.
    const { result, logs } = await capturingLogs(() => runTimeline(db.prisma, call.id, [], { env: {} }));
    expect(result.result).toMatchObject({ status: 'failed', endReason: 'missing_credentials' });
    expect(await db.prisma.call.findUniqueOrThrow({ where: { id: call.id } })).toMatchObject({ status: 'failed', endReason: 'missing_credentials' });

    const warning = logs.find((l) => l.level === WARN && l.msg === 'call cannot start: a vendor credential is not set');
    expect(warning).toMatchObject({
      callId: call.id,
      stages: ['stt', 'tts', 'llm'],
      variables: ['DEEPGRAM_API_KEY', 'ELEVENLABS_API_KEY', 'OPENAI_API_KEY'],
      fields: ['stt_settings.provider', 'tts_settings.provider', 'llm_provider'],
    });
    // Nothing tried a vendor with an empty key.
    expect(logs.some((l) => /failed to connect|deepgram/i.test(l.msg))).toBe(false);
  }, 120_000);

  it('runs the call when the only missing key is a fallback LLM one, and says which variable it lacks', async ({ db, llm }) => {
    const call = await createCall(
      db.prisma,
      localSettings(llm.url, {
        llm_fallback_providers: { enabled: true, fallbacks: [{ provider: 'anthropic' }] },
        llm_settings: { welcome_message: 'Hello.' },
      }),
    );
    // The call runs: its welcome is spoken, then the caller hangs up.
    const { result, logs } = await capturingLogs(() => runTimeline(db.prisma, call.id, [], { env: {}, hangupWhen: afterReply(1) }));
    expect(result.result).toMatchObject({ status: 'completed', endReason: 'customer_hangup' });
    expect(logs.find((l) => l.level === WARN && l.msg.startsWith('an llm endpoint has no credential'))).toMatchObject({
      variables: ['ANTHROPIC_API_KEY'],
      fields: ['llm_fallback_providers.fallbacks.0.provider'],
    });
  }, 120_000);
});
