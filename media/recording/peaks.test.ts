import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  BASE_BUCKET_MS,
  bucketMsFor,
  type CallPeaks,
  decodePeaks,
  encodePeaks,
  levelOf,
  MAX_BUCKETS,
  PeakMeter,
  peaksKey,
  readPeaks,
  storePeaks,
} from './peaks.js';
import { LocalFileStorage } from './storage.js';

const RATE = 16_000;

/** A 1 kHz sine of `amplitude`: at 16 kHz every 16th sample is a crest, so the peak is the amplitude itself. */
function tone(samples: number, amplitude: number): Int16Array {
  return Int16Array.from({ length: samples }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * 1000 * i) / RATE)));
}

/** Feeds `signal` to a meter in pieces of `piece` samples, as the renderer reads a spool. */
function measure(signal: Int16Array, bucketMs: number, piece: number): Uint8Array {
  const meter = new PeakMeter(RATE, signal.length, bucketMs);
  for (let from = 0; from < signal.length; from += piece) meter.add(signal.subarray(from, from + piece));
  return meter.levels();
}

describe('recording peaks', () => {
  it('puts levels on a decibel scale: silence 0, full scale 255, -20 dBFS two thirds of the way up', () => {
    expect(levelOf(0)).toBe(0);
    expect(levelOf(1)).toBe(0);
    expect(levelOf(32_768)).toBe(255);
    expect(levelOf(32_767)).toBe(255);
    // 3277 is -20 dBFS: 40 of the scale's 60 dB.
    expect(levelOf(3_277)).toBe(170);
  });

  it('measures a call silent for a second and then a -20 dBFS tone as ten silent buckets and ten at the tone’s level', () => {
    const signal = new Int16Array(2 * RATE);
    signal.set(tone(RATE, 3_277), RATE);
    const levels = measure(signal, BASE_BUCKET_MS, RATE);
    expect(Array.from(levels)).toEqual([...Array<number>(10).fill(0), ...Array<number>(10).fill(170)]);
  });

  it('gives the same levels however the samples are split, with a last bucket shorter than the others', () => {
    // 2.05 s: the tone starts 50 ms into the 13th bucket, and the 21st bucket holds 50 ms.
    const signal = new Int16Array(Math.round(2.05 * RATE));
    signal.set(tone(signal.length - 20_000, 32_767), 20_000);
    const whole = measure(signal, BASE_BUCKET_MS, signal.length);
    expect(whole.length).toBe(21);
    expect(Array.from(whole.subarray(0, 12))).toEqual(Array<number>(12).fill(0));
    expect(Array.from(whole.subarray(12))).toEqual(Array<number>(9).fill(255));
    for (const piece of [1, 333, 1_600, 16_000]) expect(measure(signal, BASE_BUCKET_MS, piece)).toEqual(whole);
  });

  it('keeps 100 ms buckets up to ten minutes, and lengthens them beyond so no direction has more than 6,000', () => {
    expect(bucketMsFor(42_000)).toBe(100);
    expect(bucketMsFor(10 * 60_000)).toBe(100);
    expect(bucketMsFor(10 * 60_000 + 1)).toBe(200);
    expect(bucketMsFor(60 * 60_000)).toBe(600);
    for (const minutes of [1, 9.99, 10.01, 37, 60, 180]) {
      const durationMs = minutes * 60_000;
      expect(Math.ceil(durationMs / bucketMsFor(durationMs))).toBeLessThanOrEqual(MAX_BUCKETS);
    }
  });

  it('stores a 60-minute call’s two directions in under 20 KB', () => {
    const durationMs = 60 * 60_000;
    const bucketMs = bucketMsFor(durationMs);
    const length = (durationMs / 1000) * RATE;
    // A second of speech-like noise, its loudness changing every 100 ms, read again and again as the renderer reads a spool.
    const second = Int16Array.from({ length: RATE }, (_, i) => Math.round((((i * 7_919) % 2_001) / 1_000 - 1) * 30 * (1 + Math.floor(i / 1_600)) ** 3));
    const tracks: CallPeaks['tracks'] = {};
    for (const direction of ['user', 'assistant'] as const) {
      const meter = new PeakMeter(RATE, length, bucketMs);
      for (let from = 0; from < length; from += RATE) meter.add(second);
      tracks[direction] = meter.levels();
    }
    expect(tracks.user!.length).toBe(6_000);
    const encoded = encodePeaks({ bucketMs, durationMs, tracks });
    expect(encoded.length).toBeLessThan(20 * 1024);
    const decoded = decodePeaks(encoded.toString('utf8'));
    expect(decoded).toEqual({ bucketMs: 600, durationMs, tracks });
  });

  it('refuses a peaks file of another version rather than drawing it wrong', () => {
    expect(() => decodePeaks(JSON.stringify({ version: 2, bucket_ms: 100, duration_ms: 1000, tracks: {} }))).toThrow(/unknown version/);
    expect(() => decodePeaks(JSON.stringify({ version: 1, tracks: {} }))).toThrow(/timing/);
  });

  it('is stored beside the tracks and read back; a call without peaks reads as none', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'peaks-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const storage = new LocalFileStorage(dir);
    expect(await readPeaks(storage, 'CAnone')).toBeNull();
    const peaks: CallPeaks = { bucketMs: 100, durationMs: 300, tracks: { user: Uint8Array.of(0, 128, 255) } };
    await storePeaks(storage, 'CAstored', peaks);
    expect(peaksKey('CAstored')).toBe('recordings/CAstored/peaks.json');
    expect(await readPeaks(storage, 'CAstored')).toEqual(peaks);
  });
});
