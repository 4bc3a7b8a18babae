import { stt } from '@livekit/agents';
import { substantiveWords } from './backchannels.js';

// What the caller says while the assistant is speaking, held back until it is clear whether it is a turn. The session
// takes any words the recogniser gives as the caller's: a final transcript over the reply interrupts it, and the words
// are answered as a turn, so "mm-hmm" stopped every reply and drew an answer of its own (docs/benchmarks.md,
// Turn-taking). Here the words of an utterance that began over the assistant reach the session only once they hold
// `min_interruption_words` words that are not acknowledgements ("yeah", "okay", "I see": agent/turn/backchannels.ts);
// they are then released in order, and the session interrupts the reply and takes the turn as it would have. An
// utterance that ends with too few such words is dropped: the reply goes on (or resumes, when the caller's voice alone
// had paused it), and the words never become a turn. If the reply has ended by then, the caller was answering it, and
// the words are released after all.

type SpeechEvent = stt.SpeechEvent;

export interface OverlapFilterOptions {
  /** Words other than acknowledgements that make an utterance over the assistant a turn (at least one). */
  minWords: number;
  /** Whether the assistant's reply is still playing or paused: dropped words would otherwise be an answer. */
  replyActive: () => boolean;
  /** An utterance over the assistant came to nothing: the reply may go on at once. */
  onDropped: (words: number) => void;
}

export class OverlapFilter {
  readonly #options: OverlapFilterOptions;
  /** The caller's current utterance began while the assistant was speaking, and has not been released. */
  #overlapping = false;
  #callerSpeaking = false;
  #held: SpeechEvent[] = [];
  #finalText = '';
  #interimText = '';
  #heardFinal = false;

  constructor(options: OverlapFilterOptions) {
    this.#options = options;
  }

  /** Whether words are being held back now. */
  get holding(): boolean {
    return this.#overlapping;
  }

  /** The caller started speaking (the VAD); `assistantSpeaking`: the assistant's audio was playing at that moment. */
  callerStarted(assistantSpeaking: boolean): void {
    this.#callerSpeaking = true;
    // An overlap not yet settled goes on: "mm-hmm ... wait" is one utterance to judge.
    if (!this.#overlapping) this.#overlapping = assistantSpeaking;
  }

  /** The caller stopped speaking (the VAD): what is held is settled once its final words are in. */
  callerStopped(): SpeechEvent[] {
    this.#callerSpeaking = false;
    return this.#overlapping && this.#heardFinal ? this.#settle() : [];
  }

  /** An event from the recogniser: answers the events to pass on now, in order. */
  accept(event: SpeechEvent): SpeechEvent[] {
    const isWords = event.type === stt.SpeechEventType.FINAL_TRANSCRIPT || event.type === stt.SpeechEventType.INTERIM_TRANSCRIPT;
    if (!this.#overlapping || !isWords) return [event];
    this.#held.push(event);
    const text = event.alternatives?.[0]?.text ?? '';
    if (event.type === stt.SpeechEventType.FINAL_TRANSCRIPT) {
      this.#finalText = `${this.#finalText} ${text}`.trim();
      this.#interimText = '';
      this.#heardFinal = true;
    } else {
      this.#interimText = text;
    }
    if (substantiveWords(`${this.#finalText} ${this.#interimText}`).length >= Math.max(1, this.#options.minWords)) return this.#release();
    return this.#heardFinal && !this.#callerSpeaking ? this.#settle() : [];
  }

  /** The utterance over the assistant is over with too few words: dropped, unless the reply has ended meanwhile. */
  #settle(): SpeechEvent[] {
    if (!this.#options.replyActive()) return this.#release();
    const words = substantiveWords(this.#finalText).length;
    this.#reset();
    this.#options.onDropped(words);
    return [];
  }

  #release(): SpeechEvent[] {
    const held = this.#held;
    this.#reset();
    return held;
  }

  #reset(): void {
    this.#overlapping = false;
    this.#held = [];
    this.#finalText = '';
    this.#interimText = '';
    this.#heardFinal = false;
  }
}
