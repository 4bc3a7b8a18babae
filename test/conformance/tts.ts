import { APIStatusError, tts } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';
import { afterEach, expect, it } from 'vitest';
import { AssistantSettings } from '../../modules/assistants/settings.js';

// What every voice vendor does against a fake on 127.0.0.1 that speaks its wire format: the text sent as the vendor
// documents it and its audio answer decoded into the frames the session plays, and an error answer reported as an
// API status error on the engine's error event, so that a fallback voice can take over. The vendor's test says how
// its fake answers and what its request looks like.

/** A tone of `ms` milliseconds as 16-bit little-endian PCM. */
export function tone(ms: number, rate: number): Buffer {
  const samples = new Int16Array(Math.round((rate * ms) / 1000));
  for (let i = 0; i < samples.length; i++) samples[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate));
  return Buffer.from(samples.buffer);
}

export const ttsSettings = (s: Record<string, unknown>) => AssistantSettings.shape.tts_settings.parse(s);
export const durationMs = (frames: AudioFrame[]) => frames.reduce((sum, f) => sum + (f.samplesPerChannel / f.sampleRate) * 1000, 0);

/** One attempt, so an error answer surfaces at once. */
export const NO_RETRY = { maxRetry: 0, retryIntervalMs: 50, timeoutMs: 2000 };

/** The frames of `text` synthesised on the streaming path, the one the session uses. */
export async function streamed(engine: tts.TTS, text: string, connOptions?: typeof NO_RETRY): Promise<AudioFrame[]> {
  const stream = engine.stream(connOptions ? { connOptions } : {});
  stream.pushText(text);
  stream.flush();
  stream.endInput();
  const frames: AudioFrame[] = [];
  for await (const ev of stream) {
    if (ev === tts.SynthesizeStream.END_OF_STREAM) break;
    frames.push(ev.frame);
  }
  stream.close();
  return frames;
}

/** The frames of `text` synthesised in one request. */
export async function synthesized(engine: tts.TTS, text: string): Promise<AudioFrame[]> {
  const frames: AudioFrame[] = [];
  for await (const ev of engine.synthesize(text)) frames.push(ev.frame);
  return frames;
}

/** The rejections nobody handled while `run` went on: Node reports one once the microtask queue has drained. */
export async function unhandledRejectionsDuring(run: () => Promise<void>): Promise<unknown[]> {
  const leaked: unknown[] = [];
  const record = (reason: unknown) => leaked.push(reason);
  process.on('unhandledRejection', record);
  try {
    await run();
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    process.off('unhandledRejection', record);
  }
  return leaked;
}

interface Fake {
  close(): Promise<void>;
}

export interface TtsTarget<Server extends Fake> {
  /** `synthesize`: one request per text; `stream`: the text pushed into a stream. */
  path: 'synthesize' | 'stream';
  /** A fake that answers every text with a tone of `ms` milliseconds. */
  speaking(ms: number): Promise<Server>;
  /** The engine as a call builds it from the assistant's voice settings, pointed at the fake. */
  create(server: Server): tts.TTS;
  /** The request the vendor documents: path, key, voice, model, audio format and the text. */
  checkRequest(server: Server): void;
  /** A fake that answers with an error, the status the error must carry, and what else is true of it. */
  error?: {
    failing(): Promise<Server>;
    status: number;
    check?(server: Server, errors: Array<{ error: Error; recoverable: boolean }>, frames: AudioFrame[]): void;
  };
}

/** Registers the shared scenarios, in the calling describe, for the vendor `target` describes. */
export function ttsConformance<Server extends Fake>(target: TtsTarget<Server>): void {
  let server: Server | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const speak = (engine: tts.TTS, text: string, connOptions?: typeof NO_RETRY) =>
    target.path === 'synthesize' ? synthesized(engine, text) : streamed(engine, text, connOptions);

  it('sends the text as the vendor documents it, and plays the audio returned', async () => {
    const toneMs = 500;
    server = await target.speaking(toneMs);
    const frames = await speak(target.create(server), 'It is noon.');
    target.checkRequest(server);
    expect(durationMs(frames)).toBeGreaterThan(toneMs - 50);
  });

  const error = target.error;
  if (error) {
    it('surfaces an error answer as an API status error on the error event, so a fallback voice can take over', async () => {
      server = await error.failing();
      const engine = target.create(server);
      const errors: Array<{ error: Error; recoverable: boolean }> = [];
      engine.on('error', (ev) => errors.push(ev));
      const frames: AudioFrame[] = [];
      const leaked = await unhandledRejectionsDuring(async () => {
        frames.push(...(await speak(engine, 'It is noon.', NO_RETRY)));
      });
      expect(leaked).toEqual([]);
      expect(errors.length).toBeGreaterThan(0);
      expect(errors[0]!.error).toBeInstanceOf(APIStatusError);
      expect((errors[0]!.error as APIStatusError).statusCode).toBe(error.status);
      error.check?.(server, errors, frames);
    });
  }
}
