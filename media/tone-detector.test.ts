import { describe, expect, it } from 'vitest';
import { concatPcm } from './pcm.js';
import { ToneDetector } from './tone-detector.js';

const sine = (rate: number, ms: number, hz: number, amplitude = 9_000) =>
  Int16Array.from({ length: (rate * ms) / 1000 }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate)));
const silence = (rate: number, ms: number) => new Int16Array((rate * ms) / 1000);
const join = (...parts: Int16Array[]) => concatPcm(parts);
function hiss(audio: Int16Array, level: number): Int16Array {
  let seed = 7;
  return audio.map((x) => {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    return Math.max(-32_768, Math.min(32_767, x + Math.round(((seed / 2 ** 32) * 2 - 1) * level)));
  });
}

describe('finding a beep in audio', () => {
  it('finds a beep after a second of quiet, with its start, end and pitch, at telephone and wideband rates', () => {
    for (const rate of [8_000, 16_000, 48_000]) {
      const detector = new ToneDetector(rate);
      const confirmed = detector.push(hiss(join(silence(rate, 1_000), sine(rate, 400, 1_000), silence(rate, 500)), 150));
      expect(confirmed, `${rate} Hz`).toHaveLength(1);
      const [tone] = detector.tones;
      expect(tone!.start).toBeGreaterThanOrEqual(980);
      expect(tone!.start).toBeLessThanOrEqual(1_040);
      expect(tone!.confirmedAt - tone!.start).toBeGreaterThanOrEqual(160);
      expect(tone!.end! - 1_400).toBeLessThanOrEqual(40);
      expect(Math.abs(tone!.hz - 1_000)).toBeLessThanOrEqual(50);
    }
  });

  it('finds the same beep whether the audio comes in one piece or in uneven frames', () => {
    const audio = join(silence(16_000, 300), sine(16_000, 300, 850), silence(16_000, 300));
    const whole = new ToneDetector(16_000);
    whole.push(audio);
    const pieces = new ToneDetector(16_000);
    for (let at = 0; at < audio.length; at += 123) pieces.push(audio.subarray(at, at + 123));
    expect(pieces.tones).toEqual(whole.tones);
  });

  it('hears no beep in a blip shorter than a beep, in quiet hiss, or in two tones at once', () => {
    const rate = 16_000;
    const detector = new ToneDetector(rate);
    const dual = sine(rate, 500, 697).map((x, i) => x / 2 + Math.round(4_500 * Math.sin((2 * Math.PI * 1_209 * i) / rate)));
    detector.push(hiss(join(sine(rate, 100, 1_000), silence(rate, 500), silence(rate, 1_000), dual), 150));
    expect(detector.tones).toEqual([]);
  });

  it('hears no beep in a held vowel, whose energy spreads over its harmonics', () => {
    const rate = 16_000;
    // A sung "ah" at 140 Hz for a second: harmonics weighted by the vowel's formants near 700 and 1,200 Hz.
    const formant = (hz: number) => Math.exp(-(((hz - 700) / 250) ** 2)) + 0.6 * Math.exp(-(((hz - 1_200) / 300) ** 2)) + 0.05;
    const vowel = Int16Array.from({ length: rate }, (_, i) => {
      let x = 0;
      for (let h = 1; h * 140 < 4_000; h++) x += formant(h * 140) * Math.sin((2 * Math.PI * h * 140 * i) / rate);
      return Math.round(4_000 * x);
    });
    const detector = new ToneDetector(rate);
    detector.push(vowel);
    expect(detector.tones).toEqual([]);
  });
});
