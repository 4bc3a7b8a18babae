import type { LanguageCode } from '@livekit/agents';
import { readTranscript, type TranscriptReading } from './text-turn-detector.js';
import type { TurnDecision } from '../../modules/calls/index.js';

// What one call knows about the caller's turn in progress, gathered for the end-of-turn decision and for the turn's
// record: the caller's words so far (what the recogniser released: the overlap filter holds back backchannels), what
// the assistant said last, whether the recogniser has declared the end of the utterance, and each decision taken,
// with the signals behind it. Nothing here holds the words in the record: a decision names rules and figures only.

/** One end-of-turn decision, as stored on the assistant turn it led to (`turn_decision`, modules/calls/schemas.ts). */
export type { TurnDecision };

export interface EndpointingDelays {
  minMs: number;
  maxMs: number;
}

export class TurnSignals {
  readonly delays: EndpointingDelays;
  /** The recogniser's language of the caller's last words, as the session looks its thresholds up. */
  language: LanguageCode | undefined;
  #finals: string[] = [];
  /** The recogniser marked the last final as whole phrases of its grammar (the offline recogniser's full stop). */
  #phraseComplete = false;
  #interim = '';
  #question: string | undefined;
  #recogniserEndpoint = false;
  #decision: TurnDecision | undefined;
  readonly #listeners = new Set<() => void>();
  readonly #decisionListeners = new Set<(decision: TurnDecision) => void>();

  constructor(delays: EndpointingDelays) {
    this.delays = delays;
  }

  /** The caller's words since the last committed turn: the final parts, then the words still being recognised. */
  get text(): string {
    return [...this.#finals, this.#interim].filter((part) => part.trim().length > 0).join(' ');
  }

  get recogniserEndpoint(): boolean {
    return this.#recogniserEndpoint;
  }

  /**
   * What the words so far say of the turn, with the assistant's last words as context. Words the recogniser marked as
   * whole phrases read as the same words closed by a full stop would: complete ("thank you" too, though it ends on a
   * word that usually leads on), unless the rules of a closed sentence hold them open (a value still being read out,
   * "i want to").
   */
  reading(): TranscriptReading {
    const reading = readTranscript(this.text, this.#question);
    if (!this.#phraseComplete || this.#interim.trim() !== '' || reading.verdict === 'complete' || reading.reason === 'empty') return reading;
    const closed = readTranscript(`${this.text}.`, this.#question);
    return closed.verdict === 'complete' ? { ...closed, reason: 'phrase_complete' } : closed;
  }

  interim(text: string, language?: LanguageCode): void {
    this.#interim = text;
    if (text.trim()) this.#phraseComplete = false;
    this.#heard(language);
  }

  /** `phraseComplete`: the recogniser marked these words as whole phrases of its grammar. */
  final(text: string, language?: LanguageCode, phraseComplete = false): void {
    this.#finals.push(text);
    if (text.trim()) this.#phraseComplete = phraseComplete;
    this.#interim = '';
    this.#heard(language);
  }

  /** The recogniser's own end of the utterance (END_OF_SPEECH from a vendor that endpoints). */
  recogniserEnded(): void {
    this.#recogniserEndpoint = true;
    this.#changed();
  }

  /** The assistant said this (a message added to the conversation): the context the next words are read in. */
  assistantSaid(text: string): void {
    if (text.trim()) this.#question = text;
  }

  decided(decision: TurnDecision): void {
    this.#decision = decision;
    for (const listener of [...this.#decisionListeners]) listener(decision);
  }

  /** Calls `listener` with every decision taken, until the answered function is called. */
  onDecision(listener: (decision: TurnDecision) => void): () => void {
    this.#decisionListeners.add(listener);
    return () => void this.#decisionListeners.delete(listener);
  }

  /** The caller's turn was committed: the decision that led to it, and a clean slate for the next turn. */
  committed(): TurnDecision | undefined {
    const decision = this.#decision;
    this.#finals = [];
    this.#phraseComplete = false;
    this.#interim = '';
    this.#recogniserEndpoint = false;
    this.#decision = undefined;
    return decision;
  }

  /** Calls `listener` whenever the words or the recogniser's endpoint change, until the answered function is called. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** A decision from the words alone, with what they said: for detectors that have no other signal. */
  decisionFromWords(reading: TranscriptReading, finished: boolean, decidedBy: TurnDecision['decided_by']): TurnDecision {
    return {
      verdict: finished ? 'finished' : 'unfinished',
      decided_by: decidedBy,
      transcript: reading.verdict,
      transcript_rule: reading.reason,
      value_kind: reading.valueKind ?? null,
      audio_model_probability: null,
      audio_model_threshold: null,
      recogniser_endpoint: this.#recogniserEndpoint,
      delay_ms: finished ? this.delays.minMs : this.delays.maxMs,
    };
  }

  #heard(language: LanguageCode | undefined): void {
    if (language) this.language = language;
    this.#changed();
  }

  #changed(): void {
    for (const listener of [...this.#listeners]) listener();
  }
}
