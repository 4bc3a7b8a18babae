import { Readable } from 'node:stream';
import { createMp3Stream } from '../mp3.js';
import { bucketMsFor, PeakMeter, type PeaksDirection, storePeaks } from './peaks.js';
import type { RecordingStorage } from './storage.js';
import type { SpoolReader } from './spool.js';
import { wavHeader } from '../wav.js';
import { beepOver, type SampleRange } from './beep.js';

// A spooled recording rendered into its stored tracks: user, assistant, and mixed (their sum). Each track is read from
// the spool, encoded and streamed into storage one second at a time, so rendering a 60-minute call holds a few tens of
// KB of audio, not the ~115 MB each track of it is as PCM. The peaks the call's page draws as waveforms
// (media/recording/peaks.ts) are measured from those same reads and stored after the tracks; they are never a reason
// for a recording not to be stored.

export type Track = 'user' | 'assistant' | 'mixed';
export type RecordingFormat = 'mp3' | 'wav';

export interface StoredTrack {
  track: Track;
  format: RecordingFormat;
  storageKey: string;
  durationMs: number;
  sizeBytes: number;
  /** The local file, when the storage has one. */
  path?: string;
}

/** One second: the piece the MP3 encoder was always fed, so a track encodes to the same bytes however it is read. */
const CHUNK_SECONDS = 1;

export function recordingKey(callSid: string, track: Track, format: RecordingFormat): string {
  return `recordings/${callSid}/${track}.${format}`;
}

export interface StoreTracksOptions {
  callSid: string;
  tracks: Track[];
  format: RecordingFormat;
  /** Every track is this long; audio past it is cut, and silence fills it where nothing was written. */
  lengthSamples: number;
  storage: RecordingStorage;
  /** Told when the peaks could not be measured or stored: the tracks are stored all the same, and drawn as no waveform. */
  onPeaksError?: (error: unknown) => void;
  /**
   * Stretches of each direction replaced by a beep (beep.ts) before anything else reads them: the direction's own
   * track, the mixed track and the peaks all carry the beep, and nothing of the audio under it.
   */
  beeps?: Partial<Record<PeaksDirection, SampleRange[]>>;
}

/**
 * Which stored track each direction's peaks are measured from: its own, or the mixed track, whose rendering reads both.
 * A direction no stored track holds has no peaks: a recording that keeps only the assistant keeps no trace of the caller.
 */
const PEAKS_SOURCES: Record<PeaksDirection, Track[]> = { user: ['user', 'mixed'], assistant: ['assistant', 'mixed'] };

export async function storeSpooledTracks(spool: SpoolReader, options: StoreTracksOptions): Promise<StoredTrack[]> {
  const { format, lengthSamples } = options;
  const durationMs = Math.round((lengthSamples * 1000) / spool.sampleRate);
  const bucketMs = bucketMsFor(durationMs);
  const meters = new Map<PeaksDirection, { source: Track; meter: PeakMeter }>();
  let peaksError: unknown;
  for (const direction of ['user', 'assistant'] as const) {
    const source = PEAKS_SOURCES[direction].find((t) => options.tracks.includes(t));
    try {
      if (source) meters.set(direction, { source, meter: new PeakMeter(spool.sampleRate, lengthSamples, bucketMs) });
    } catch (error) {
      peaksError ??= error;
    }
  }
  const stored: StoredTrack[] = [];
  for (const track of options.tracks) {
    const heard = (direction: PeaksDirection, samples: Int16Array) => {
      const measured = meters.get(direction);
      if (peaksError !== undefined || measured?.source !== track) return;
      try {
        measured.meter.add(samples);
      } catch (error) {
        peaksError = error;
      }
    };
    let sizeBytes = 0;
    async function* counted(): AsyncGenerator<Buffer> {
      for await (const bytes of encode(samplesOf(spool, track, lengthSamples, heard, options.beeps ?? {}), format, spool.sampleRate, lengthSamples)) {
        sizeBytes += bytes.length;
        yield bytes;
      }
    }
    const storageKey = recordingKey(options.callSid, track, format);
    const put = await options.storage.put(storageKey, Readable.from(counted()), format === 'mp3' ? 'audio/mpeg' : 'audio/wav');
    stored.push({
      track,
      format,
      storageKey,
      durationMs,
      sizeBytes,
      ...(put.path ? { path: put.path } : {}),
    });
  }
  if (meters.size > 0) {
    try {
      if (peaksError !== undefined) throw peaksError;
      const tracks = Object.fromEntries([...meters].map(([direction, { meter }]) => [direction, meter.levels()]));
      await storePeaks(options.storage, options.callSid, { bucketMs, durationMs, tracks });
    } catch (error) {
      try {
        options.onPeaksError?.(error);
      } catch {
        // A report that fails changes nothing: the tracks are stored all the same.
      }
    }
  }
  return stored;
}

/** A track's samples one second at a time; `heard` is given each direction's samples as read, before any mixing. */
async function* samplesOf(
  spool: SpoolReader,
  track: Track,
  length: number,
  heard: (direction: PeaksDirection, samples: Int16Array) => void,
  beeps: Partial<Record<PeaksDirection, SampleRange[]>>,
): AsyncGenerator<Int16Array> {
  const step = spool.sampleRate * CHUNK_SECONDS;
  const read = async (direction: PeaksDirection, from: number, count: number) => {
    const samples = await spool.read(direction, from, count);
    const ranges = beeps[direction];
    if (ranges?.length) beepOver(samples, from, ranges, spool.sampleRate);
    return samples;
  };
  for (let from = 0; from < length; from += step) {
    const count = Math.min(step, length - from);
    if (track !== 'mixed') {
      const samples = await read(track, from, count);
      heard(track, samples);
      yield samples;
      continue;
    }
    const mixed = await read('user', from, count);
    const assistant = await read('assistant', from, count);
    heard('user', mixed);
    heard('assistant', assistant);
    // Int16Array stores wrap around; the sum is clipped instead.
    for (let i = 0; i < count; i++) mixed[i] = Math.max(-32768, Math.min(32767, mixed[i]! + assistant[i]!));
    yield mixed;
  }
}

async function* encode(chunks: AsyncIterable<Int16Array>, format: RecordingFormat, sampleRate: number, length: number): AsyncGenerator<Buffer> {
  if (format === 'wav') {
    yield wavHeader(length * 2, sampleRate, 1);
    for await (const chunk of chunks) yield Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    return;
  }
  const mp3 = await createMp3Stream(sampleRate);
  for await (const chunk of chunks) {
    const bytes = mp3.encode(chunk);
    if (bytes.length > 0) yield bytes;
  }
  yield mp3.finalize();
}
