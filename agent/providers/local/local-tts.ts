import { shortuuid, tokenize, tts, type APIConnectOptions } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import type { PcmAudio } from '../../../media/wav.js';
import { espeakSynthesize, type EspeakOptions } from '../../../media/voice/espeak.js';

/** espeak-ng's WAV output rate. */
export const ESPEAK_SAMPLE_RATE = 22_050;
/** 20 ms frames: the granularity at which playback can be cut on an interruption. */
const FRAME_SAMPLES = ESPEAK_SAMPLE_RATE / 50;

/**
 * Offline TTS on espeak-ng. Not streaming: the agent wraps it in the framework's sentence-splitting stream adapter,
 * so the first sentence plays while later ones are synthesised.
 */
export class LocalTTS extends tts.TTS {
  label = 'local.EspeakTTS';
  readonly #options: EspeakOptions;

  constructor(options: Partial<EspeakOptions> = {}) {
    super(ESPEAK_SAMPLE_RATE, 1, { streaming: false });
    this.#options = { voice: options.voice ?? 'en-us', wordsPerMinute: options.wordsPerMinute ?? 175, pitch: options.pitch ?? 50 };
  }

  override get model(): string {
    return 'espeak-ng';
  }

  override get provider(): string {
    return 'local';
  }

  synthesize(text: string, connOptions?: APIConnectOptions, abortSignal?: AbortSignal): tts.ChunkedStream {
    return new LocalChunkedStream(text, this, this.#options, connOptions, abortSignal);
  }

  stream(): tts.SynthesizeStream {
    throw new Error('local TTS synthesises whole sentences; use it through tts.StreamAdapter');
  }

  /**
   * Makes the first sentence of `text` ahead, so that saying it later starts at once: the call's welcome, known while
   * the session is still being set up. The sentence is split as the session's stream adapter splits it (the
   * framework's basic sentence tokenizer), so the sentence it asks for is the one made.
   */
  async prepare(text: string): Promise<PcmAudio | undefined> {
    const sentences = new tokenize.basic.SentenceTokenizer().stream();
    sentences.pushText(text);
    sentences.endInput();
    try {
      for await (const sentence of sentences) return await espeakSynthesize(sentence.token, this.#options);
      return undefined;
    } finally {
      sentences.close();
    }
  }
}

/** Makes the first sentence of the welcome ahead when the call speaks with the offline voice; other voices stream. */
export function prepareWelcome(voice: unknown, welcome: string): void {
  if (voice instanceof LocalTTS && welcome.trim()) void voice.prepare(welcome).catch(() => {});
}

class LocalChunkedStream extends tts.ChunkedStream {
  label = 'local.EspeakChunkedStream';
  readonly #options: EspeakOptions;

  constructor(text: string, owner: LocalTTS, options: EspeakOptions, connOptions?: APIConnectOptions, abortSignal?: AbortSignal) {
    super(text, owner, connOptions, abortSignal);
    this.#options = options;
  }

  protected async run(): Promise<void> {
    try {
      const signal = this.abortController.signal;
      // Aborted (an interruption) while waiting its turn on the voice's thread: nothing to play, and no error to retry.
      const audio = await espeakSynthesize(this.inputText, this.#options, signal).catch((error: unknown) => {
        if (signal.aborted) return undefined;
        throw error;
      });
      if (!audio || signal.aborted) return;
      const requestId = shortuuid();
      // One copy per 20 ms frame (the audio may be a kept sentence that other calls also read). The framework's
      // AudioByteStream would copy what remains of the sentence for every frame it cuts.
      const { samples, sampleRate } = audio;
      for (let at = 0; at < samples.length; at += FRAME_SAMPLES) {
        const data = samples.slice(at, at + FRAME_SAMPLES);
        this.queue.put({
          requestId,
          segmentId: requestId,
          frame: new AudioFrame(data, sampleRate, 1, data.length),
          final: at + FRAME_SAMPLES >= samples.length,
        });
      }
    } finally {
      this.queue.close();
    }
  }
}
