import {
  APIConnectionError,
  APIStatusError,
  createTimedString,
  DEFAULT_API_CONNECT_OPTIONS,
  getBaseLanguage,
  normalizeLanguage,
  stt,
  type APIConnectOptions,
  type APIError,
} from '@livekit/agents';
import { SocketSpeechStream, socketUrl, streamingOnly, type SocketRequest } from './stt-socket.js';

// AssemblyAI Universal Streaming (v3): wss://streaming.assemblyai.com/v3/ws with the settings as query parameters and
// the key in the Authorization header. The server sends `Begin`, `Turn` (a growing transcript; `end_of_turn` closes
// it, and with `format_turns` a formatted copy follows), `SpeechStarted` on some models, and `Termination` after the
// client's `Terminate`. Failures come as an `Error` frame and a close whose code says what went wrong.

const ASSEMBLYAI_BASE_URL = 'wss://streaming.assemblyai.com';
const ASSEMBLYAI_PATH = '/v3/ws';
export const ASSEMBLYAI_ENGLISH_MODEL = 'universal-streaming-english';
export const ASSEMBLYAI_MULTILINGUAL_MODEL = 'universal-streaming-multilingual';
/** AssemblyAI's own default `end_of_turn_confidence_threshold`, where an endpoint sensitivity of 0 lands. */
const DEFAULT_END_OF_TURN_CONFIDENCE = 0.4;

export interface AssemblyAISTTOptions {
  apiKey: string;
  /** Scheme and host, e.g. `wss://streaming.assemblyai.com`; the path is AssemblyAI's. */
  baseUrl?: string;
  /** `speech_model`; by default the English model, or the multilingual one for other languages or detection. */
  speechModel?: string;
  language?: string;
  languageDetection?: boolean;
  keyterms?: string[];
  /** Punctuated, cased end-of-turn transcripts (one more message per turn, a little later). */
  formatTurns?: boolean;
  endOfTurnConfidenceThreshold?: number;
  minEndOfTurnSilenceWhenConfidentMs?: number;
  maxTurnSilenceMs?: number;
  sampleRate?: number;
}

/**
 * The assistant's `endpoint_sensitivity` (-1 to 1) as AssemblyAI's end-of-turn confidence threshold: a more sensitive
 * endpointer ends a turn on weaker evidence, so 1 gives 0.1, 0 the vendor default 0.4, and -1 gives 0.7.
 */
export function endOfTurnConfidenceFromSensitivity(sensitivity: number): number {
  return Math.round((DEFAULT_END_OF_TURN_CONFIDENCE - 0.3 * sensitivity) * 100) / 100;
}

interface AssemblyAIWord {
  text?: string;
  start?: number;
  end?: number;
  confidence?: number;
}

interface AssemblyAITurn {
  turn_order?: number;
  end_of_turn?: boolean;
  turn_is_formatted?: boolean;
  transcript?: string;
  words?: AssemblyAIWord[];
  language_code?: string;
}

export class AssemblyAISTT extends stt.STT {
  label = 'assemblyai.STT';
  readonly #opts: AssemblyAISTTOptions & { baseUrl: string; language: string; keyterms: string[]; sampleRate: number; formatTurns: boolean };
  readonly #model: string;
  #sessionKeyterms: string[] = [];

  constructor(options: AssemblyAISTTOptions) {
    super({ streaming: true, interimResults: true, alignedTranscript: 'word', keyterms: true });
    this.#opts = {
      ...options,
      baseUrl: options.baseUrl ?? ASSEMBLYAI_BASE_URL,
      language: options.language ?? 'en',
      keyterms: options.keyterms ?? [],
      sampleRate: options.sampleRate ?? 16_000,
      formatTurns: options.formatTurns ?? true,
    };
    const english = getBaseLanguage(this.#opts.language) === 'en' && !this.#opts.languageDetection;
    this.#model = options.speechModel ?? (english ? ASSEMBLYAI_ENGLISH_MODEL : ASSEMBLYAI_MULTILINGUAL_MODEL);
  }

  override get model(): string {
    return this.#model;
  }

  override get provider(): string {
    return 'assemblyai';
  }

  /** Keyterms are connection parameters, so those given here apply to streams opened afterwards. */
  override _updateSessionKeyterms(keyterms: string[]): void {
    this.#sessionKeyterms = [...keyterms];
  }

  protected async _recognize(): Promise<stt.SpeechEvent> {
    return streamingOnly('assemblyai');
  }

  stream(options?: { connOptions?: APIConnectOptions }): AssemblyAISpeechStream {
    const o = this.#opts;
    const url = socketUrl(o.baseUrl, ASSEMBLYAI_PATH);
    const query = url.searchParams;
    query.set('sample_rate', String(o.sampleRate));
    query.set('encoding', 'pcm_s16le');
    query.set('speech_model', this.#model);
    query.set('format_turns', String(o.formatTurns));
    const keyterms = [...new Set([...o.keyterms, ...this.#sessionKeyterms])];
    if (keyterms.length > 0) query.set('keyterms_prompt', JSON.stringify(keyterms));
    if (o.languageDetection) query.set('language_detection', 'true');
    if (o.endOfTurnConfidenceThreshold !== undefined) query.set('end_of_turn_confidence_threshold', String(o.endOfTurnConfidenceThreshold));
    if (o.minEndOfTurnSilenceWhenConfidentMs !== undefined) {
      query.set('min_end_of_turn_silence_when_confident', String(o.minEndOfTurnSilenceWhenConfidentMs));
    }
    if (o.maxTurnSilenceMs !== undefined) query.set('max_turn_silence', String(o.maxTurnSilenceMs));
    return new AssemblyAISpeechStream(this, {
      request: { url, headers: { Authorization: o.apiKey } },
      language: o.language,
      formatTurns: o.formatTurns,
      sampleRate: o.sampleRate,
      connOptions: options?.connOptions ?? DEFAULT_API_CONNECT_OPTIONS,
    });
  }
}

interface AssemblyAIStreamConfig {
  request: SocketRequest;
  language: string;
  formatTurns: boolean;
  sampleRate: number;
  connOptions: APIConnectOptions;
}

export class AssemblyAISpeechStream extends SocketSpeechStream {
  label = 'assemblyai.SpeechStream';
  protected readonly vendor = 'assemblyai';
  readonly #config: AssemblyAIStreamConfig;
  #speaking = false;
  /** An ended turn whose formatted copy has not arrived yet: its text is settled, only its formatting is not. */
  #unformattedEnd: stt.SpeechData | null = null;

  constructor(owner: AssemblyAISTT, config: AssemblyAIStreamConfig) {
    super(owner, config.sampleRate, config.connOptions);
    this.#config = config;
  }

  protected request(): SocketRequest {
    return this.#config.request;
  }

  protected endOfAudioMessage(): string {
    return JSON.stringify({ type: 'Terminate' });
  }

  protected flushMessage(): string {
    return JSON.stringify({ type: 'ForceEndpoint' });
  }

  protected handleMessage(message: Record<string, unknown>): boolean {
    switch (message.type) {
      case 'Begin':
        this.requestId = typeof message.id === 'string' ? message.id : '';
        return false;
      case 'SpeechStarted':
        this.#startSpeech();
        return false;
      case 'Turn':
        this.#turn(message as AssemblyAITurn);
        return false;
      case 'Termination':
        return true;
      default:
        // `{type: "Error", error_code, error}`, or an `{error}` object without a type from older servers.
        if (message.type === 'Error' || typeof message.error === 'string') {
          throw assemblyAiError(typeof message.error_code === 'number' ? message.error_code : 3005, String(message.error ?? ''));
        }
        return false;
    }
  }

  protected closeError(code: number, reason: string): APIError {
    return assemblyAiError(code, reason);
  }

  protected connectionEnded(): void {
    // An ended turn still waiting for its formatting is settled text: keep it rather than lose it with the socket.
    if (this.#unformattedEnd) this.#endTurn(this.#unformattedEnd);
    else if (this.#speaking) this.#endTurn(null);
  }

  #turn(turn: AssemblyAITurn): void {
    const words = turn.words ?? [];
    if (turn.end_of_turn) {
      const data = this.#speechData(turn.transcript ?? '', words, turn.language_code);
      if (this.#config.formatTurns && !turn.turn_is_formatted) {
        // The formatted copy follows; show the words now, settle the turn when it arrives.
        this.#unformattedEnd = data;
        if (data.text) this.emit({ type: stt.SpeechEventType.INTERIM_TRANSCRIPT, alternatives: [data] });
        return;
      }
      this.#endTurn(data);
      return;
    }
    // `transcript` holds only the words AssemblyAI has settled; an interim shows its guesses too.
    const text =
      words
        .map((w) => w.text ?? '')
        .join(' ')
        .trim() ||
      (turn.transcript ?? '');
    if (!text) return;
    this.#startSpeech();
    this.emit({ type: stt.SpeechEventType.INTERIM_TRANSCRIPT, alternatives: [this.#speechData(text, words, turn.language_code)] });
  }

  #startSpeech(): void {
    if (this.#speaking) return;
    this.#speaking = true;
    this.emit({ type: stt.SpeechEventType.START_OF_SPEECH });
  }

  #endTurn(data: stt.SpeechData | null): void {
    this.#unformattedEnd = null;
    if (data?.text) {
      this.#startSpeech();
      this.emit({ type: stt.SpeechEventType.FINAL_TRANSCRIPT, alternatives: [data] });
    }
    if (this.#speaking) {
      this.#speaking = false;
      this.emit({ type: stt.SpeechEventType.END_OF_SPEECH });
    }
  }

  #speechData(text: string, words: AssemblyAIWord[], languageCode: string | undefined): stt.SpeechData {
    const offset = this.startTimeOffset;
    const confidences = words.map((w) => w.confidence).filter((c): c is number => typeof c === 'number');
    return {
      text: text.trim(),
      language: normalizeLanguage(languageCode ?? this.#config.language),
      startTime: (words[0]?.start ?? 0) / 1000 + offset,
      endTime: (words[words.length - 1]?.end ?? 0) / 1000 + offset,
      confidence: confidences.length > 0 ? confidences.reduce((a, b) => a + b, 0) / confidences.length : 0,
      words: words.map((w) =>
        createTimedString({
          text: w.text ?? '',
          startTime: (w.start ?? 0) / 1000 + offset,
          endTime: (w.end ?? 0) / 1000 + offset,
          confidence: w.confidence ?? 0,
          startTimeOffset: offset,
        }),
      ),
    };
  }
}

/**
 * AssemblyAI's close codes (also the `error_code` of its Error frame) as the framework's errors. Status codes follow
 * HTTP so that the framework's rule applies: 4xx other than 408/429 are final and the session's fallback takes over.
 */
export function assemblyAiError(code: number, reason: string): APIError {
  const message = `assemblyai closed the session (code ${code}${reason ? `: ${reason}` : ''})`;
  const body = { close_code: code, reason };
  switch (code) {
    case 1008: // "Unauthorized Connection": a bad key or account, or too many concurrent sessions
      return new APIStatusError({ message, options: { statusCode: /concurrent|too many/i.test(reason) ? 429 : 401, body } });
    case 3009: // too many concurrent sessions
      return new APIStatusError({ message, options: { statusCode: 429, body } });
    case 3006: // invalid message
    case 3007: // audio chunk length or sending rate out of bounds: resending the same audio fails the same way
      return new APIStatusError({ message, options: { statusCode: 400, body } });
    case 3005: // session cancelled by a server error
      return new APIStatusError({ message, options: { statusCode: 500, body } });
    default: // 3008 (session reached its maximum duration), 1000 without Termination, 1006: a new session carries on
      return new APIConnectionError({ message });
  }
}
