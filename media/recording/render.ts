import { Readable } from 'node:stream';
import { createMp3Stream } from '../mp3.js';
import type { RecordingStorage } from './storage.js';
import type { SpoolReader } from './spool.js';
import { wavHeader } from '../wav.js';

// A spooled recording rendered into its stored tracks: user, assistant, and mixed (their sum). Each track is read from
// the spool, encoded and streamed into storage one second at a time, so rendering a 60-minute call holds a few tens of
// KB of audio, not the ~115 MB each track of it is as PCM.

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
}

export async function storeSpooledTracks(spool: SpoolReader, options: StoreTracksOptions): Promise<StoredTrack[]> {
  const { format, lengthSamples } = options;
  const stored: StoredTrack[] = [];
  for (const track of options.tracks) {
    let sizeBytes = 0;
    async function* counted(): AsyncGenerator<Buffer> {
      for await (const bytes of encode(samplesOf(spool, track, lengthSamples), format, spool.sampleRate, lengthSamples)) {
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
      durationMs: Math.round((lengthSamples * 1000) / spool.sampleRate),
      sizeBytes,
      ...(put.path ? { path: put.path } : {}),
    });
  }
  return stored;
}

async function* samplesOf(spool: SpoolReader, track: Track, length: number): AsyncGenerator<Int16Array> {
  const step = spool.sampleRate * CHUNK_SECONDS;
  for (let from = 0; from < length; from += step) {
    const count = Math.min(step, length - from);
    if (track !== 'mixed') {
      yield await spool.read(track, from, count);
      continue;
    }
    const mixed = await spool.read('user', from, count);
    const assistant = await spool.read('assistant', from, count);
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
