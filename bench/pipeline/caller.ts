import { AudioFrame } from '@livekit/rtc-node';
import type { PushAudioInput } from '../../agent/io/push-audio-input.js';
import { TRANSCRIPT_KEY } from './instant-providers.js';

// A caller on the wall clock: 20 ms frames at 16 kHz, silence between utterances, each frame pushed when it is complete
// (as a transport receives it). The push time of an utterance's last speech frame is the reference "end of speech".

export const CALLER_RATE = 16_000;
const FRAME_MS = 20;
const FRAME_SAMPLES = (CALLER_RATE * FRAME_MS) / 1000;

export interface Utterance {
  text: string;
  /** 16 kHz mono speech, trimmed of leading and trailing silence. */
  samples: Int16Array;
}

export class BenchCaller {
  readonly #input: PushAudioInput;
  readonly #pending: Array<{ atMs: number; utterance: Utterance }> = [];
  readonly #silence = new Int16Array(FRAME_SAMPLES);
  #current: Utterance | undefined;
  #offset = 0;
  #timer: NodeJS.Timeout | undefined;
  #startedAt = 0;
  #sentFrames = 0;
  /** Called with the wall-clock time at which an utterance's last speech frame was pushed. */
  onSpeechEnd: ((text: string, pushedAt: number) => void) | undefined;

  constructor(input: PushAudioInput) {
    this.#input = input;
  }

  /** Speaks `utterance` at `atMs` after start, or as soon as possible (after any utterance still playing). */
  say(utterance: Utterance, atMs = this.elapsedMs()): void {
    this.#pending.push({ atMs, utterance });
    this.#pending.sort((a, b) => a.atMs - b.atMs);
  }

  elapsedMs(): number {
    return this.#startedAt ? Date.now() - this.#startedAt : 0;
  }

  get speaking(): boolean {
    return this.#current !== undefined;
  }

  start(): void {
    this.#startedAt = Date.now();
    this.#timer = setTimeout(this.#pump, FRAME_MS);
  }

  stop(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #pump = (): void => {
    // Frame k covers [20k, 20k + 20) ms and is complete at 20(k + 1). After a stall every overdue frame goes at once,
    // as a network buffer would deliver them; the count is bounded by the stall's length.
    const complete = Math.floor((Date.now() - this.#startedAt) / FRAME_MS);
    while (this.#sentFrames < complete) {
      const frameStartMs = this.#sentFrames * FRAME_MS;
      if (!this.#current && this.#pending[0] && this.#pending[0].atMs <= frameStartMs) {
        this.#current = this.#pending.shift()!.utterance;
        this.#offset = 0;
      }
      let frame: AudioFrame;
      let ended: string | undefined;
      if (this.#current) {
        const data = new Int16Array(FRAME_SAMPLES);
        data.set(this.#current.samples.subarray(this.#offset, this.#offset + FRAME_SAMPLES));
        this.#offset += FRAME_SAMPLES;
        if (this.#offset >= this.#current.samples.length) {
          ended = this.#current.text;
          this.#current = undefined;
        }
        frame = new AudioFrame(data, CALLER_RATE, 1, FRAME_SAMPLES, ended ? { [TRANSCRIPT_KEY]: ended } : {});
      } else {
        frame = new AudioFrame(this.#silence.slice(), CALLER_RATE, 1, FRAME_SAMPLES);
      }
      this.#input.push(frame);
      this.#sentFrames++;
      if (ended !== undefined) this.onSpeechEnd?.(ended, Date.now());
    }
    const nextDue = this.#startedAt + (this.#sentFrames + 1) * FRAME_MS;
    this.#timer = setTimeout(this.#pump, Math.max(nextDue - Date.now(), 0));
  };
}

/** Cuts leading and trailing samples quieter than about -50 dBFS, so the last frame pushed is the last one heard. */
export function trimSilence(samples: Int16Array, threshold = 100): Int16Array {
  let start = 0;
  let end = samples.length;
  while (start < end && Math.abs(samples[start]!) < threshold) start++;
  while (end > start && Math.abs(samples[end - 1]!) < threshold) end--;
  return samples.slice(start, end);
}
