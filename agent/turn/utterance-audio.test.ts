import { AudioFrame } from '@livekit/rtc-node';
import { describe, expect, it } from 'vitest';
import { UtteranceAudio } from './utterance-audio.js';

const frame = (from: number, n = 320) =>
  new AudioFrame(
    Int16Array.from({ length: n }, (_, i) => from + i),
    16_000,
    1,
    n,
  );

describe('the audio handed to a VAD, kept by position', () => {
  it('cuts a copy of any range across frames, which later writes do not change', () => {
    const audio = new UtteranceAudio();
    for (let at = 0; at < 3_200; at += 320) audio.push(frame(at));
    const cut = audio.copy(300, 1_000)!;
    expect(cut.samplesPerChannel).toBe(700);
    expect(cut.data[0]).toBe(300);
    expect(cut.data[699]).toBe(999);
    audio.push(frame(3_200));
    expect(Array.from(cut.data.subarray(0, 3))).toEqual([300, 301, 302]);
  });

  it('answers nothing for audio forgotten, not yet handed over, or from before a reset', () => {
    const audio = new UtteranceAudio();
    for (let at = 0; at < 3_200; at += 320) audio.push(frame(at));
    audio.forgetBefore(1_000);
    expect(audio.copy(300, 1_000)).toBeUndefined();
    expect(audio.copy(960, 1_300)!.data[0]).toBe(960);
    expect(audio.copy(3_000, 3_300)).toBeUndefined();
    audio.reset();
    expect(audio.forwarded).toBe(0);
    expect(audio.copy(0, 100)).toBeUndefined();
  });

  it('keeps cutting right after forgetting most of a long silence', () => {
    const audio = new UtteranceAudio();
    for (let f = 0; f < 1_000; f++) {
      audio.push(frame(f * 320));
      audio.forgetBefore((f - 50) * 320);
    }
    // Samples hold their position, as 16-bit values.
    const at = (position: number) => Int16Array.of(position)[0];
    expect(audio.copy(960 * 320 + 5, 962 * 320)!.data[0]).toBe(at(960 * 320 + 5));
    expect(audio.copy(998 * 320, 999 * 320)!.data[319]).toBe(at(999 * 320 - 1));
    expect(audio.copy(900 * 320, 901 * 320)).toBeUndefined();
  });
});
