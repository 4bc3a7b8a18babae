import { describe, expect } from 'vitest';
import { dbTest } from '../helpers/fixtures.js';
import { connected, createCall, localSettings, PHRASES, runTimeline, runtimeOrganization } from '../runtime/call-harness.js';
import { until } from '../helpers/until.js';
import { startFakeOpenAI } from '../fakes/vendors/openai.js';
import { CALLER_RATE, speechSamples } from '../fakes/scripted-caller.js';

// A campaign call with no carrier detector (as through LiveKit SIP) run whole through the runtime: the callee side is
// a scripted voice, and our detector on the call's voice activity tells a machine's long greeting from a person's
// hello, stores the verdict, and leaves the campaign's message once the greeting has ended.
// The calls run on the wall clock: the verdicts follow the offline recogniser's words, which arrive when its process has
// decoded them, and a faster call clock would make that process look slower than any caller's line ever does.

const it = dbTest.extend('llm', { scope: 'file' }, async ({}, { onCleanup }) => {
  const llm = await startFakeOpenAI(() => ({ text: 'It is noon.' }));
  onCleanup(() => llm.close());
  return llm;
});

/** Utterances one after another, `gapMs` of quiet between them, from 600 ms after the answer. */
async function spaced(texts: string[], gapMs: number) {
  let atMs = 600;
  const out = [];
  for (const text of texts) {
    out.push({ after: connected, atMs, text });
    atMs += Math.round(((await speechSamples(text)).length * 1000) / CALLER_RATE) + gapMs;
  }
  return out;
}

// The offline recogniser knows only its grammar: these are the phrases the scripted voices say.
const KEYTERMS = [...PHRASES, 'leave a message', 'after the tone'];

async function campaignCall(prisma: Parameters<typeof runtimeOrganization>[0], llmUrl: string) {
  const organizationId = await runtimeOrganization(prisma);
  const campaign = await prisma.campaign.create({
    data: {
      organizationId,
      name: 'Voicemail',
      state: 'running',
      fromNumbers: [],
      schedule: {},
      pacing: {},
      retry: {},
      circuitBreaker: {},
      voicemail: { detect: true, action: 'leave_message', message: 'Sorry we missed you, {{var.first}}. Please call us back.' },
    },
  });
  const settings = localSettings(llmUrl, { llm_settings: { welcome_message: 'Hello, this is Acme.' } });
  const call = await createCall(
    prisma,
    { ...settings, stt_settings: { ...(settings.stt_settings as object), keyterms: KEYTERMS } },
    { variables: { first: 'Vera' } },
  );
  return prisma.call.update({ where: { id: call.id }, data: { campaignId: campaign.id, campaignAttempt: 1, direction: 'outbound', detectVoicemail: false } });
}

/**
 * The detector as every call has it, but for how long a long opening's `human` verdict waits for the recogniser's last
 * words: 3 s in service, as long as they take here, where a loaded machine's offline recogniser may run further behind.
 * The verdicts then follow the words and the audio, not the machine's speed.
 */
const DETECTOR = { maxWordWaitMs: 100_000 };

/** The detector's verdict once it is stored on the call: the callee hangs up then, having been heard. */
function verdictOf(prisma: Parameters<typeof runtimeOrganization>[0], callId: number) {
  return until(async () => (await prisma.call.findUniqueOrThrow({ where: { id: callId } })).answeredBy, {
    timeoutMs: 200_000,
    intervalMs: 100,
    message: 'a verdict stored',
  });
}

describe('voicemail detection in a call without a carrier detector', () => {
  it("hears a greeting with a machine's words as a machine and leaves the message once the greeting has ended", async ({ db, llm }) => {
    const call = await campaignCall(db.prisma, llm.url);
    // Phrases half a second apart, as a greeting's sentences are: each is its own utterance to the recogniser, whose
    // words arrive while the greeting goes on; the pauses are too short for a person's turn.
    const greeting = await spaced(['leave a message', 'after the tone', 'thank you'], 500);
    // Nobody hangs up: the message left ends the call. A wrong verdict would leave the call running, so it is cut at
    // two minutes (a cap: the greeting and the message take a few seconds) and fails on its end reason.
    const run = await runTimeline(db.prisma, call.id, greeting, { machineDetector: DETECTOR, realTime: true, hangupAtMs: 120_000 });
    expect(run.result.endReason).toBe('voicemail_message_left');
    const stored = await db.prisma.call.findUniqueOrThrow({ where: { id: call.id }, include: { turns: { orderBy: { position: 'asc' } } } });
    expect(stored.answeredBy).toBe('machine_end_silence');
    const message = stored.turns.find((t) => t.role === 'assistant' && t.text.startsWith('Sorry we missed you'));
    expect(message?.text).toBe('Sorry we missed you, Vera. Please call us back.');
    // Spoken after the greeting had ended: the message starts after the caller's last word.
    const lastWord = Math.max(...run.caller.spoken.map((s) => s.endMs));
    expect(message!.startMs).toBeGreaterThan(lastWord);
  }, 300_000);

  it('turns a short greeting first taken for a person into a machine on its beep, and leaves the message just after the beep', async ({ db, llm }) => {
    const call = await campaignCall(db.prisma, llm.url);
    const run = await runTimeline(
      db.prisma,
      call.id,
      [
        { after: connected, atMs: 600, text: 'good morning' },
        { after: connected, atMs: 2_600, text: '(beep)', tone: { hz: 1_000, ms: 500 } },
      ],
      // Cut at two minutes, as above, should the verdict be wrong.
      { machineDetector: DETECTOR, realTime: true, hangupAtMs: 120_000 },
    );
    expect(run.result.endReason).toBe('voicemail_message_left');
    const stored = await db.prisma.call.findUniqueOrThrow({ where: { id: call.id }, include: { turns: { orderBy: { position: 'asc' } } } });
    expect(stored.answeredBy).toBe('machine_end_beep');
    const message = stored.turns.find((t) => t.role === 'assistant' && t.text.startsWith('Sorry we missed you'));
    const beep = run.caller.spoken.find((s) => s.text === '(beep)')!;
    // After the beep, so that the machine records it from its start; `machine_end_beep` says the beep, not seconds of
    // quiet, ended the greeting.
    expect(message!.startMs).toBeGreaterThan(beep.endMs);
  }, 300_000);

  it('hears a business answering with a long greeting as a person when no machine words are heard', async ({ db, llm }) => {
    const call = await campaignCall(db.prisma, llm.url);
    // Three seconds of speech, which timing alone takes for a machine; then the person waits for an answer.
    const greeting = ['good morning', 'book an appointment', 'what time is it'].map((text, i) => ({ after: connected, atMs: 600 + i * 700, text }));
    const run = await runTimeline(db.prisma, call.id, greeting, {
      hangupAfter: () => verdictOf(db.prisma, call.id),
      machineDetector: DETECTOR,
      realTime: true,
    });
    expect(run.result.endReason).toBe('customer_hangup');
    expect((await db.prisma.call.findUniqueOrThrow({ where: { id: call.id } })).answeredBy).toBe('human');
  }, 300_000);

  it('hears a short hello as a person and lets the conversation go on', async ({ db, llm }) => {
    const call = await campaignCall(db.prisma, llm.url);
    const run = await runTimeline(db.prisma, call.id, [{ after: connected, atMs: 600, text: 'good morning' }], {
      hangupAfter: () => verdictOf(db.prisma, call.id),
      machineDetector: DETECTOR,
      realTime: true,
    });
    expect(run.result.endReason).toBe('customer_hangup');
    expect((await db.prisma.call.findUniqueOrThrow({ where: { id: call.id } })).answeredBy).toBe('human');
  }, 300_000);
});
