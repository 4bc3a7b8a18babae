import type { AudioFrame } from '@livekit/rtc-node';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { downmix, resampleLinear } from '../pcm.js';
import { storeSpooledTracks, type RecordingFormat, type StoredTrack, type StoreTracksOptions, type Track } from './render.js';
import type { RecordingStorage } from './storage.js';
import { openSpool, removeSpool, SpoolWriter } from './spool.js';

// Records a call's two directions on one timeline, the call's clock from its start: the caller's audio where it was
// spoken (its first frame placed by its arrival, the rest following it) and the assistant's audio where it actually played (an interrupted reply is cut where the caller stopped hearing it). The mixed track is their sum.
// Audio goes to a spool on disk as the call runs (media/recording/spool.ts), so a call's memory does not grow with
// its length and a process that dies leaves its recording behind for the recovery sweep to render.

/** Recordings are telephone-band speech; 16 kHz keeps every word and halves the size of 32 kHz. */
export const RECORDING_RATE = 16_000;

export type { RecordingFormat, StoredTrack, Track };

/** The caller's first frames, 500 ms of them, say where the caller's track starts on the call's clock. */
const ANCHOR_FRAMES = 25;

/** Frames this close to where the previous one ended (one 20 ms frame) continue it. */
const CONTIGUOUS_SAMPLES = RECORDING_RATE / 50;

function toRecordingRate(frame: AudioFrame): Int16Array {
  return resampleLinear(downmix(frame.data, frame.channels), frame.sampleRate, RECORDING_RATE);
}

export class CallRecorder {
  readonly #startedAt: number;
  readonly #spool: SpoolWriter;
  /** Next sample position of each direction. */
  #userCursor = 0;
  #assistantCursor = 0;
  /** The caller's first frames, held until they say where the track starts. */
  #anchoring: Array<{ samples: Int16Array; receivedAt: number | undefined }> | undefined = [];
  #stoppedAt: number | undefined;

  /**
   * A call's spool folder comes from `spoolDirOf` (media/recording/spool.ts); without one (a benchmark, a tool) the
   * spool goes to a folder of its own under the system's temp dir, which `save` or `discard` removes.
   */
  constructor(startedAt = Date.now(), spoolDir = path.join(os.tmpdir(), `call-recording-${randomUUID()}`, '.spool')) {
    this.#startedAt = startedAt;
    this.#spool = new SpoolWriter(spoolDir, { sampleRate: RECORDING_RATE, startedAt });
  }

  get spoolDir(): string {
    return this.#spool.dir;
  }

  /**
   * A caller frame, `receivedAt` the wall-clock time it arrived. The caller's track is placed on the call's clock, where
   * it was spoken, as the assistant's frames are placed where they played: a frame arrives once heard whole, and never
   * before it was spoken, but it may arrive late, the first ones in a burst behind a slow start. So the first
   * `ANCHOR_FRAMES` are held, and the track starts where the earliest of them says it must (each frame's arrival less
   * the audio up to its end); from there frames are contiguous and laid end to end (arrival jitter never opens gaps).
   * Without `receivedAt` the track starts with the first frame.
   */
  addUser(frame: AudioFrame, receivedAt?: number): void {
    if (this.#stoppedAt !== undefined) return;
    const samples = toRecordingRate(frame);
    if (this.#anchoring) {
      this.#anchoring.push({ samples, receivedAt });
      if (this.#anchoring.length >= ANCHOR_FRAMES) this.#placeUser();
      return;
    }
    this.#spool.write('user', this.#userCursor, samples);
    this.#userCursor += samples.length;
  }

  /** Places the held first frames of the caller and writes them. */
  #placeUser(): void {
    const held = this.#anchoring;
    if (!held) return;
    this.#anchoring = undefined;
    let heard = 0;
    let start = Number.POSITIVE_INFINITY;
    for (const { samples, receivedAt } of held) {
      heard += samples.length;
      if (receivedAt !== undefined) start = Math.min(start, Math.round(((receivedAt - this.#startedAt) * RECORDING_RATE) / 1000) - heard);
    }
    this.#userCursor = Number.isFinite(start) ? Math.max(start, 0) : 0;
    for (const { samples } of held) {
      this.#spool.write('user', this.#userCursor, samples);
      this.#userCursor += samples.length;
    }
  }

  /** An assistant frame at the wall-clock time it started to play. */
  addAssistant(frame: AudioFrame, playedAt: number): void {
    if (this.#stoppedAt !== undefined) return;
    const samples = toRecordingRate(frame);
    const at = Math.max(Math.round(((playedAt - this.#startedAt) * RECORDING_RATE) / 1000), 0);
    // Within one frame of the previous one it is the same run of audio: laid end to end so timer jitter adds no clicks.
    const place = Math.abs(at - this.#assistantCursor) <= CONTIGUOUS_SAMPLES ? this.#assistantCursor : at;
    this.#spool.write('assistant', place, samples);
    this.#assistantCursor = Math.max(this.#assistantCursor, place + samples.length);
  }

  stop(at = Date.now()): void {
    this.#placeUser();
    this.#stoppedAt ??= at;
  }

  /**
   * Renders the requested tracks, each as long as the call, into storage, with their peaks beside them
   * (`onPeaksError` hears why there are none). The spool stays until `discard`: the caller removes it once the call's
   * record lists the tracks, so a process that dies in between still leaves it behind.
   */
  async save(
    storage: RecordingStorage,
    callSid: string,
    tracks: Track[],
    format: RecordingFormat,
    options: Pick<StoreTracksOptions, 'onPeaksError' | 'beeps'> = {},
  ): Promise<StoredTrack[]> {
    this.stop();
    const lengthSamples = Math.max(Math.round(((this.#stoppedAt! - this.#startedAt) * RECORDING_RATE) / 1000), this.#userCursor);
    await this.#spool.close();
    const spool = await openSpool(this.#spool.dir);
    if (!spool) throw new Error('recording spool is missing');
    let stored: StoredTrack[];
    try {
      stored = await storeSpooledTracks(spool, { callSid, tracks, format, lengthSamples, storage, ...options });
    } finally {
      await spool.close();
    }
    return stored;
  }

  /** Stops recording and removes the spool: after the tracks are listed on the call, or when none are kept. Safe to call twice. */
  async discard(): Promise<void> {
    this.stop();
    await this.#spool.close().catch(() => {});
    await removeSpool(this.#spool.dir);
  }
}
