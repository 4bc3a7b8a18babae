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
  /** Kept frames from `#head` on: forgetting moves the head, and the array is compacted now and then, not per frame. */
  #frames: Kept[] = [];
  #head = 0;
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
    this.#frames = [];
    this.#head = 0;
    this.#forwarded = 0;
  }

  /** Forgets audio before `position`: no utterance that is still to be cut starts there. */
  forgetBefore(position: number): void {
    while (this.#head < this.#frames.length && this.#frames[this.#head]!.start + this.#frames[this.#head]!.data.length <= position) this.#head++;
    if (this.#head >= 256 && this.#head * 2 >= this.#frames.length) {
      this.#frames = this.#frames.slice(this.#head);
      this.#head = 0;
    }
  }

  /** A copy of the samples in [from, to), or undefined when any of them is no longer (or not yet) kept. */
  copy(from: number, to: number): AudioFrame | undefined {
    const first = this.#frames[this.#head];
    if (from < 0 || to <= from || to > this.#forwarded || !first || first.start > from) return undefined;
    const out = new Int16Array(to - from);
    for (let i = this.#head; i < this.#frames.length; i++) {
      const frame = this.#frames[i]!;
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
