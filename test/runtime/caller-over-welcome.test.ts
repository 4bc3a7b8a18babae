import { describe, expect } from 'vitest';
import { espeakSynthesize } from '../../media/voice/espeak.js';
import { dbTest } from '../helpers/fixtures.js';
import { startFakeOpenAI } from '../fakes/vendors/openai.js';
import { afterReply, createCall, localSettings, runTimeline, whileSpeaking, type Cue } from './call-harness.js';

// A caller who starts speaking as the welcome ends, a little before or a little after: the moment a new user's first
// sentence most often goes unanswered. Every such sentence is answered, with the assistant's default turn detection.

const it = dbTest.extend('llm', { scope: 'file' }, async ({}, { onCleanup }) => {
  const llm = await startFakeOpenAI(() => ({ text: 'Of course.' }));
  onCleanup(() => llm.close());
  return llm;
});

const WELCOME = 'Hello and welcome to the clinic, how can I help you today?';
const WORDS_PER_MINUTE = 230;

/** The caller's sentence has been answered: an assistant message after their turn. */
const answered: Cue = (p) => {
  const asked = p.items.findIndex((i) => i.role === 'user');
  return asked >= 0 && p.items.slice(asked + 1).some((i) => i.role === 'assistant');
};

async function welcomeMs(): Promise<number> {
  const audio = await espeakSynthesize(WELCOME, { voice: 'en-us', wordsPerMinute: WORDS_PER_MINUTE, pitch: 50 });
  return (audio.samples.length * 1000) / audio.sampleRate;
}

describe('a caller who speaks as the welcome ends', () => {
  // Offsets from the welcome's last sound: over its end, at it, and just after it.
  for (const offsetMs of [-700, -300, 0, 150, 400]) {
    it(`answers the caller who starts ${offsetMs < 0 ? `${-offsetMs} ms before` : `${offsetMs} ms after`} the welcome ends`, async ({ db, llm }) => {
      const settings = localSettings(llm.url, {
        llm_settings: { welcome_message: WELCOME },
        tts_settings: { provider: 'local', provider_config: { words_per_minute: WORDS_PER_MINUTE } },
      });
      // The assistant's defaults: the combined end-of-turn detector, its default delays.
      const stt = { ...(settings.stt_settings as Record<string, unknown>) };
      delete stt.turn_detection;
      const call = await createCall(db.prisma, { ...settings, stt_settings: stt });
      const line = offsetMs < 0 ? { after: whileSpeaking(1), atMs: Math.round((await welcomeMs()) + offsetMs) } : { after: afterReply(1), atMs: offsetMs };
      // A sentence left unanswered would keep the call going until this cap, which no answered call comes near.
      const run = await runTimeline(db.prisma, call.id, [{ ...line, text: 'book an appointment' }], { hangupWhen: answered, hangupAtMs: 45_000 });
      const turns = await db.prisma.callTurn.findMany({ where: { callId: call.id }, orderBy: { position: 'asc' } });
      const asked = turns.findIndex((t) => t.role === 'user' && t.text.endsWith('book an appointment'));
      expect(asked, JSON.stringify(turns.map((t) => [t.role, t.text]))).toBeGreaterThanOrEqual(0);
      expect(turns.slice(asked + 1).some((t) => t.role === 'assistant' && t.text === 'Of course.')).toBe(true);
      expect(run.result.endReason).toBe('customer_hangup');
    });
  }
});
