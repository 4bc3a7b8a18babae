// What the speech-to-speech fakes share: a voice activity detector on the audio's energy, timed on the audio's own
// clock (so the tests' scaled clock does not matter), and the tone they speak their replies with. Neither fake hears
// words: what the caller said in each turn is scripted by the test.

/** The energy (RMS of int16 samples over 10 ms) above which a fake hears speech; espeak's speech is far above it. */
const SPEECH_RMS = 400;

export interface EnergyVadEvents {
  /** Speech began at `startMs` of audio received. */
  onStart(startMs: number): void;
  /** The silence after speech reached the limit; the speech ended at `endMs`. */
  onStop(startMs: number, endMs: number): void;
}

/** The server VAD of a speech-to-speech vendor: speech starts on one loud window, ends after `silenceMs()` of quiet. */
export class EnergyVad {
  /** Ms of audio received. */
  receivedMs = 0;
  speaking = false;
  #silentMs = 0;
  #startMs = 0;

  constructor(
    private readonly silenceMs: () => number | null,
    private readonly events: EnergyVadEvents,
  ) {}

  /** PCM16 mono at `rate`; with `silenceMs()` null the detector is off and only the audio's length is counted. */
  hear(pcm: Buffer, rate: number): void {
    const samples = new Int16Array(pcm.buffer, pcm.byteOffset, Math.floor(pcm.length / 2));
    const windowSamples = rate / 100;
    for (let start = 0; start < samples.length; start += windowSamples) {
      const window = samples.subarray(start, start + windowSamples);
      let sum = 0;
      for (const s of window) sum += s * s;
      const loud = Math.sqrt(sum / Math.max(window.length, 1)) > SPEECH_RMS;
      const windowMs = (window.length / rate) * 1000;
      this.receivedMs += windowMs;
      const limit = this.silenceMs();
      if (limit === null) continue;
      if (loud && !this.speaking) {
        this.speaking = true;
        this.#silentMs = 0;
        this.#startMs = this.receivedMs - windowMs;
        this.events.onStart(this.#startMs);
      } else if (this.speaking) {
        this.#silentMs = loud ? 0 : this.#silentMs + windowMs;
        if (this.#silentMs >= limit) this.stop(this.receivedMs - this.#silentMs);
      }
    }
  }

  /** Ends the speech now (a client's commit, or the silence limit). */
  stop(endMs = this.receivedMs): void {
    if (!this.speaking) return;
    this.speaking = false;
    this.events.onStop(this.#startMs, endMs);
  }

  /** Forgets the speech in progress (a client's clear). */
  reset(): void {
    this.speaking = false;
    this.#silentMs = 0;
  }
}

/** A 220 Hz tone of `ms` at `rate`, as base64 PCM16, continuing the phase from sample `offset`. */
export function toneBase64(ms: number, offset: number, rate: number): string {
  const samples = new Int16Array(Math.round((rate * ms) / 1000));
  for (let i = 0; i < samples.length; i++) samples[i] = Math.round(3_000 * Math.sin((2 * Math.PI * 220 * (offset + i)) / rate));
  return Buffer.from(samples.buffer).toString('base64');
}

/** About four characters a text token, as both vendors count English. */
export const textTokens = (text: string) => Math.ceil(text.length / 4);
