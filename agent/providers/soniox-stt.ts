import {
  APIConnectionError,
  APIStatusError,
  DEFAULT_API_CONNECT_OPTIONS,
  getBaseLanguage,
  normalizeLanguage,
  stt,
  type APIConnectOptions,
  type APIError,
} from '@livekit/agents';
import { SocketSpeechStream, socketUrl, streamingOnly, type SocketRequest } from './stt-socket.js';

// Soniox real-time API: wss://stt-rt.soniox.com/transcribe-websocket. The client opens with a JSON start request, then
// streams binary pcm_s16le; Soniox answers `{tokens: [{text, start_ms, end_ms, confidence, is_final, language}]}`,
// where `<end>` (its endpointer) and `<fin>` (after a `finalize` request) close an utterance, `{finished: true}` ends
// the session after an empty frame, and `{error_code, error_message}` reports a failure before it closes.

const SONIOX_BASE_URL = 'wss://stt-rt.soniox.com';
const SONIOX_PATH = '/transcribe-websocket';
export const SONIOX_DEFAULT_MODEL = 'stt-rt-v3';
/** The range Soniox accepts for `max_endpoint_delay_ms`. */
const ENDPOINT_DELAY_RANGE_MS = [500, 3000] as const;
const END_TOKENS = new Set(['<end>', '<fin>']);

export interface SonioxSTTOptions {
  apiKey: string;
  /** Scheme and host, e.g. `wss://stt-rt.soniox.com`; the path is Soniox's. */
  baseUrl?: string;
  model?: string;
  /** Used as the only hint when `languageHints` is empty. */
  language?: string;
  languageHints?: string[];
  keyterms?: string[];
  /** Longest silence Soniox's endpointer waits before it closes an utterance; clamped to what Soniox accepts. */
  maxEndpointDelayMs?: number;
  sampleRate?: number;
}

interface SonioxToken {
  text?: string;
  start_ms?: number;
  end_ms?: number;
  confidence?: number;
  is_final?: boolean;
  language?: string;
}

export class SonioxSTT extends stt.STT {
  label = 'soniox.STT';
  readonly #opts: Required<Omit<SonioxSTTOptions, 'maxEndpointDelayMs'>> & Pick<SonioxSTTOptions, 'maxEndpointDelayMs'>;
  #sessionKeyterms: string[] = [];

  constructor(options: SonioxSTTOptions) {
    super({ streaming: true, interimResults: true, alignedTranscript: false, keyterms: true });
    this.#opts = {
      apiKey: options.apiKey,
      baseUrl: options.baseUrl ?? SONIOX_BASE_URL,
      model: options.model ?? SONIOX_DEFAULT_MODEL,
      language: options.language ?? 'en',
      languageHints: options.languageHints ?? [],
      keyterms: options.keyterms ?? [],
      maxEndpointDelayMs: options.maxEndpointDelayMs,
      sampleRate: options.sampleRate ?? 16_000,
    };
  }

  override get model(): string {
    return this.#opts.model;
  }

  override get provider(): string {
    return 'soniox';
  }

  /** Soniox reads its context once per connection, so keyterms given here apply to streams opened afterwards. */
  override _updateSessionKeyterms(keyterms: string[]): void {
    this.#sessionKeyterms = [...keyterms];
  }

  protected async _recognize(): Promise<stt.SpeechEvent> {
    return streamingOnly('soniox');
  }

  stream(options?: { connOptions?: APIConnectOptions }): SonioxSpeechStream {
    const o = this.#opts;
    const hints = o.languageHints.length > 0 ? o.languageHints : [getBaseLanguage(o.language)];
    const terms = [...new Set([...o.keyterms, ...this.#sessionKeyterms])];
    const start = {
      // The Authorization header carries the key in Soniox's current scheme; `api_key` here is the earlier scheme,
      // still read until 15 January 2027, sent as well so an endpoint that only knows it (an older proxy) works.
      api_key: o.apiKey,
      model: o.model,
      audio_format: 'pcm_s16le',
      sample_rate: o.sampleRate,
      num_channels: 1,
      language_hints: hints,
      enable_language_identification: hints.length > 1,
      enable_endpoint_detection: true,
      ...(o.maxEndpointDelayMs !== undefined
        ? { max_endpoint_delay_ms: Math.min(Math.max(o.maxEndpointDelayMs, ENDPOINT_DELAY_RANGE_MS[0]), ENDPOINT_DELAY_RANGE_MS[1]) }
        : {}),
      ...(terms.length > 0 ? { context: { terms } } : {}),
    };
    return new SonioxSpeechStream(this, {
      request: { url: socketUrl(o.baseUrl, SONIOX_PATH), headers: { Authorization: `Bearer ${o.apiKey}` } },
      start: JSON.stringify(start),
      language: hints[0] ?? 'en',
      sampleRate: o.sampleRate,
      connOptions: options?.connOptions ?? DEFAULT_API_CONNECT_OPTIONS,
    });
  }
}

interface SonioxStreamConfig {
  request: SocketRequest;
  start: string;
  language: string;
  sampleRate: number;
  connOptions: APIConnectOptions;
}

export class SonioxSpeechStream extends SocketSpeechStream {
  label = 'soniox.SpeechStream';
  protected readonly vendor = 'soniox';
  readonly #config: SonioxStreamConfig;
  /** Final tokens of the utterance in progress: Soniox sends each final token once, so they are kept until `<end>`. */
  #final: SonioxToken[] = [];
  #speaking = false;

  constructor(owner: SonioxSTT, config: SonioxStreamConfig) {
    super(owner, config.sampleRate, config.connOptions);
    this.#config = config;
  }

  protected request(): SocketRequest {
    return this.#config.request;
  }

  protected override startMessage(): string {
    return this.#config.start;
  }

  protected endOfAudioMessage(): string {
    return ''; // an empty frame is Soniox's end of audio
  }

  protected flushMessage(): string {
    return JSON.stringify({ type: 'finalize' });
  }

  protected override keepAliveMessage(): string {
    return JSON.stringify({ type: 'keepalive' });
  }

  protected handleMessage(message: Record<string, unknown>): boolean {
    if (message.error_code !== undefined || message.error_message !== undefined) throw sonioxError(message);
    const tokens = Array.isArray(message.tokens) ? (message.tokens as SonioxToken[]) : [];
    let nonFinal: SonioxToken[] = [];
    let heard = false; // text arrived after the last utterance end in this message
    for (const token of tokens) {
      if (!token.text) continue;
      if (END_TOKENS.has(token.text)) {
        this.#endUtterance();
        nonFinal = [];
        heard = false;
        continue;
      }
      heard = true;
      if (!this.#speaking) {
        this.#speaking = true;
        this.emit({ type: stt.SpeechEventType.START_OF_SPEECH });
      }
      if (token.is_final) this.#final.push(token);
      else nonFinal.push(token);
    }
    if (heard) {
      // Interim: the utterance so far, settled tokens first, then Soniox's current guess at the rest.
      const data = this.#speechData([...this.#final, ...nonFinal]);
      if (data.text) this.emit({ type: stt.SpeechEventType.INTERIM_TRANSCRIPT, alternatives: [data] });
    }
    return message.finished === true;
  }

  protected closeError(code: number): APIError {
    return new APIConnectionError({ message: `soniox closed the connection (code ${code}) before the session finished` });
  }

  protected connectionEnded(): void {
    // Final tokens are settled text even when the connection dropped before `<end>`; unsettled ones are lost.
    this.#endUtterance();
  }

  #endUtterance(): void {
    const data = this.#speechData(this.#final);
    this.#final = [];
    if (data.text) this.emit({ type: stt.SpeechEventType.FINAL_TRANSCRIPT, alternatives: [data] });
    if (this.#speaking) {
      this.#speaking = false;
      this.emit({ type: stt.SpeechEventType.END_OF_SPEECH });
    }
  }

  #speechData(tokens: SonioxToken[]): stt.SpeechData {
    const first = tokens[0];
    const last = tokens[tokens.length - 1];
    const confidences = tokens.map((t) => t.confidence).filter((c): c is number => typeof c === 'number');
    return {
      text: tokens
        .map((t) => t.text ?? '')
        .join('')
        .trim(),
      language: normalizeLanguage(tokens.find((t) => t.language)?.language ?? this.#config.language),
      startTime: (first?.start_ms ?? 0) / 1000 + this.startTimeOffset,
      endTime: (last?.end_ms ?? 0) / 1000 + this.startTimeOffset,
      confidence: confidences.length > 0 ? confidences.reduce((a, b) => a + b, 0) / confidences.length : 0,
    };
  }
}

/** Soniox error codes are HTTP statuses; the framework makes 4xx (but 408 and 429) final and retries the rest. */
function sonioxError(message: Record<string, unknown>): APIStatusError {
  const statusCode = typeof message.error_code === 'number' ? message.error_code : 500;
  const detail = typeof message.error_message === 'string' ? message.error_message : 'unknown error';
  return new APIStatusError({
    message: `soniox error ${statusCode}: ${detail}`,
    options: { statusCode, body: { error_code: message.error_code, error_message: message.error_message } },
  });
}
