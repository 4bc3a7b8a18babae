import { APIConnectionError, APIError, stt, waitForWebSocketOpen, type APIConnectOptions } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';
import { WebSocket, type RawData } from 'ws';
import { downmix } from '../../media/pcm.js';

// What every WebSocket speech-to-text vendor has in common: open a socket, stream 16-bit PCM, read JSON, end the
// audio and wait for the vendor's goodbye. The vendor subclass owns the wire format (URL, messages, error codes);
// retries belong to the framework: `run()` throws an APIError and `stt.SpeechStream` reconnects within `connOptions`.

/** Audio leaves in 100 ms pieces: AssemblyAI refuses chunks outside 50-1000 ms, and 100 ms adds little latency. */
export const AUDIO_CHUNK_MS = 100;
/** How long a vendor may take, after the end of audio, to send its last transcripts and say it has finished. */
export const FINISH_TIMEOUT_MS = 5_000;
/** Audio sent between two RECOGNITION_USAGE events, which feed the framework's STT metrics. */
export const USAGE_REPORT_MS = 5_000;
/** A socket that has carried nothing for this long gets the vendor's keep-alive (Soniox closes after 20 s idle). */
export const KEEPALIVE_IDLE_MS = 5_000;

export interface SocketRequest {
  url: URL;
  headers: Record<string, string>;
}

/** `wss://host` or `https://host` (tests use `ws://127.0.0.1:port`) joined with the vendor's path. */
export function socketUrl(base: string, path: string): URL {
  const url = new URL(base.replace(/^http/, 'ws'));
  url.pathname = `${url.pathname.replace(/\/$/, '')}${path}`;
  return url;
}

const STOPPED = Symbol('stopped');
type InputItem = IteratorResult<AudioFrame | symbol>;

type SocketEvent = { kind: 'message'; data: RawData; isBinary: boolean } | { kind: 'close'; code: number; reason: string } | { kind: 'error'; error: Error };

/**
 * Listens from the moment the socket exists and holds what arrives until a handler takes over: a vendor's first
 * message, or its close, can come in the same packet as the upgrade, before the code awaiting the open has resumed.
 * Its 'error' listener also stays for the socket's whole life, so a late error never goes unhandled.
 */
class SocketEvents {
  #backlog: SocketEvent[] = [];
  #handler: ((event: SocketEvent) => void) | null = null;

  constructor(ws: WebSocket) {
    ws.on('message', (data, isBinary) => this.#dispatch({ kind: 'message', data, isBinary }));
    ws.on('close', (code, reason) => this.#dispatch({ kind: 'close', code, reason: reason.toString() }));
    ws.on('error', (error) => this.#dispatch({ kind: 'error', error }));
  }

  handle(handler: (event: SocketEvent) => void): void {
    this.#handler = handler;
    for (const event of this.#backlog.splice(0)) handler(event);
  }

  ignore(): void {
    this.#backlog = [];
    this.#handler = () => {};
  }

  #dispatch(event: SocketEvent): void {
    if (this.#handler) this.#handler(event);
    else this.#backlog.push(event);
  }
}

export abstract class SocketSpeechStream extends stt.SpeechStream {
  protected abstract readonly vendor: string;
  /** The vendor's id for the current connection, when it gives one; carried on usage events. */
  protected requestId = '';
  readonly #sampleRate: number;
  readonly #connectTimeoutMs: number;
  /** A read of the input that a lost connection left unconsumed; the next connection takes it first. */
  #pendingInput: Promise<InputItem> | null = null;
  #inputEnded = false;
  #pcm: Buffer = Buffer.alloc(0);
  #unreportedMs = 0;

  constructor(owner: stt.STT, sampleRate: number, connOptions: APIConnectOptions) {
    super(owner, sampleRate, connOptions);
    this.#sampleRate = sampleRate;
    this.#connectTimeoutMs = connOptions.timeoutMs;
  }

  /** URL (with any query parameters) and headers of the vendor's socket. */
  protected abstract request(): SocketRequest;
  /** Sent once the socket is open, before any audio. */
  protected startMessage(): string | undefined {
    return undefined;
  }
  /** Tells the vendor no more audio follows; it answers with its last transcripts and a finish message. */
  protected abstract endOfAudioMessage(): string;
  /** Asks the vendor to finalise what it has heard so far (the framework's flush). */
  protected abstract flushMessage(): string;
  protected keepAliveMessage(): string | undefined {
    return undefined;
  }
  /** Reads one vendor message. Returns true when it announces the end of the session; throws APIError for vendor errors. */
  protected abstract handleMessage(message: Record<string, unknown>): boolean;
  /** The error that a close without the vendor's finish message stands for. */
  protected abstract closeError(code: number, reason: string): APIError;
  /** The connection is over, however it ended: emit what the vendor had settled, drop what it had not. */
  protected abstract connectionEnded(): void;

  protected emit(event: stt.SpeechEvent): void {
    if (!this.queue.closed) this.queue.put(event);
  }

  protected async run(): Promise<void> {
    // The input ended before the last connection was lost: there is nothing left to send.
    if (this.#inputEnded || this.abortSignal.aborted) return;
    const { ws, events } = await this.#open();
    let finished = false;
    try {
      await this.#converse(ws, events);
      finished = true;
    } finally {
      events.ignore();
      this.#reportUsage();
      this.connectionEnded();
      if (finished && ws.readyState === WebSocket.OPEN) ws.close(1000);
      else ws.terminate();
    }
  }

  async #open(): Promise<{ ws: WebSocket; events: SocketEvents }> {
    const { url, headers } = this.request();
    // `handshakeTimeout` bounds the wait for the upgrade; a timeout surfaces as an error, hence an APIConnectionError.
    const ws = new WebSocket(url, { headers, handshakeTimeout: this.#connectTimeoutMs });
    const events = new SocketEvents(ws);
    const onAbort = () => ws.terminate();
    this.abortSignal.addEventListener('abort', onAbort, { once: true });
    try {
      await waitForWebSocketOpen(ws, this.vendor);
    } catch (error) {
      ws.terminate();
      if (error instanceof APIError) throw error;
      throw new APIConnectionError({ message: `failed to connect to ${this.vendor}` });
    } finally {
      this.abortSignal.removeEventListener('abort', onAbort);
    }
    const start = this.startMessage();
    if (start !== undefined) ws.send(start);
    return { ws, events };
  }

  /** Resolves when the vendor finishes after the end of input (or the stream is closed); rejects with an APIError. */
  #converse(ws: WebSocket, events: SocketEvents): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      let finishTimer: NodeJS.Timeout | undefined;
      let lastSentAt = Date.now();
      let stop: (value: typeof STOPPED) => void = () => {};
      const stopped = new Promise<typeof STOPPED>((r) => (stop = r));
      const keepAlive = this.keepAliveMessage();
      const keepAliveTimer = keepAlive
        ? setInterval(() => {
            if (Date.now() - lastSentAt >= KEEPALIVE_IDLE_MS) send(keepAlive);
          }, KEEPALIVE_IDLE_MS)
        : undefined;

      const settle = (error?: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(finishTimer);
        clearInterval(keepAliveTimer);
        this.abortSignal.removeEventListener('abort', onAbort);
        stop(STOPPED);
        if (error === undefined) resolve();
        else reject(error instanceof APIError ? error : new APIConnectionError({ message: `${this.vendor} sent an unreadable message` }));
      };
      const onAbort = () => settle();
      const send = (data: string | Buffer) => {
        lastSentAt = Date.now();
        ws.send(data);
      };

      const onMessage = (data: RawData, isBinary: boolean) => {
        if (isBinary) return;
        try {
          const message = JSON.parse(data.toString()) as unknown;
          if (typeof message !== 'object' || message === null) return;
          if (!this.handleMessage(message as Record<string, unknown>)) return;
          // A vendor that ends the session while audio is still coming has dropped it: reconnect.
          settle(this.#inputEnded ? undefined : new APIConnectionError({ message: `${this.vendor} ended the session before the audio ended` }));
        } catch (error) {
          settle(error);
        }
      };
      this.abortSignal.addEventListener('abort', onAbort, { once: true });
      if (this.abortSignal.aborted) settle();
      events.handle((event) => {
        if (event.kind === 'message') onMessage(event.data, event.isBinary);
        else if (event.kind === 'close') settle(this.closeError(event.code, event.reason));
        else settle(new APIConnectionError({ message: `${this.vendor} connection failed (${event.error.name})` }));
      });

      this.#sendAudio(send, stopped, () => settled).then(
        (outcome) => {
          if (outcome === 'ended') finishTimer = setTimeout(() => settle(), FINISH_TIMEOUT_MS);
        },
        (error: unknown) => settle(error),
      );
    });
  }

  async #sendAudio(send: (data: string | Buffer) => void, stopped: Promise<typeof STOPPED>, isSettled: () => boolean): Promise<'ended' | 'stopped'> {
    const chunkBytes = Math.round((this.#sampleRate * AUDIO_CHUNK_MS) / 1000) * 2;
    for (;;) {
      this.#pendingInput ??= this.input.next();
      const next = await Promise.race([this.#pendingInput, stopped]);
      if (next === STOPPED || isSettled()) return 'stopped';
      this.#pendingInput = null;
      if (next.done) {
        this.#inputEnded = true;
        this.#sendTail(send, chunkBytes);
        send(this.endOfAudioMessage());
        return 'ended';
      }
      const item = next.value;
      if (typeof item === 'symbol') {
        this.#sendTail(send, chunkBytes);
        send(this.flushMessage());
        continue;
      }
      const samples = item.channels > 1 ? downmix(item.data, item.channels) : item.data;
      const bytes = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
      // Copy: the frame's memory may be reused by its producer once pushed.
      this.#pcm = Buffer.concat([this.#pcm, bytes]);
      while (this.#pcm.length >= chunkBytes) {
        this.#sendChunk(send, this.#pcm.subarray(0, chunkBytes));
        this.#pcm = this.#pcm.subarray(chunkBytes);
      }
    }
  }

  /** The last partial chunk, padded with silence to a whole chunk so that every vendor accepts its length. */
  #sendTail(send: (data: string | Buffer) => void, chunkBytes: number): void {
    if (this.#pcm.length === 0) return;
    const tail = Buffer.alloc(chunkBytes);
    this.#pcm.copy(tail);
    this.#pcm = Buffer.alloc(0);
    this.#sendChunk(send, tail);
  }

  #sendChunk(send: (data: string | Buffer) => void, chunk: Buffer): void {
    send(chunk);
    this.#unreportedMs += AUDIO_CHUNK_MS;
    if (this.#unreportedMs >= USAGE_REPORT_MS) this.#reportUsage();
  }

  #reportUsage(): void {
    if (this.#unreportedMs === 0) return;
    this.emit({
      type: stt.SpeechEventType.RECOGNITION_USAGE,
      requestId: this.requestId,
      recognitionUsage: { audioDuration: this.#unreportedMs / 1000 },
    });
    this.#unreportedMs = 0;
  }
}

/** Streaming-only vendors: the framework reaches them through `stream()`; a one-shot recognise has no endpoint. */
export function streamingOnly(vendor: string): never {
  throw new APIConnectionError({ message: `${vendor} speech-to-text is streaming only`, options: { retryable: false } });
}
