import { AudioFrame } from '@livekit/rtc-node';
import { shortuuid, stt, tts, type APIConnectOptions, type AudioBuffer } from '@livekit/agents';
import type { VendorAccess } from '../../agent/providers/speech-providers.js';

// Speech vendors that answer at once, on the framework's own base classes, so that what the benchmark measures is the
// pipeline between them: VAD, endpointing, the session's scheduling, the LLM client, and real-time playout.

/** Userdata key of the caller's last speech frame: the words a perfect recogniser would have heard by then. */
export const TRANSCRIPT_KEY = 'benchTranscript';

/**
 * A streaming recogniser with no delay: the final transcript of an utterance is emitted the moment the utterance's
 * last audio frame reaches it. The caller marks that frame (its userdata carries the words), so no energy threshold
 * or endpointer of its own adds or hides any time.
 */
export class InstantSTT extends stt.STT {
  label = 'bench.InstantSTT';

  constructor() {
    super({ streaming: true, interimResults: false });
  }

  override get model(): string {
    return 'instant';
  }

  override get provider(): string {
    return 'bench';
  }

  protected async _recognize(_buffer: AudioBuffer): Promise<stt.SpeechEvent> {
    throw new Error('the instant recogniser only streams');
  }

  stream(options?: { connOptions?: APIConnectOptions }): stt.SpeechStream {
    return new InstantSpeechStream(this, options?.connOptions);
  }
}

class InstantSpeechStream extends stt.SpeechStream {
  label = 'bench.InstantSpeechStream';

  constructor(owner: InstantSTT, connOptions?: APIConnectOptions) {
    super(owner, undefined, connOptions);
  }

  protected async run(): Promise<void> {
    for await (const data of this.input) {
      if (typeof data === 'symbol') continue;
      const text = data.userdata[TRANSCRIPT_KEY];
      if (typeof text !== 'string' || this.queue.closed) continue;
      this.queue.put({
        type: stt.SpeechEventType.FINAL_TRANSCRIPT,
        requestId: shortuuid(),
        alternatives: [{ text, language: 'en' as never, startTime: 0, endTime: 0, confidence: 1 }],
      });
    }
  }
}

/** 24 kHz, the rate of most streaming TTS vendors. */
export const TTS_SAMPLE_RATE = 24_000;
/** 20 ms frames, as the vendors' websocket streams are cut into by the plugins. */
const FRAME_SAMPLES = TTS_SAMPLE_RATE / 50;
/** About 15 characters per second of speech: the reply's audio is as long as a voice would take to say it. */
export const TTS_MS_PER_CHAR = 55;

function toneFrame(): AudioFrame {
  const data = new Int16Array(FRAME_SAMPLES);
  for (let i = 0; i < FRAME_SAMPLES; i++) data[i] = Math.round(3000 * Math.sin((2 * Math.PI * 200 * i) / TTS_SAMPLE_RATE));
  return new AudioFrame(data, TTS_SAMPLE_RATE, 1, FRAME_SAMPLES);
}

function framesFor(text: string): AudioFrame[] {
  const count = Math.max(Math.round((text.length * TTS_MS_PER_CHAR) / 20), 1);
  const template = toneFrame();
  return Array.from({ length: count }, () => new AudioFrame(template.data.slice(), TTS_SAMPLE_RATE, 1, FRAME_SAMPLES));
}

/** A streaming voice with no delay: each piece of text becomes its audio as soon as it arrives. */
export class InstantTTS extends tts.TTS {
  label = 'bench.InstantTTS';

  constructor() {
    super(TTS_SAMPLE_RATE, 1, { streaming: true });
  }

  override get model(): string {
    return 'instant';
  }

  override get provider(): string {
    return 'bench';
  }

  synthesize(text: string, connOptions?: APIConnectOptions, abortSignal?: AbortSignal): tts.ChunkedStream {
    return new InstantChunkedStream(text, this, connOptions, abortSignal);
  }

  stream(options?: { connOptions?: APIConnectOptions }): tts.SynthesizeStream {
    return new InstantSynthesizeStream(this, options?.connOptions);
  }
}

class InstantChunkedStream extends tts.ChunkedStream {
  label = 'bench.InstantChunkedStream';

  protected async run(): Promise<void> {
    try {
      const requestId = shortuuid();
      const frames = framesFor(this.inputText);
      frames.forEach((frame, i) => this.queue.put({ requestId, segmentId: requestId, frame, final: i === frames.length - 1 }));
    } finally {
      this.queue.close();
    }
  }
}

class InstantSynthesizeStream extends tts.SynthesizeStream {
  label = 'bench.InstantSynthesizeStream';

  protected async run(): Promise<void> {
    const requestId = shortuuid();
    // The last frame is held back until the input ends, so that it can be marked final as the plugins do.
    let held: AudioFrame | undefined;
    for await (const data of this.input) {
      if (typeof data !== 'string' || data.length === 0) continue;
      this.markStarted();
      for (const frame of framesFor(data)) {
        if (held && !this.queue.closed) this.queue.put({ requestId, segmentId: requestId, frame: held, final: false });
        held = frame;
      }
    }
    if (this.queue.closed) return;
    if (held) this.queue.put({ requestId, segmentId: requestId, frame: held, final: true });
    this.queue.put(tts.SynthesizeStream.END_OF_STREAM);
  }
}

/**
 * A key for every vendor: the settings' recogniser and voice are built, then replaced by the instant ones before
 * anything connects, and the LLM's key and address are the settings' own.
 */
// The bench's LLM listens on 127.0.0.1, allowed as an operator allows a local LLM server (VENDOR_PRIVATE_HOSTS).
export const BENCH_ACCESS: VendorAccess = {
  apiKey: () => 'bench-unused',
  baseUrl: () => undefined,
  targets: { privateHosts: [{ host: '127.0.0.1', port: null }] },
};
