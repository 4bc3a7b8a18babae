import type { AudioFrame } from '@livekit/rtc-node';
import { encodeMp3 } from './mp3.js';
import { downmix, resampleLinear } from './pcm.js';
import { encodeWav } from './wav.js';

// Records a call's two directions on one timeline: the caller's audio as it arrives and the assistant's audio as it
// actually played (an interrupted reply is cut where the caller stopped hearing it). The mixed track is their sum.

/** Recordings are telephone-band speech; 16 kHz keeps every word and halves the size of 32 kHz. */
export const RECORDING_RATE = 16_000;

export type Track = 'user' | 'assistant' | 'mixed';

class TrackBuffer {
  chunks: Array<{ at: number; samples: Int16Array }> = [];
  /** Next sample position for contiguous sources. */
  cursor = 0;

  place(at: number, samples: Int16Array): void {
    this.chunks.push({ at, samples });
    this.cursor = Math.max(this.cursor, at + samples.length);
  }

  render(length: number): Int16Array {
    const out = new Int16Array(length);
    for (const { at, samples } of this.chunks) {
      if (at >= length) continue;
      out.set(samples.subarray(0, Math.max(length - at, 0)), at);
    }
    return out;
  }
}

function toRecordingRate(frame: AudioFrame): Int16Array {
  return resampleLinear(downmix(frame.data, frame.channels), frame.sampleRate, RECORDING_RATE);
}

export interface RenderedTrack {
  track: Track;
  format: 'mp3' | 'wav';
  bytes: Buffer;
  durationMs: number;
}

export class CallRecorder {
  readonly #startedAt: number;
  readonly #user = new TrackBuffer();
  readonly #assistant = new TrackBuffer();
  #stoppedAt: number | undefined;

  constructor(startedAt = Date.now()) {
    this.#startedAt = startedAt;
  }

  /** A caller frame; frames are contiguous, so they are laid end to end (arrival jitter never opens gaps). */
  addUser(frame: AudioFrame): void {
    if (this.#stoppedAt !== undefined) return;
    this.#user.place(this.#user.cursor, toRecordingRate(frame));
  }

  /** An assistant frame at the wall-clock time it started to play. */
  addAssistant(frame: AudioFrame, playedAt: number): void {
    if (this.#stoppedAt !== undefined) return;
    const at = Math.max(Math.round(((playedAt - this.#startedAt) * RECORDING_RATE) / 1000), 0);
    // Within one frame of the previous one it is the same run of audio: lay it end to end so timer jitter adds no clicks.
    const cursor = this.#assistant.cursor;
    this.#assistant.place(Math.abs(at - cursor) <= RECORDING_RATE / 50 ? cursor : at, toRecordingRate(frame));
  }

  stop(at = Date.now()): void {
    this.#stoppedAt ??= at;
  }

  /** Renders the requested tracks, each as long as the call. */
  async render(tracks: Track[], format: 'mp3' | 'wav'): Promise<RenderedTrack[]> {
    const end = this.#stoppedAt ?? Date.now();
    const length = Math.max(Math.round(((end - this.#startedAt) * RECORDING_RATE) / 1000), this.#user.cursor);
    const user = this.#user.render(length);
    const assistant = this.#assistant.render(length);
    const out: RenderedTrack[] = [];
    for (const track of tracks) {
      let samples: Int16Array;
      if (track === 'user') samples = user;
      else if (track === 'assistant') samples = assistant;
      else {
        samples = new Int16Array(length);
        for (let i = 0; i < length; i++) samples[i] = Math.max(-32768, Math.min(32767, user[i]! + assistant[i]!));
      }
      const bytes = format === 'mp3' ? await encodeMp3(samples, RECORDING_RATE) : encodeWav({ samples, sampleRate: RECORDING_RATE, channels: 1 });
      out.push({ track, format, bytes, durationMs: Math.round((length * 1000) / RECORDING_RATE) });
    }
    return out;
  }
}
