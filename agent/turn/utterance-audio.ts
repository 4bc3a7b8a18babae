import { AudioFrame } from '@livekit/rtc-node';

// The audio a VAD stream was handed, kept by position so that an utterance can be cut from it again. The framework's
// native VAD (`inference.VAD`, @livekit/agents 1.9) hands each start- and end-of-speech event a view of its own speech
// buffer, not a copy, and right after the end of speech it moves the last 500 ms of that buffer to its front, where
// the next audio then lands: by the time any consumer reads the utterance, its first half second (the pre-roll and
// often the first word) holds the utterance's own tail. A recogniser that decodes whole utterances (the offline one,
// through the framework's stream adapter) then hears "...ment [silence] book an appointment" and, with a grammar,
// nothing at all: the caller's sentence went unanswered. The events are given back their audio from here.

interface Kept {
  /** Position of the frame's first sample since the stream's last reset. */
  start: number;
  data: Int16Array;
}

export class UtteranceAudio {
  readonly #frames: Kept[] = [];
  #forwarded = 0;
  #sampleRate = 0;

  /** Samples handed over since the last reset. */
  get forwarded(): number {
    return this.#forwarded;
  }

  get sampleRate(): number {
    return this.#sampleRate;
  }

  /** A frame handed to the VAD; mono frames at the stream's first rate are kept (the VAD refuses any other rate). */
  push(frame: AudioFrame): void {
    if (this.#sampleRate === 0) this.#sampleRate = frame.sampleRate;
    if (frame.sampleRate !== this.#sampleRate || frame.channels !== 1) return;
    this.#frames.push({ start: this.#forwarded, data: frame.data });
    this.#forwarded += frame.samplesPerChannel;
  }

  /** The VAD was reset (a flush): positions start again from zero. */
  reset(): void {
    this.#frames.length = 0;
    this.#forwarded = 0;
  }

  /** Forgets audio before `position`: no utterance that is still to be cut starts there. */
  forgetBefore(position: number): void {
    let drop = 0;
    while (drop < this.#frames.length && this.#frames[drop]!.start + this.#frames[drop]!.data.length <= position) drop++;
    if (drop > 0) this.#frames.splice(0, drop);
  }

  /** A copy of the samples in [from, to), or undefined when any of them is no longer (or not yet) kept. */
  copy(from: number, to: number): AudioFrame | undefined {
    if (from < 0 || to <= from || to > this.#forwarded || this.#frames.length === 0 || this.#frames[0]!.start > from) return undefined;
    const out = new Int16Array(to - from);
    for (const frame of this.#frames) {
      const end = frame.start + frame.data.length;
      if (end <= from) continue;
      if (frame.start >= to) break;
      const a = Math.max(from, frame.start);
      const b = Math.min(to, end);
      out.set(frame.data.subarray(a - frame.start, b - frame.start), a - from);
    }
    return new AudioFrame(out, this.#sampleRate, 1, out.length);
  }
}
