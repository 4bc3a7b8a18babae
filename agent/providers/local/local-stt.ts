import { APIConnectionError, mergeFrames, stt, type AudioBuffer } from '@livekit/agents';
import { downmix, resampleLinear } from '../../../media/pcm.js';
import { grammarDictionary, hasGrammar, POCKETSPHINX_SAMPLE_RATE, pocketsphinxDecode } from './pocketsphinx.js';

/**
 * Marks a recognised alternative whose words are whole phrases of the recogniser's grammar: what a vendor's recogniser
 * says with a full stop, this one (which does not punctuate) says with this mark, for the end-of-turn decision
 * (agent/turn/turn-signals.ts). The text itself stays as spoken.
 */
export const PHRASE_COMPLETE = Symbol('phrase complete');

/** Whether the recogniser marked this alternative as a whole phrase of its grammar. */
export function isPhraseComplete(alternative: object | undefined): boolean {
  return alternative !== undefined && (alternative as { [PHRASE_COMPLETE]?: boolean })[PHRASE_COMPLETE] === true;
}

/**
 * Offline STT on the bundled pocketsphinx model. Not streaming: the agent wraps it in the framework's VAD-driven stream
 * adapter, which hands over one utterance at a time. Keyterms become the recogniser's grammar.
 */
export class LocalSTT extends stt.STT {
  label = 'local.PocketsphinxSTT';
  #keyterms: string[];
  readonly #language: string;
  readonly #program: string | undefined;

  /** `program`: the decoder to run (POCKETSPHINX_BIN); `pocketsphinx_continuous` on the PATH when absent. */
  constructor(options: { keyterms?: string[]; language?: string; program?: string } = {}) {
    super({ streaming: false, interimResults: false, keyterms: true });
    this.#keyterms = options.keyterms ?? [];
    this.#language = options.language ?? 'en';
    this.#program = options.program;
    // The grammar's dictionary is made at the call's start, not at the end of the caller's first words.
    if (hasGrammar(this.#keyterms)) void grammarDictionary(this.#keyterms).catch(() => {});
  }

  override get model(): string {
    return 'pocketsphinx-en-us';
  }

  override get provider(): string {
    return 'local';
  }

  override _updateSessionKeyterms(keyterms: string[]): void {
    if (keyterms.length > 0) this.#keyterms = keyterms;
  }

  protected async _recognize(buffer: AudioBuffer, abortSignal?: AbortSignal): Promise<stt.SpeechEvent> {
    const frame = mergeFrames(buffer);
    const mono = downmix(frame.data, frame.channels);
    const samples = resampleLinear(mono, frame.sampleRate, POCKETSPHINX_SAMPLE_RATE);
    let text: string;
    try {
      text = await pocketsphinxDecode(samples, this.#keyterms, { signal: abortSignal, program: this.#program });
    } catch (error) {
      // A missing binary or a crashed decoder is a connection-class fault: retryable, and the fallback adapter's cue.
      throw new APIConnectionError({ message: 'local speech recogniser failed', options: { retryable: true } });
    }
    const durationS = samples.length / POCKETSPHINX_SAMPLE_RATE;
    const alternative: stt.SpeechData = { text, language: this.#language as never, startTime: 0, endTime: durationS, confidence: text ? 1 : 0 };
    // With a grammar, whatever is decoded is a sequence of its phrases, each matched whole: the utterance is complete
    // as far as the words go. Free speech (no keyterms) says nothing either way, as an unpunctuated vendor would.
    if (text && hasGrammar(this.#keyterms)) Object.defineProperty(alternative, PHRASE_COMPLETE, { value: true });
    return { type: stt.SpeechEventType.FINAL_TRANSCRIPT, alternatives: [alternative] };
  }

  stream(): stt.SpeechStream {
    throw new Error('local STT recognises whole utterances; use it through stt.StreamAdapter');
  }
}
