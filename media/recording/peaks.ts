import type { RecordingStorage } from './storage.js';

// A recording's peaks: how loud each direction of the call was, bucket by bucket, so a call's page can draw both
// tracks as waveforms without decoding an MP3 on every view. They are measured while the tracks are rendered from the
// spool (media/recording/render.ts), from the PCM that is read one second at a time anyway, and stored beside the
// tracks as `recordings/<call_sid>/peaks.json`.
//
// Resolution: a bucket is 100 ms up to a 10-minute call, and the smallest multiple of 100 ms that keeps a direction
// within MAX_BUCKETS beyond it (600 ms for 60 minutes). A bucket's level is its loudest sample in decibels, one byte:
// 0 is FLOOR_DBFS or quieter, 255 full scale. Decibels rather than amplitude because a quiet caller at -30 dBFS
// would be a flat line on a linear scale; one byte because a screen is a few hundred levels tall at most. So a
// direction is at most 6,000 bytes, 8 KB as base64, and a 60-minute call's file about 16 KB.

export const PEAKS_VERSION = 1;
/** The finest bucket: a turn starts and a short overlap shows within a tenth of a second. */
export const BASE_BUCKET_MS = 100;
/** The most buckets a direction has: 10 minutes at 100 ms; a longer call gets longer buckets. */
export const MAX_BUCKETS = 6_000;
/** The quietest level told apart from silence: a phone line's own hiss sits around here. */
export const FLOOR_DBFS = -60;
/** No stored peaks file is larger: read from storage, anything larger is refused as not ours. */
export const PEAKS_MAX_BYTES = 64 * 1024;

const TOP_LEVEL = 255;
const FULL_SCALE = 32_768;

/** The directions peaks are kept for: the two sides of the conversation (the mixed track is their sum). */
export type PeaksDirection = 'user' | 'assistant';

export interface CallPeaks {
  bucketMs: number;
  /** The tracks' length: the last bucket may be shorter than the others. */
  durationMs: number;
  /** Each direction whose audio a stored track holds: one level (0 to 255) a bucket. */
  tracks: Partial<Record<PeaksDirection, Uint8Array>>;
}

export function peaksKey(callSid: string): string {
  return `recordings/${callSid}/peaks.json`;
}

/** The bucket for a recording this long: 100 ms, or longer where 100 ms would give more than MAX_BUCKETS. */
export function bucketMsFor(durationMs: number): number {
  return BASE_BUCKET_MS * Math.max(1, Math.ceil(durationMs / (BASE_BUCKET_MS * MAX_BUCKETS)));
}

/** A peak sample's magnitude (0 to 32768) as a level: 0 at FLOOR_DBFS or below, 255 at full scale, even dB steps. */
export function levelOf(peak: number): number {
  if (peak <= 0) return 0;
  const dbfs = 20 * Math.log10(peak / FULL_SCALE);
  return Math.max(0, Math.min(TOP_LEVEL, Math.round(((dbfs - FLOOR_DBFS) / -FLOOR_DBFS) * TOP_LEVEL)));
}

/**
 * Measures one direction's levels from its samples, given in order in pieces of any size. Bucket edges fall on whole
 * samples (the nearest to each multiple of the bucket), so the levels do not depend on how the samples were split.
 */
export class PeakMeter {
  readonly #levels: Uint8Array;
  readonly #length: number;
  readonly #bucketSamples: number;
  #bucket = 0;
  #position = 0;
  #boundary: number;
  #peak = 0;

  constructor(sampleRate: number, lengthSamples: number, bucketMs: number) {
    this.#length = lengthSamples;
    this.#bucketSamples = (bucketMs * sampleRate) / 1000;
    this.#levels = new Uint8Array(Math.ceil(lengthSamples / this.#bucketSamples));
    this.#boundary = this.#edge(1);
  }

  add(samples: Int16Array): void {
    let i = 0;
    while (i < samples.length && this.#position < this.#length) {
      const take = Math.min(samples.length - i, this.#boundary - this.#position);
      let peak = this.#peak;
      for (const end = i + take; i < end; i++) {
        const v = samples[i]!;
        const magnitude = v < 0 ? -v : v;
        if (magnitude > peak) peak = magnitude;
      }
      this.#peak = peak;
      this.#position += take;
      if (this.#position === this.#boundary) this.#close();
    }
  }

  /** The levels so far; a bucket not yet filled counts what it has, and those after it are silence. */
  levels(): Uint8Array {
    const levels = this.#levels.slice();
    if (this.#bucket < levels.length) levels[this.#bucket] = levelOf(this.#peak);
    return levels;
  }

  #close(): void {
    this.#levels[this.#bucket] = levelOf(this.#peak);
    this.#peak = 0;
    this.#bucket += 1;
    this.#boundary = this.#edge(this.#bucket + 1);
  }

  #edge(bucket: number): number {
    return Math.min(Math.round(bucket * this.#bucketSamples), this.#length);
  }
}

interface PeaksFile {
  version: typeof PEAKS_VERSION;
  bucket_ms: number;
  duration_ms: number;
  floor_dbfs: number;
  /** Base64 of one byte a bucket. */
  tracks: Partial<Record<PeaksDirection, string>>;
}

export function encodePeaks(peaks: CallPeaks): Buffer {
  const file: PeaksFile = {
    version: PEAKS_VERSION,
    bucket_ms: peaks.bucketMs,
    duration_ms: peaks.durationMs,
    floor_dbfs: FLOOR_DBFS,
    tracks: Object.fromEntries(Object.entries(peaks.tracks).map(([direction, levels]) => [direction, Buffer.from(levels).toString('base64')])),
  };
  return Buffer.from(JSON.stringify(file));
}

/** Peaks from a stored file; throws on a file of another version or shape, which is drawn as no waveform. */
export function decodePeaks(text: string): CallPeaks {
  const file = JSON.parse(text) as Partial<PeaksFile>;
  if (file.version !== PEAKS_VERSION) throw new Error(`recording peaks of an unknown version: ${String(file.version)}`);
  const { bucket_ms: bucketMs, duration_ms: durationMs } = file;
  if (!Number.isInteger(bucketMs) || bucketMs! <= 0 || !Number.isInteger(durationMs) || durationMs! < 0)
    throw new Error('recording peaks without their timing');
  const tracks: CallPeaks['tracks'] = {};
  for (const direction of ['user', 'assistant'] as const) {
    const encoded = file.tracks?.[direction];
    if (typeof encoded === 'string') tracks[direction] = new Uint8Array(Buffer.from(encoded, 'base64'));
  }
  return { bucketMs: bucketMs!, durationMs: durationMs!, tracks };
}

export async function storePeaks(storage: RecordingStorage, callSid: string, peaks: CallPeaks): Promise<void> {
  await storage.put(peaksKey(callSid), encodePeaks(peaks), 'application/json');
}

/** The call's stored peaks; null for a call without them (recorded before they were kept, or not recorded). */
export async function readPeaks(storage: RecordingStorage, callSid: string): Promise<CallPeaks | null> {
  const key = peaksKey(callSid);
  const size = await storage.size(key);
  if (size === null) return null;
  if (size > PEAKS_MAX_BYTES) throw new Error(`recording peaks of ${size} bytes, more than any stored`);
  const parts: Buffer[] = [];
  for await (const part of storage.read(key)) parts.push(part as Buffer);
  return decodePeaks(Buffer.concat(parts).toString('utf8'));
}
