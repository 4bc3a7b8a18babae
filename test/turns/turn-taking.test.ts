import { initializeLogger, type VAD } from '@livekit/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLER_RATE, clipOf } from '../../bench/turns/caller.js';
import { TurnsCall } from '../../bench/turns/call.js';
import { loadRendering, type Rendering } from '../../bench/turns/corpus/render.js';
import { SCRIPT, VOICES } from '../../bench/turns/corpus/script.js';
import { benchSettings } from '../../bench/pipeline/bench-call.js';
import { secondsToMs } from '../../agent/call/session-config.js';
import { internalsPresent } from '../../agent/turn/session-internals.js';
import { loadVad } from '../../agent/turn/vad.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/vendors/openai.js';

// The turn-taking mechanisms on a real session, the runtime's own construction (session options, VAD, overlap filter,
// combined decision, repair), with synthetic speech from the corpus, a recogniser that gives a phrase's words when it
// ends, and an LLM that answers at once with a reply of a few seconds. The figures are the benchmark's
// (`npm run bench:turns`); these prove the behaviours.
//
// These calls run on the wall clock, unlike most call tests (test/helpers/scaled-clock.ts): what they prove is a race
// between the audio arriving and the voice detector's inference on it (a backchannel passes, a barge-in stops the reply
// before its words are recognised), and on a faster clock the inference looks slower and the race is another one.

initializeLogger({ pretty: false, level: 'silent' });

/** About 6 s of the instant voice: long enough to speak over. */
const REPLY = 'Sure, we open at nine in the morning tomorrow, and we stay open until six in the evening on every weekday.';
const LEAD_MS = 500;
const FRAME_MS = 20;

let llm: FakeOpenAI;
beforeAll(async () => {
  llm = await startFakeOpenAI(() => ({ text: REPLY }));
});
afterAll(async () => {
  await llm?.close();
});

const item = (id: string) => SCRIPT.find((i) => i.id === id)!;
const voice = (id: string) => VOICES.find((v) => v.id === id)!;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function startCall(turnDetection: Record<string, unknown> = {}, interruption: Record<string, unknown> = {}) {
  const settings = benchSettings(`${llm.url}/v1`, turnDetection);
  Object.assign(settings.interruption_settings, interruption);
  const turn = settings.stt_settings.turn_detection;
  const vad: VAD = await loadVad(secondsToMs(turn.min_endpointing_delay), turn.mode);
  return TurnsCall.start(settings, vad);
}

/** Plays a rendering; answers the wall-clock time of a sample of it. */
function play(call: TurnsCall, rendering: Rendering, notBefore = Date.now() + LEAD_MS): (sample: number) => number {
  const startAt = call.caller.play(clipOf(rendering.samples, rendering.labels, 0), notBefore);
  return (sample) => startAt + (sample * 1000) / CALLER_RATE;
}

/** Asks the lead question and waits for the reply's first frame; answers that frame's segment and time. */
async function askAndHearReply(call: TurnsCall) {
  const question = await loadRendering(item('complete-1'), voice('espeak-en-us'));
  const at = play(call, question);
  const end = at(question.labels.speechEndSample);
  await call.until(() => call.output.played.some((f) => f.at > end), end + 4_000);
  const first = call.output.played.find((f) => f.at > end);
  expect(first, 'the assistant answered the question').toBeDefined();
  return first!;
}

describe('turn-taking on a live session', () => {
  it('finds in this framework version the internals it pauses and resumes replies with', async () => {
    const call = await startCall();
    try {
      expect(internalsPresent(call.session)).toBe(true);
    } finally {
      await call.close(5_000);
    }
  }, 120_000);

  it('answers a finished sentence after the caller stops, never before', async () => {
    const call = await startCall();
    try {
      const rendering = await loadRendering(item('complete-3'), voice('flite-slt'));
      const at = play(call, rendering);
      const end = at(rendering.labels.speechEndSample);
      expect(await call.until(() => call.commits.length > 0, end + 4_000)).toBe(true);
      expect(call.commits[0]!.at).toBeGreaterThanOrEqual(end);
      expect(call.commits[0]!.text).toBe('Yes, that works for me.');
    } finally {
      await call.close(5_000);
    }
  }, 120_000);

  it('waits through the pauses of a phone number read in groups: one turn, answered once', async () => {
    const call = await startCall();
    try {
      const rendering = await loadRendering(item('phone-415'), voice('espeak-en-gb'));
      const at = play(call, rendering);
      const end = at(rendering.labels.speechEndSample);
      await call.until(() => call.commits.length > 0, end + 4_000);
      await sleep(500);
      expect(call.commits.map((c) => c.text)).toEqual(['my number is four one five five five five two six seven one']);
    } finally {
      await call.close(5_000);
    }
  }, 120_000);

  it('merges a turn cut off in a pause with its rest: the model reads one message, the reply to the part is dropped', async () => {
    // The text rules alone take "it's john" for a finished turn: committed 0.3 s into the 0.8 s pause after it.
    const call = await startCall({ mode: 'text_turn_detector' });
    try {
      const rendering = await loadRendering(item('email-john'), voice('espeak-en-us'));
      const at = play(call, rendering);
      const end = at(rendering.labels.speechEndSample);
      await call.until(() => call.commits.length > 1, end + 5_000);
      expect(call.commits[0]!.text).toBe("it's john");
      const users = call.agent!.chatCtx.items.filter((i) => i.type === 'message' && i.role === 'user');
      expect(users.map((m) => (m.type === 'message' ? m.textContent : ''))).toEqual(["it's john dot smith at gmail dot com"]);
      // Nothing the assistant began saying to the first part is left in the conversation.
      expect(call.agent!.chatCtx.items.filter((i) => i.type === 'message' && i.role === 'assistant' && i.interrupted)).toEqual([]);
    } finally {
      await call.close(5_000);
    }
  }, 120_000);

  it('lets a backchannel over the reply pass: no turn, and the reply plays on', async () => {
    const call = await startCall();
    try {
      const first = await askAndHearReply(call);
      const yeah = await loadRendering(item('backchannel-2'), voice('espeak-en-us'));
      const at = play(call, yeah, first.at + 1_000);
      const onset = at(yeah.labels.speechStartSample);
      const end = at(yeah.labels.speechEndSample);
      await sleep(end + 1_000 - Date.now());
      expect(call.commits.filter((c) => c.at >= onset)).toEqual([]);
      expect(call.output.stops.filter((s) => s.how === 'clear' && s.at >= onset)).toEqual([]);
      // The same reply is heard after the backchannel, within a moment of its end.
      expect(call.output.played.some((f) => f.segment === first.segment && f.at > end + 300)).toBe(true);
    } finally {
      await call.close(5_000);
    }
  }, 120_000);

  it('stops the reply on the caller voice before their words arrive, and plays nothing of it afterwards', async () => {
    const call = await startCall({}, { min_interruption_duration: 0.2 });
    try {
      const first = await askAndHearReply(call);
      const bargeIn = await loadRendering(item('barge-in-address'), voice('espeak-en-us'));
      const at = play(call, bargeIn, first.at + 1_000);
      const onset = at(bargeIn.labels.speechStartSample);
      // The recogniser gives "hold on," when that phrase ends.
      const firstWords = at(bargeIn.labels.phrases[0]!.endSample);
      const end = at(bargeIn.labels.speechEndSample);
      await call.until(() => call.commits.some((c) => c.at >= onset), end + 4_000);
      const stop = call.output.stops.find((s) => s.at >= onset);
      expect(stop).toBeDefined();
      expect(stop!.at).toBeLessThan(firstWords);
      const after = call.output.played.filter((f) => f.segment === first.segment && f.seq > stop!.seq);
      expect(after.length * FRAME_MS).toBe(0);
      expect(call.commits.at(-1)!.text).toBe("hold on, that's not my address");
    } finally {
      await call.close(5_000);
    }
  }, 120_000);
});
