import { describe, expect, it } from 'vitest';
import { CALLER_RATE, clipOf } from '../../bench/turns/caller.js';
import { CORPUS_RATE, VOICED_LEVEL, engineVersion, readManifest, renderItem, type Rendering } from '../../bench/turns/corpus/render.js';
import { OFFSETS_MS, SCRIPT, VOICES } from '../../bench/turns/corpus/script.js';

// The turn-taking corpus's labels hold on its audio: the labelled end of speech is the last voiced sample of the item
// as the caller plays it, at every offset, with nothing a VAD would call speech after it; every inserted pause is
// digital silence of the script's length, bordered by voiced audio. A handful of items, rendered afresh here.

const SAMPLES_PER_MS = CORPUS_RATE / 1000;
/** 10 ms windows after the end of speech stay this far below the voiced level: an engine's fade, not speech. */
const QUIET_AFTER_END_DB = -54;

const item = (id: string) => SCRIPT.find((i) => i.id === id)!;
const voice = (id: string) => VOICES.find((v) => v.id === id)!;

function lastVoiced(samples: Int16Array): number {
  for (let i = samples.length - 1; i >= 0; i--) if (Math.abs(samples[i]!) >= VOICED_LEVEL) return i;
  return -1;
}

function loudestDbAfter(samples: Int16Array, from: number): number {
  const window = 10 * SAMPLES_PER_MS;
  let loudest = -Infinity;
  for (let k = from; k + window <= samples.length; k += window / 2) {
    let energy = 0;
    for (let i = k; i < k + window; i++) energy += samples[i]! * samples[i]!;
    loudest = Math.max(loudest, 10 * Math.log10(energy / window / 32768 ** 2 + 1e-12));
  }
  return loudest;
}

function checkLabels({ labels, samples }: Rendering, pausesMs: number[]): void {
  expect(samples.length).toBe(labels.samples);
  for (const offsetMs of OFFSETS_MS) {
    const clip = clipOf(samples, labels, offsetMs);
    const lead = offsetMs * SAMPLES_PER_MS;
    const end = lead + labels.speechEndSample;
    // The end of speech, as played at this offset, is one past the last voiced sample, to the sample.
    expect(lastVoiced(clip.samples) + 1).toBe(end);
    expect(clip.marks.at(-1)!.endSample).toBe(end);
    expect(Math.abs(clip.samples[lead + labels.speechStartSample]!)).toBeGreaterThanOrEqual(VOICED_LEVEL);
    expect(clip.samples.subarray(0, lead).every((s) => s === 0)).toBe(true);
    if (end + 10 * SAMPLES_PER_MS <= clip.samples.length) expect(loudestDbAfter(clip.samples, end)).toBeLessThan(QUIET_AFTER_END_DB);
  }
  expect(labels.pauses.map((p) => (p.endSample - p.startSample) / SAMPLES_PER_MS)).toEqual(pausesMs);
  labels.pauses.forEach((pause, k) => {
    expect(samples.subarray(pause.startSample, pause.endSample).every((s) => s === 0)).toBe(true);
    // The pause is the whole silence between the two phrases: voiced audio on either side of it.
    expect(Math.abs(samples[pause.startSample - 1]!)).toBeGreaterThanOrEqual(VOICED_LEVEL);
    expect(Math.abs(samples[pause.endSample]!)).toBeGreaterThanOrEqual(VOICED_LEVEL);
    expect(pause.startSample).toBe(labels.phrases[k]!.endSample);
    expect(pause.endSample).toBe(labels.phrases[k + 1]!.startSample);
  });
}

describe('turn-taking corpus labels', () => {
  const cases = [
    { item: 'phone-415', voice: 'espeak-en-us' },
    { item: 'code-a7b9', voice: 'espeak-en-gb-rp-m7-fast' },
    { item: 'complete-3', voice: 'espeak-en-gb-f2' },
    { item: 'backchannel-1', voice: 'espeak-en-us-m3' },
    { item: 'barge-in-tuesday', voice: 'espeak-en-us-f4-slow' },
    { item: 'hesitation-thursday', voice: 'flite-kal16' },
  ];
  const manifest = readManifest();

  for (const c of cases) {
    const v = voice(c.voice);
    it.runIf(engineVersion(v.engine) !== null)(`${c.item} in ${c.voice}`, { timeout: 60_000 }, async () => {
      const rendering = await renderItem(item(c.item), v);
      checkLabels(rendering, item(c.item).pausesMs);
      // Where the engine is the one the manifest was written with, the committed labels are these, sample for sample.
      if (manifest.engines[v.engine] === engineVersion(v.engine)) {
        expect(rendering.labels).toEqual(manifest.items.find((l) => l.id === rendering.labels.id));
      }
    });
  }

  it('plays at the caller rate', () => {
    expect(CALLER_RATE).toBe(CORPUS_RATE);
  });
});
