import { AudioFrame } from '@livekit/rtc-node';
import { espeakSynthesize } from '../../media/voice/espeak.js';
import type { PushAudioInput } from '../../agent/io/push-audio-input.js';
import { resampleLinear } from '../../media/pcm.js';

// A caller that speaks into a call on a schedule: a telephone-like stream of 20 ms frames at 16 kHz, silence except
// where an utterance was scheduled. Speech is espeak-ng's, which Silero hears as speech and pocketsphinx decodes
// exactly when the phrase is in its grammar.

export const CALLER_RATE = 16_000;
const FRAME_SAMPLES = CALLER_RATE / 50;
const cache = new Map<string, Int16Array>();

export async function speechSamples(text: string): Promise<Int16Array> {
  let samples = cache.get(text);
  if (!samples) {
    const audio = await espeakSynthesize(text, { voice: 'en-us', wordsPerMinute: 175, pitch: 50 });
    samples = resampleLinear(audio.samples, audio.sampleRate, CALLER_RATE);
    cache.set(text, samples);
  }
  return samples;
}

export interface ScheduledUtterance {
  /** Milliseconds after the caller starts, or after `after` first held. */
  atMs: number;
  text: string;
  /**
   * Waits for this to hold before counting `atMs` (checked frame by frame): a reply to the welcome, words spoken into a
   * reply. Utterances play in the order given.
   */
  after?: () => boolean;
  /** Instead of speech, a steady tone (an answering machine's beep). */
  tone?: { hz: number; ms: number };
}

function toneSamples(tone: { hz: number; ms: number }): Int16Array {
  return Int16Array.from({ length: (CALLER_RATE * tone.ms) / 1000 }, (_, i) => Math.round(8_000 * Math.sin((2 * Math.PI * tone.hz * i) / CALLER_RATE)));
}

interface Pending {
  atMs: number;
  samples: Int16Array;
  text: string;
  after?: (() => boolean) | undefined;
  /** The frame time at which `after` was first seen to hold. */
  cuedAtMs?: number;
}

export class ScriptedCaller {
  readonly #input: PushAudioInput;
  readonly #pending: Pending[] = [];
  #current: Int16Array | undefined;
  #offset = 0;
  #timer: NodeJS.Timeout | undefined;
  #startedAt = 0;
  #sentFrames = 0;
  /** When each utterance actually started and ended, ms after start. */
  readonly spoken: Array<{ text: string; startMs: number; endMs: number }> = [];

  constructor(input: PushAudioInput) {
    this.#input = input;
  }

  async schedule(utterances: ScheduledUtterance[]): Promise<void> {
    for (const u of utterances)
      this.#pending.push({ atMs: u.atMs, samples: u.tone ? toneSamples(u.tone) : await speechSamples(u.text), text: u.text, after: u.after });
    // Timed from the start alone, the schedule is a timeline; a cued utterance keeps its place in the order given.
    if (utterances.every((u) => !u.after)) this.#pending.sort((a, b) => a.atMs - b.atMs);
  }

  /** Speaks now (after the current utterance, if one is playing). */
  async say(text: string): Promise<void> {
    this.#pending.push({ atMs: this.elapsedMs(), samples: await speechSamples(text), text });
  }

  elapsedMs(): number {
    return this.#startedAt ? Date.now() - this.#startedAt : 0;
  }

  get idle(): boolean {
    return !this.#current && this.#pending.length === 0;
  }

  start(): void {
    this.#startedAt = Date.now();
    this.#pump();
  }

  stop(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Whether an utterance starts at frame time `tMs`: its cue held (from the frame it was first seen to) `atMs` ago. */
  #due(next: Pending, tMs: number): boolean {
    if (!next.after) return next.atMs <= tMs;
    return next.cuedAtMs !== undefined && next.cuedAtMs + next.atMs <= tMs;
  }

  /**
   * Notes when each waiting utterance's cue first holds, so utterances on one cue keep their spacing. That is now, not
   * the frame being sent: frames sent to catch up with the clock are behind it, and the cue is news of the present.
   */
  #watchCues(): void {
    for (const p of this.#pending) if (p.after && p.cuedAtMs === undefined && p.after()) p.cuedAtMs = this.elapsedMs();
  }

  #pump = (): void => {
    // Sends every frame that is due by the wall clock, so timer jitter never slows the caller down.
    const due = Math.floor((Date.now() - this.#startedAt) / 20) + 1;
    while (this.#sentFrames < due) {
      const tMs = this.#sentFrames * 20;
      this.#watchCues();
      if (!this.#current && this.#pending[0] && this.#due(this.#pending[0], tMs)) {
        const next = this.#pending.shift()!;
        this.#current = next.samples;
        this.#offset = 0;
        this.spoken.push({ text: next.text, startMs: tMs, endMs: tMs + Math.round((next.samples.length * 1000) / CALLER_RATE) });
      }
      const data = new Int16Array(FRAME_SAMPLES);
      if (this.#current) {
        data.set(this.#current.subarray(this.#offset, this.#offset + FRAME_SAMPLES));
        this.#offset += FRAME_SAMPLES;
        if (this.#offset >= this.#current.length) this.#current = undefined;
      }
      this.#input.push(new AudioFrame(data, CALLER_RATE, 1, FRAME_SAMPLES));
      this.#sentFrames++;
    }
    this.#timer = setTimeout(this.#pump, 20);
  };
}
