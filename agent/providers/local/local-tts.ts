import { AudioByteStream, shortuuid, tts, type APIConnectOptions } from '@livekit/agents';
import { espeakSynthesize, type EspeakOptions } from './espeak.js';

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
      const bytes = new AudioByteStream(audio.sampleRate, 1, FRAME_SAMPLES);
      const frames = [...bytes.write(new Uint8Array(audio.samples.buffer, audio.samples.byteOffset, audio.samples.byteLength)), ...bytes.flush()];
      frames.forEach((frame, i) => this.queue.put({ requestId, segmentId: requestId, frame, final: i === frames.length - 1 }));
    } finally {
      this.queue.close();
    }
  }
}
