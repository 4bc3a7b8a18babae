// The beep that stands in a recording where a `redacted` call said a personal detail. A beep rather than silence: a
// listener hears that something was removed, where silence would pass for a pause. A 1 kHz sine at a quarter of full
// scale (about -12 dBFS), its phase fixed by the sample's place on the call's timeline, so the same range of a track
// always renders to the same samples (a test can check a range holds the beep and nothing of the speech under it).

export const BEEP_HZ = 1000;
export const BEEP_AMPLITUDE = 8192;

/** A stretch of a track, in samples on the call's timeline: [from, to). */
export interface SampleRange {
  from: number;
  to: number;
}

/** The beep's sample at position `n` of a track at `sampleRate`. */
export function beepSample(n: number, sampleRate: number): number {
  return Math.round(BEEP_AMPLITUDE * Math.sin((2 * Math.PI * BEEP_HZ * n) / sampleRate));
}

/** Replaces, in place, the samples of `chunk` (which starts at sample `at`) that lie in any range with the beep. */
export function beepOver(chunk: Int16Array, at: number, ranges: readonly SampleRange[], sampleRate: number): void {
  for (const range of ranges) {
    const from = Math.max(range.from, at);
    const to = Math.min(range.to, at + chunk.length);
    for (let n = from; n < to; n++) chunk[n - at] = beepSample(n, sampleRate);
  }
}

/** Ranges in ms on the call's clock as sample ranges at `sampleRate`, widened by `marginMs` each side, never below 0. */
export function sampleRangesOf(rangesMs: ReadonlyArray<{ startMs: number; endMs: number }>, sampleRate: number, marginMs = 0): SampleRange[] {
  return rangesMs.map((r) => ({
    from: Math.max(Math.floor(((r.startMs - marginMs) * sampleRate) / 1000), 0),
    to: Math.ceil(((r.endMs + marginMs) * sampleRate) / 1000),
  }));
}
