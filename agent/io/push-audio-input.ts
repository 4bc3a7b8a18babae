import type { AudioFrame } from '@livekit/rtc-node';
import { voice } from '@livekit/agents';
import { ReadableStream, type ReadableStreamDefaultController } from 'node:stream/web';

/**
 * The caller's audio as a transport hands it over, frame by frame. Any transport (LiveKit room, the built-in WebSocket
 * transport, a test script) pushes decoded PCM frames here; the session reads them as its microphone.
 */
export class PushAudioInput extends voice.AudioInput {
  #controller: ReadableStreamDefaultController<AudioFrame> | undefined;
  #ended = false;
  readonly #listeners = new Set<(frame: AudioFrame) => void>();

  constructor() {
    super();
    this.multiStream.addInputStream(new ReadableStream<AudioFrame>({ start: (controller) => void (this.#controller = controller) }));
  }

  push(frame: AudioFrame): void {
    if (this.#ended) return;
    for (const listener of this.#listeners) listener(frame);
    this.#controller?.enqueue(frame);
  }

  /** Observes every frame the caller sends (the recorder's user track). */
  onFrame(listener: (frame: AudioFrame) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The caller's side has closed; safe to call twice. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    try {
      this.#controller?.close();
    } catch {
      // Already closed by the session's own teardown.
    }
  }
}
