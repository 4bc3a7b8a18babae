import { stt, type APIConnectOptions } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';

export const SAMPLE_RATE = 16_000;
export const FRAME_MS = 20;
const SAMPLES_PER_FRAME = (SAMPLE_RATE * FRAME_MS) / 1000;

/** Short retry intervals keep reconnect tests fast; the bounds are the framework's usual ones. */
export const TEST_CONN_OPTIONS: APIConnectOptions = { maxRetry: 3, retryIntervalMs: 50, timeoutMs: 2_000 };

/** 20 ms of 16 kHz mono Int16 whose samples encode the frame's index, so the bytes a vendor received can be checked. */
export function pcmFrame(index: number): AudioFrame {
  const data = new Int16Array(SAMPLES_PER_FRAME);
  for (let i = 0; i < data.length; i++) data[i] = ((index * SAMPLES_PER_FRAME + i) % 2000) - 1000;
  return new AudioFrame(data, SAMPLE_RATE, 1, SAMPLES_PER_FRAME);
}

export function pcmBytes(frames: AudioFrame[]): Buffer {
  return Buffer.concat(frames.map((f) => Buffer.from(f.data.buffer, f.data.byteOffset, f.data.byteLength)));
}

export type STTError = Parameters<stt.STTCallbacks['error']>[0];

export interface Collected {
  events: stt.SpeechEvent[];
  errors: STTError[];
  /** Resolves when the stream's output ends. */
  done: Promise<void>;
  texts(type: stt.SpeechEventType): string[];
}

/** Reads every event of a stream, and every error its STT reports, until the stream ends. */
export function collect(owner: stt.STT, stream: stt.SpeechStream): Collected {
  const events: stt.SpeechEvent[] = [];
  const errors: STTError[] = [];
  owner.on('error', (error) => errors.push(error));
  const done = (async () => {
    for await (const event of stream) events.push(event);
  })();
  return {
    events,
    errors,
    done,
    texts: (type) => events.filter((e) => e.type === type).map((e) => e.alternatives?.[0].text ?? ''),
  };
}

/**
 * Pushes 20 ms frames, five times faster than real time, until `until()` holds, the stream ends, or `timeoutMs`
 * passes. Returns the frames pushed.
 */
export async function feedUntil(stream: stt.SpeechStream, until: () => boolean, ended: Promise<void>, timeoutMs = 5_000): Promise<AudioFrame[]> {
  const frames: AudioFrame[] = [];
  let over = false;
  void ended.then(() => (over = true));
  const deadline = Date.now() + timeoutMs;
  while (!until() && !over && Date.now() < deadline) {
    const frame = pcmFrame(frames.length);
    stream.pushFrame(frame);
    frames.push(frame);
    await new Promise((resolve) => setTimeout(resolve, FRAME_MS / 5));
  }
  return frames;
}
