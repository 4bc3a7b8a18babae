import { describe, expect, it } from 'vitest';
import { espeakSynthesize } from './espeak.js';

// The offline voice's thread: sentences come back in the order they were asked for (a reply's first sentence is never
// slowed by the ones after it), and a sentence given up while it waits is dropped, not made.

const OPTIONS = { voice: 'en-us', wordsPerMinute: 175, pitch: 50 };
const LONG = 'Our clinic opens at nine in the morning and closes at five in the afternoon, except on Saturdays and public holidays.';

describe('the offline voice thread', () => {
  it('finishes sentences in the order they were asked for, a long first one before a short second', async () => {
    const finished: string[] = [];
    await Promise.all([
      espeakSynthesize(LONG, OPTIONS).then(() => finished.push('long')),
      espeakSynthesize('Yes.', OPTIONS).then(() => finished.push('short')),
    ]);
    expect(finished).toEqual(['long', 'short']);
  }, 60_000);

  it('drops a long passage given up while it waits behind another, and still makes the one ahead of it', async () => {
    const giveUp = new AbortController();
    // Made anew (the first test kept LONG), so that it holds the thread while the second waits.
    const first = espeakSynthesize(`${LONG} And on Sundays.`, OPTIONS);
    const second = espeakSynthesize(`${LONG} ${LONG} This passage is never heard.`, OPTIONS, giveUp.signal);
    giveUp.abort();
    await expect(second).rejects.toThrow(/cancelled/);
    const audio = await first;
    expect(audio.sampleRate).toBe(22_050);
    expect(audio.samples.length).toBeGreaterThan(22_050 * 3);
  }, 60_000);

  it('gives a short sentence said again from what was kept, without making it twice', async () => {
    const first = await espeakSynthesize('Thanks for calling.', OPTIONS);
    expect(await espeakSynthesize('Thanks for calling.', OPTIONS)).toBe(first);
    expect(await espeakSynthesize('Thanks for calling.', { ...OPTIONS, wordsPerMinute: 200 })).not.toBe(first);
  }, 60_000);

  it('refuses at once a sentence whose signal has already aborted', async () => {
    await expect(espeakSynthesize('Never.', OPTIONS, AbortSignal.abort())).rejects.toThrow();
  });
});
