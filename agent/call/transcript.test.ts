import { initializeLogger, llm, voice } from '@livekit/agents';
import { beforeEach, describe, expect, it } from 'vitest';
import type { StoredTurn } from '../../modules/calls/store.js';
import type { TurnDecision } from '../../modules/calls/schemas.js';
import { CONTINUES_TURN } from '../turn/turn-taking.js';
import { captureTranscript } from './transcript.js';
import { FakeSession } from './testing/fake-session.js';

// The transcript built from the session's conversation and tool events, as the call's clock sees them.

const ItemAdded = voice.AgentSessionEventTypes.ConversationItemAdded;
const ToolsExecuted = voice.AgentSessionEventTypes.FunctionToolsExecuted;

const T0 = 1_700_000_000_000;

let session: FakeSession;
let stored: Array<[number, StoredTurn]>;
const store = async (position: number, turn: StoredTurn) => void stored.push([position, turn]);

beforeEach(() => {
  initializeLogger({ pretty: false, level: 'silent' });
  session = new FakeSession();
  stored = [];
});

/** Once the writes started so far have run. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

/** A message spoken from `fromMs` to `toMs` after the call's start. */
function say(
  role: 'user' | 'assistant',
  text: string,
  fromMs: number,
  toMs: number,
  more: { interrupted?: boolean; metrics?: llm.MetricsReport; extra?: Record<string, unknown> } = {},
): void {
  const item = llm.ChatMessage.create({
    role,
    content: text,
    createdAt: T0 + fromMs,
    interrupted: more.interrupted ?? false,
    ...(more.extra ? { extra: more.extra } : {}),
    metrics: { startedSpeakingAt: (T0 + fromMs) / 1000, stoppedSpeakingAt: (T0 + toMs) / 1000, ...more.metrics },
  });
  session.send(ItemAdded, voice.createConversationItemAddedEvent(item));
}

function toolsRan(calls: Array<{ name: string; args: string; output?: string; isError?: boolean; atMs: number }>): void {
  const functionCalls = calls.map((c, i) => llm.FunctionCall.create({ callId: `call_${i}`, name: c.name, args: c.args, createdAt: T0 + c.atMs }));
  const functionCallOutputs = calls.flatMap((c, i) =>
    c.output === undefined ? [] : [llm.FunctionCallOutput.create({ callId: `call_${i}`, name: c.name, output: c.output, isError: c.isError ?? false })],
  );
  session.send(ToolsExecuted, voice.createFunctionToolsExecutedEvent({ functionCalls, functionCallOutputs }));
}

const DECISION: TurnDecision = {
  verdict: 'finished',
  decided_by: 'transcript',
  transcript: 'complete',
  transcript_rule: 'terminal_punctuation',
  value_kind: null,
  audio_model_probability: null,
  audio_model_threshold: null,
  recogniser_endpoint: false,
  delay_ms: 300,
};

describe('the transcript of a call', () => {
  it('gives each reply the end-of-utterance delay of the caller turn it answers, and the decision behind it, once', async () => {
    const decisions = [DECISION];
    const capture = captureTranscript(session, { startedAt: T0, store, decisionForReply: () => decisions.shift() });
    say('user', 'What time is it?', 1_000, 2_000, { metrics: { endOfTurnDelay: 0.31 } });
    say('assistant', 'Ten past nine.', 2_600, 3_400, { metrics: { llmNodeTtft: 0.2 } });
    say('assistant', 'Anything else?', 9_000, 9_800);
    const { turns } = await capture.close(T0 + 10_000);
    expect(turns[1]).toMatchObject({ metrics: { end_of_utterance_delay_ms: 310, llm_ttft_ms: 200 }, turn_decision: DECISION });
    // A second reply with no caller turn before it (an idle prompt) answers nothing.
    expect(turns[2]!.metrics).toBeNull();
    expect(turns[2]!.turn_decision).toBeUndefined();
  });

  it('keeps a reply the caller talked over before their turn, though it ended after it, and gives it no latency of theirs', async () => {
    const decisions = [DECISION];
    const capture = captureTranscript(session, { startedAt: T0, store, decisionForReply: () => decisions.shift() });
    say('user', 'what time is it', 2_500, 3_300, { metrics: { endOfTurnDelay: 0.3 } });
    say('assistant', 'Hello, how can I help?', 600, 3_800, { interrupted: true });
    say('assistant', 'It is noon.', 4_300, 4_900);
    const { turns } = await capture.close(T0 + 5_000);
    expect(turns.map((t) => [t.role, t.text])).toEqual([
      ['assistant', 'Hello, how can I help?'],
      ['user', 'what time is it'],
      ['assistant', 'It is noon.'],
    ]);
    expect(turns[0]!.turn_decision).toBeUndefined();
    expect(turns[2]).toMatchObject({ metrics: { end_of_utterance_delay_ms: 300 }, turn_decision: DECISION });
    await settled();
    // Each position holds, last written, the turn now there.
    const last = new Map(stored.map(([position, turn]) => [position, turn.text]));
    expect([...last.entries()].sort()).toEqual([
      [0, 'Hello, how can I help?'],
      [1, 'what time is it'],
      [2, 'It is noon.'],
    ]);
  });

  it('stores the rest of a turn the caller was cut off in as that one turn, where its first part was', async () => {
    const capture = captureTranscript(session, { startedAt: T0, store });
    say('user', "it's john", 1_000, 1_600);
    say('user', "it's john dot smith at gmail dot com", 2_400, 4_000, { extra: { [CONTINUES_TURN]: true } });
    say('assistant', 'Thanks, John.', 4_400, 5_000);
    const { spoken } = await capture.close(T0 + 6_000);
    expect(spoken.map((t) => [t.role, t.text, t.start_ms, t.end_ms])).toEqual([
      ['user', "it's john dot smith at gmail dot com", 1_000, 4_000],
      ['assistant', 'Thanks, John.', 4_400, 5_000],
    ]);
    await settled();
    expect(stored.map(([position, turn]) => [position, turn.text])).toEqual([
      [0, "it's john"],
      [0, "it's john dot smith at gmail dot com"],
      [1, 'Thanks, John.'],
    ]);
  });

  it('keeps each user and assistant turn in order, with its times from the start of the call and whether it was interrupted', async () => {
    const capture = captureTranscript(session, { startedAt: T0, store });
    say('assistant', 'Hello, how can I help?', 100, 1_400);
    say('user', 'what time is it', 2_500, 3_200);
    say('assistant', 'It is ten past', 3_900, 4_600, { interrupted: true });
    const { spoken } = await capture.close(T0 + 5_000);
    expect(spoken).toEqual([
      { role: 'assistant', text: 'Hello, how can I help?', start_ms: 100, end_ms: 1_400, interrupted: false },
      { role: 'user', text: 'what time is it', start_ms: 2_500, end_ms: 3_200, interrupted: false },
      { role: 'assistant', text: 'It is ten past', start_ms: 3_900, end_ms: 4_600, interrupted: true },
    ]);
  });

  it('stores each turn the moment it is spoken, at its position', async () => {
    captureTranscript(session, { startedAt: T0, store });
    say('user', 'yes please', 0, 600);
    await settled();
    expect(stored.map(([position, t]) => [position, t.text])).toEqual([[0, 'yes please']]);
    say('assistant', 'Done.', 900, 1_300);
    await settled();
    expect(stored.map(([position, t]) => [position, t.text])).toEqual([
      [0, 'yes please'],
      [1, 'Done.'],
    ]);
  });

  it('keeps storing the turns after one write fails, and still has the failed turn for the end of the call', async () => {
    let calls = 0;
    const capture = captureTranscript(session, {
      startedAt: T0,
      store: async (position, turn) => {
        if (calls++ === 0) throw new Error('database unavailable');
        stored.push([position, turn]);
      },
    });
    say('user', 'yes please', 0, 600);
    say('assistant', 'Done.', 900, 1_300);
    const { turns } = await capture.close(T0 + 2_000);
    expect(stored.map(([position]) => position)).toEqual([1]);
    expect(turns.map((t) => t.text)).toEqual(['yes please', 'Done.']);
  });

  it('gives an assistant turn its latencies in ms, and a user turn none; the transcript itself carries no latency', async () => {
    const capture = captureTranscript(session, { startedAt: T0, store });
    say('user', 'what time is it', 0, 700);
    say('assistant', 'Ten past.', 1_500, 2_000, { metrics: { endOfTurnDelay: 0.3, llmNodeTtft: 0.25, ttsNodeTtfb: 0.12, e2eLatency: 0.8 } });
    const { turns, spoken } = await capture.close(T0 + 3_000);
    expect(turns.map((t) => t.metrics)).toEqual([null, { end_of_utterance_delay_ms: 300, llm_ttft_ms: 250, tts_ttfb_ms: 120, e2e_latency_ms: 800 }]);
    expect(spoken.every((t) => !('metrics' in t))).toBe(true);
  });

  it('passes over system messages and turns with no words', async () => {
    const capture = captureTranscript(session, { startedAt: T0, store });
    session.send(ItemAdded, voice.createConversationItemAddedEvent(llm.ChatMessage.create({ role: 'system', content: 'You are helpful.' })));
    say('user', '   ', 0, 300);
    say('user', 'stop', 400, 700);
    expect((await capture.close(T0 + 1_000)).spoken.map((t) => t.text)).toEqual(['stop']);
  });

  it('puts the tools called before a reply on that reply, with arguments and results as values, errors as they came, and when each was called', async () => {
    const capture = captureTranscript(session, { startedAt: T0, store });
    say('user', 'book an appointment', 0, 900);
    toolsRan([
      { name: 'check_availability', args: '{"day":"Monday"}', output: '"10:00 is free"', atMs: 1_200 },
      { name: 'book_slot', args: '{"time":', output: 'that slot was just taken', isError: true, atMs: 1_300 },
      { name: 'notify', args: '{}', atMs: 1_350 },
    ]);
    say('assistant', 'Ten is free.', 2_000, 2_800);
    const { spoken } = await capture.close(T0 + 3_000);
    expect(spoken[0]).not.toHaveProperty('tool_calls');
    expect(spoken[1]!.tool_calls).toEqual([
      { name: 'check_availability', arguments: { day: 'Monday' }, output: '10:00 is free', is_error: false, at_ms: 1_200 },
      { name: 'book_slot', arguments: '{"time":', output: 'that slot was just taken', is_error: true, at_ms: 1_300 },
      { name: 'notify', arguments: {}, output: null, is_error: false, at_ms: 1_350 },
    ]);
  });

  it('stores tool calls made after the last reply on an empty assistant turn at the end of the call, which is not part of what was said', async () => {
    const capture = captureTranscript(session, { startedAt: T0, store });
    say('assistant', 'Goodbye.', 0, 800);
    toolsRan([{ name: 'log_outcome', args: '{"ok":true}', output: 'null', atMs: 900 }]);
    const { turns, spoken } = await capture.close(T0 + 1_500);
    expect(spoken.map((t) => t.text)).toEqual(['Goodbye.']);
    expect(turns[1]).toEqual({
      role: 'assistant',
      text: '',
      start_ms: 1_500,
      end_ms: 1_500,
      interrupted: false,
      metrics: null,
      tool_calls: [{ name: 'log_outcome', arguments: { ok: true }, output: null, is_error: false, at_ms: 900 }],
    });
  });

  it('once closed, waits for the writes under way and hears no more of the session', async () => {
    let finish!: () => void;
    const capture = captureTranscript(session, { startedAt: T0, store: () => new Promise<void>((resolve) => (finish = resolve)) });
    say('user', 'thank you', 0, 500);
    let closed = false;
    const closing = capture.close(T0 + 1_000).then((t) => ((closed = true), t));
    await settled();
    expect(closed).toBe(false);
    finish();
    await closing;
    expect(session.listening()).toBe(0);
    say('assistant', 'You are welcome.', 600, 900);
    expect((await closing).turns.map((t) => t.text)).toEqual(['thank you']);
  });
});
