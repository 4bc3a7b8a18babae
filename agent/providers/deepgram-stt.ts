import {
  APIConnectionError,
  APIStatusError,
  DEFAULT_API_CONNECT_OPTIONS,
  normalizeLanguage,
  stt,
  type APIConnectOptions,
  type APIError,
} from '@livekit/agents';
import { SocketSpeechStream, socketUrl, streamingOnly, type SocketRequest } from './stt-socket.js';
import { DEFAULT_STT_MODEL } from '../../modules/assistants/index.js';

// Deepgram live transcription: wss://api.deepgram.com/v1/listen with the options as query parameters and
// `Authorization: Token <key>`; binary linear16 audio in; `Results` (interim, then `is_final`, with `speech_final` at an
// endpoint), `SpeechStarted`, `UtteranceEnd` out; `{"type": "CloseStream"}` ends the session, answered by `Metadata`.
//
// The official plugin speaks the same protocol, but its stream never reconnects after the connection drops (its
// connection monitor is not awaited, so a drop leaves the stream waiting for ever: reproduced against the fake in
// test/fakes/vendors/deepgram.ts, test/providers/deepgram-stt.test.ts). This provider runs on the shared reconnecting socket stream instead.

const DEEPGRAM_BASE_URL = 'wss://api.deepgram.com';

export interface DeepgramSTTOptions {
  apiKey: string;
  baseUrl?: string;
  model?: string;
  language?: string;
  /**
   * The languages a caller may speak: with more than one, the multilingual model (`language=multi`) transcribes them
   * all, biased toward these (`language_hint`), and tags each result with the language it heard.
   */
  languageHints?: string[];
  punctuate?: boolean;
  smartFormat?: boolean;
  keyterms?: string[];
  /** The silence (ms) Deepgram's endpointer waits before `speech_final`. */
  endpointingMs?: number;
  sampleRate?: number;
}

interface DeepgramAlternative {
  transcript?: string;
  confidence?: number;
  languages?: string[];
}

export class DeepgramSTT extends stt.STT {
  label = 'deepgram.STT';
  readonly #opts: Required<Omit<DeepgramSTTOptions, 'endpointingMs'>> & Pick<DeepgramSTTOptions, 'endpointingMs'>;

  constructor(options: DeepgramSTTOptions) {
    super({ streaming: true, interimResults: true, alignedTranscript: false });
    this.#opts = {
      apiKey: options.apiKey,
      baseUrl: options.baseUrl ?? DEEPGRAM_BASE_URL,
      model: options.model ?? DEFAULT_STT_MODEL,
      language: options.language ?? 'en-US',
      languageHints: options.languageHints ?? [],
      punctuate: options.punctuate ?? true,
      smartFormat: options.smartFormat ?? true,
      keyterms: options.keyterms ?? [],
      endpointingMs: options.endpointingMs,
      sampleRate: options.sampleRate ?? 16_000,
    };
  }

  override get model(): string {
    return this.#opts.model;
  }

  override get provider(): string {
    return 'deepgram';
  }

  protected async _recognize(): Promise<stt.SpeechEvent> {
    return streamingOnly('deepgram');
  }

  stream(options?: { connOptions?: APIConnectOptions }): DeepgramSpeechStream {
    const o = this.#opts;
    const url = socketUrl(o.baseUrl, '/v1/listen');
    const params: Array<[string, string]> = [
      ['model', o.model],
      ['encoding', 'linear16'],
      ['sample_rate', String(o.sampleRate)],
      ['channels', '1'],
      ['interim_results', 'true'],
      ['vad_events', 'true'],
      ['punctuate', String(o.punctuate)],
      ['smart_format', String(o.smartFormat)],
      ['endpointing', o.endpointingMs !== undefined ? String(o.endpointingMs) : 'false'],
      // Streaming has no whole-audio language detection; its multilingual model is how several languages are heard.
      ...(o.languageHints.length > 1
        ? [['language', 'multi'] as [string, string], ...o.languageHints.map((h): [string, string] => ['language_hint', h])]
        : [['language', o.language] as [string, string]]),
      ...o.keyterms.map((k): [string, string] => ['keyterm', k]),
    ];
    for (const [k, v] of params) url.searchParams.append(k, v);
    return new DeepgramSpeechStream(this, {
      request: { url, headers: { Authorization: `Token ${o.apiKey}` } },
      language: o.language,
      sampleRate: o.sampleRate,
      connOptions: options?.connOptions ?? DEFAULT_API_CONNECT_OPTIONS,
    });
  }
}

interface DeepgramStreamConfig {
  request: SocketRequest;
  language: string;
  sampleRate: number;
  connOptions: APIConnectOptions;
}

export class DeepgramSpeechStream extends SocketSpeechStream {
  label = 'deepgram.SpeechStream';
  protected readonly vendor = 'deepgram';
  readonly #config: DeepgramStreamConfig;
  #speaking = false;

  constructor(owner: DeepgramSTT, config: DeepgramStreamConfig) {
    super(owner, config.sampleRate, config.connOptions);
    this.#config = config;
  }

  protected request(): SocketRequest {
    return this.#config.request;
  }

  protected endOfAudioMessage(): string {
    return JSON.stringify({ type: 'CloseStream' });
  }

  protected flushMessage(): string {
    return JSON.stringify({ type: 'Finalize' });
  }

  protected override keepAliveMessage(): string {
    return JSON.stringify({ type: 'KeepAlive' });
  }

  protected handleMessage(message: Record<string, unknown>): boolean {
    switch (message.type) {
      case 'Results':
        this.#results(message);
        return false;
      case 'UtteranceEnd':
        this.#endOfSpeech();
        return false;
      case 'Metadata':
        // Deepgram's answer to CloseStream: the session is over.
        return true;
      case 'Error':
        throw new APIStatusError({ message: `deepgram error: ${String(message.description ?? message.message ?? 'unknown')}`, options: { statusCode: 500 } });
      default:
        return false;
    }
  }

  protected closeError(code: number, reason: string): APIError {
    // 1008: a policy failure (a bad key or option) that a retry would only repeat.
    if (code === 1008) return new APIStatusError({ message: `deepgram refused the session: ${reason}`, options: { statusCode: 400, retryable: false } });
    return new APIConnectionError({ message: `deepgram closed the connection (code ${code}) before the session finished` });
  }

  protected connectionEnded(): void {
    this.#endOfSpeech();
  }

  #results(message: Record<string, unknown>): void {
    const channel = message.channel as { alternatives?: DeepgramAlternative[] } | undefined;
    const best = channel?.alternatives?.[0];
    const text = (best?.transcript ?? '').trim();
    const start = typeof message.start === 'number' ? message.start : 0;
    const duration = typeof message.duration === 'number' ? message.duration : 0;
    if (text) {
      if (!this.#speaking) {
        this.#speaking = true;
        this.emit({ type: stt.SpeechEventType.START_OF_SPEECH });
      }
      const data: stt.SpeechData = {
        text,
        language: normalizeLanguage(best?.languages?.[0] ?? this.#config.language),
        startTime: start + this.startTimeOffset,
        endTime: start + duration + this.startTimeOffset,
        confidence: best?.confidence ?? 0,
      };
      this.emit({ type: message.is_final ? stt.SpeechEventType.FINAL_TRANSCRIPT : stt.SpeechEventType.INTERIM_TRANSCRIPT, alternatives: [data] });
    }
    if (message.speech_final) this.#endOfSpeech();
  }

  #endOfSpeech(): void {
    if (!this.#speaking) return;
    this.#speaking = false;
    this.emit({ type: stt.SpeechEventType.END_OF_SPEECH });
  }
}
