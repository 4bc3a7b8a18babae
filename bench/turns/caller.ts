import { AudioFrame } from '@livekit/rtc-node';
import type { PushAudioInput } from '../../agent/io/push-audio-input.js';
import { TRANSCRIPT_KEY } from '../pipeline/instant-providers.js';
import type { Labels } from './corpus/render.js';

// A caller on the wall clock, as in the pipeline benchmark (20 ms frames at 16 kHz, each pushed when complete, silence
// between clips), playing corpus items whose labels are sample positions. A clip starts on a frame boundary; the item's
// offset is leading silence inside the clip, so labels keep their sample precision on the call's timeline. The frame
// that holds a phrase's last voiced sample carries the phrase's words, which the instant recogniser gives at once.

export const CALLER_RATE = 16_000;
const FRAME_MS = 20;
const FRAME_SAMPLES = (CALLER_RATE * FRAME_MS) / 1000;

export interface Clip {
  samples: Int16Array;
  /** For each phrase: one past its last voiced sample, within the clip, and its words. */
  marks: Array<{ endSample: number; text: string }>;
}

/** A corpus rendering as the caller plays it: `offsetMs` of silence, then the audio, each phrase's words at its end. */
export function clipOf(audio: Int16Array, labels: Labels, offsetMs: number): Clip {
  if (audio.length !== labels.samples) throw new Error(`${labels.id}: audio does not match its labels`);
  const lead = Math.round((offsetMs * CALLER_RATE) / 1000);
  const samples = new Int16Array(lead + audio.length);
  samples.set(audio, lead);
  return { samples, marks: labels.phrases.map((p) => ({ endSample: lead + p.endSample, text: p.text })) };
}

interface Scheduled {
  clip: Clip;
  startFrame: number;
}

export class TimelineCaller {
  readonly #input: PushAudioInput;
  readonly #queue: Scheduled[] = [];
  #timer: NodeJS.Timeout | undefined;
  #startedAt = 0;
  #sentFrames = 0;
  /** Frame index after the last frame of the last clip scheduled: clips never overlap. */
  #freeFrame = 0;
  /** How much later than complete a frame was pushed, at most, ms: a busy core shows here. */
  maxPushLatenessMs = 0;

  constructor(input: PushAudioInput) {
    this.#input = input;
  }

  start(): void {
    this.#startedAt = Date.now();
    this.#timer = setTimeout(this.#pump, FRAME_MS);
  }

  stop(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /**
   * Plays `clip` from the first frame that starts at or after `notBefore` (wall-clock ms), and after any clip already
   * scheduled. Returns the wall-clock time of the clip's sample 0: sample n is heard at that time plus n / 16 ms.
   */
  play(clip: Clip, notBefore: number): number {
    const earliest = Math.ceil((notBefore - this.#startedAt) / FRAME_MS);
    const startFrame = Math.max(earliest, this.#freeFrame, this.#sentFrames);
    this.#queue.push({ clip, startFrame });
    this.#freeFrame = startFrame + Math.ceil(clip.samples.length / FRAME_SAMPLES);
    return this.#startedAt + startFrame * FRAME_MS;
  }

  #frame(k: number): AudioFrame {
    const current = this.#queue[0];
    if (!current || k < current.startFrame) return new AudioFrame(new Int16Array(FRAME_SAMPLES), CALLER_RATE, 1, FRAME_SAMPLES);
    const from = (k - current.startFrame) * FRAME_SAMPLES;
    const to = from + FRAME_SAMPLES;
    const data = new Int16Array(FRAME_SAMPLES);
    data.set(current.clip.samples.subarray(from, to));
    const words = current.clip.marks.filter((m) => m.endSample - 1 >= from && m.endSample - 1 < to).map((m) => m.text);
    if (to >= current.clip.samples.length) this.#queue.shift();
    return new AudioFrame(data, CALLER_RATE, 1, FRAME_SAMPLES, words.length ? { [TRANSCRIPT_KEY]: words.join(' ') } : {});
  }

  #pump = (): void => {
    // Frame k covers [20k, 20k + 20) ms and is complete at 20(k + 1); after a stall every overdue frame goes at once,
    // as a network buffer would deliver them.
    const now = Date.now();
    const complete = Math.floor((now - this.#startedAt) / FRAME_MS);
    while (this.#sentFrames < complete) {
      this.maxPushLatenessMs = Math.max(this.maxPushLatenessMs, now - (this.#startedAt + (this.#sentFrames + 1) * FRAME_MS));
      this.#input.push(this.#frame(this.#sentFrames));
      this.#sentFrames++;
    }
    const nextDue = this.#startedAt + (this.#sentFrames + 1) * FRAME_MS;
    this.#timer = setTimeout(this.#pump, Math.max(nextDue - Date.now(), 0));
  };
}
