import { initializeLogger } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { delay } from '../../lib/async.js';
import { PacedAudioOutput, RESUME_SETTLE_MS } from './paced-audio-output.js';

const RATE = 16_000;
const frame = (value: number) => new AudioFrame(new Int16Array(RATE / 50).fill(value), RATE, 1, RATE / 50);

/** An output with `count` 20 ms frames of one reply handed over, recording what plays and when. */
async function replyOf(count: number) {
  const output = new PacedAudioOutput(RATE);
  const played: { at: number; value: number }[] = [];
  output.onPlayed((f) => played.push({ at: Date.now(), value: f.data[0]! }));
  // captureFrame resolves once a frame is queued; the whole reply is queued before it plays out.
  for (let i = 0; i < count; i++) await output.captureFrame(frame(1_000 + i));
  output.flush();
  return { output, played };
}

describe('paced audio output', () => {
  beforeAll(() => initializeLogger({ pretty: false, level: 'silent' }));

  it('plays no frame of an interrupted reply when the interruption resumes the output just before clearing it', async () => {
    const { output, played } = await replyOf(50);
    await delay(70);
    output.pause();
    const pausedAt = Date.now();
    const heard = played.length;
    await delay(100);
    // The order @livekit/agents 1.9 uses for a paused reply that turns out to be a real interruption.
    output.resume();
    await delay(1);
    output.clearBuffer();
    await delay(100);
    expect(played.filter((p) => p.at > pausedAt)).toEqual([]);
    expect(played.length).toBe(heard);
    output.close();
  });

  it('carries on with the paused reply one frame period after a resume that stands', async () => {
    const { output, played } = await replyOf(50);
    await delay(70);
    output.pause();
    const heard = played.length;
    await delay(100);
    const resumedAt = Date.now();
    output.resume();
    await delay(200);
    const after = played.slice(heard);
    expect(after.length).toBeGreaterThan(0);
    // The next frame of the same reply, in order, not a skipped one.
    expect(after[0]!.value).toBe(played[heard - 1]!.value + 1);
    expect(after[0]!.at - resumedAt).toBeGreaterThanOrEqual(RESUME_SETTLE_MS - 2);
    output.close();
  });
});
