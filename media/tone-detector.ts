// Finds steady tones in a stream of audio: the beep an answering machine plays before it records (a single sine of
// 400 to 2,500 Hz, lasting a fifth of a second to a second), which no voice makes. Every 20 ms frame is windowed
// (Hann) and its power measured on a grid of 50 Hz bins by the Goertzel algorithm; a frame is tonal when the main
// lobe around its strongest bin holds most of the frame's energy (a pure tone: ~1; a voice, whose energy spreads over
// its harmonics and formants: well under half) and it is loud enough not to be line noise. A tone is `MIN_TONE_MS` of
// tonal frames at one pitch.

const FRAME_MS = 20;
const BIN_HZ = 50;
const LOW_HZ = 350;
const HIGH_HZ = 2_500;
/** The main lobe's share of the frame's energy above which a frame is a tone (a sine measures 0.95 and more). */
const TONALITY = 0.8;
/** RMS below this (about -48 dBFS) is the line's own hiss, not a beep. */
const MIN_RMS = 130;
/** Short enough for the shortest beeps measured (about 200 ms), long enough that no sung or held vowel passes. */
export const MIN_TONE_MS = 160;
/** A single frame that misses (a click, the codec) does not end a tone. */
const MAX_GAP_FRAMES = 1;

export interface Tone {
  /** ms from the first sample the detector was given. */
  start: number;
  /** Set once the tone has ended. */
  end?: number | undefined;
  /** When the tone had lasted long enough to be one: the moment it is known. */
  confirmedAt: number;
  hz: number;
}

export class ToneDetector {
  readonly tones: Tone[] = [];
  #rate: number;
  #frameLength: number;
  #window: Float64Array;
  #bins: { k: number; coefficient: number }[];
  #pending = new Int16Array(0);
  #framesSeen = 0;
  #run: { startFrame: number; bin: number; frames: number; gap: number; tone?: Tone } | null = null;

  constructor(sampleRate: number) {
    this.#rate = sampleRate;
    this.#frameLength = Math.round((sampleRate * FRAME_MS) / 1000);
    const n = this.#frameLength;
    this.#window = Float64Array.from({ length: n }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (n - 1)));
    this.#bins = [];
    const binHz = sampleRate / n;
    for (let k = Math.floor(LOW_HZ / binHz); k * binHz <= Math.min(HIGH_HZ, sampleRate / 2 - binHz); k++) {
      this.#bins.push({ k, coefficient: 2 * Math.cos((2 * Math.PI * k) / n) });
    }
  }

  /** Adds audio at the detector's sample rate; answers the tones confirmed by it. */
  push(samples: Int16Array): Tone[] {
    const joined = new Int16Array(this.#pending.length + samples.length);
    joined.set(this.#pending);
    joined.set(samples, this.#pending.length);
    const confirmed: Tone[] = [];
    let at = 0;
    for (; at + this.#frameLength <= joined.length; at += this.#frameLength) {
      const tone = this.#frame(joined.subarray(at, at + this.#frameLength));
      if (tone) confirmed.push(tone);
    }
    this.#pending = joined.slice(at);
    return confirmed;
  }

  #frame(frame: Int16Array): Tone | undefined {
    const index = this.#framesSeen++;
    const bin = this.#tonalBin(frame);
    const run = this.#run;
    if (bin !== null && run && Math.abs(bin - run.bin) <= 1) {
      run.frames += 1 + run.gap;
      run.gap = 0;
    } else if (bin === null && run && run.gap < MAX_GAP_FRAMES) {
      run.gap++;
      return undefined;
    } else {
      if (run?.tone) run.tone.end = this.#ms(run.startFrame + run.frames);
      this.#run = bin === null ? null : { startFrame: index, bin, frames: 1, gap: 0 };
      return undefined;
    }
    if (!run.tone && run.frames * FRAME_MS >= MIN_TONE_MS) {
      run.tone = { start: this.#ms(run.startFrame), confirmedAt: this.#ms(index + 1), hz: Math.round((run.bin * this.#rate) / this.#frameLength) };
      this.tones.push(run.tone);
      return run.tone;
    }
    return undefined;
  }

  #ms(frames: number): number {
    return frames * FRAME_MS;
  }

  /** The bin of the frame's tone, or null when the frame is not a tone. */
  #tonalBin(frame: Int16Array): number | null {
    const n = this.#frameLength;
    const windowed = new Float64Array(n);
    let energy = 0;
    let raw = 0;
    for (let i = 0; i < n; i++) {
      windowed[i] = frame[i]! * this.#window[i]!;
      energy += windowed[i]! * windowed[i]!;
      raw += frame[i]! * frame[i]!;
    }
    if (Math.sqrt(raw / n) < MIN_RMS) return null;
    const powers = this.#bins.map(({ coefficient }) => {
      let s1 = 0;
      let s2 = 0;
      for (let i = 0; i < n; i++) {
        const s0 = windowed[i]! + coefficient * s1 - s2;
        s2 = s1;
        s1 = s0;
      }
      return s1 * s1 + s2 * s2 - coefficient * s1 * s2;
    });
    let best = 0;
    for (let i = 1; i < powers.length; i++) if (powers[i]! > powers[best]!) best = i;
    const lobe = (powers[best - 1] ?? 0) + powers[best]! + (powers[best + 1] ?? 0);
    // Parseval: the bins of the whole spectrum hold n times the frame's energy, half of it at positive frequencies.
    return (2 * lobe) / (n * energy) >= TONALITY ? this.#bins[best]!.k : null;
  }
}
