import { EmbeddingError, normalise, type EmbedOptions, type Embedder } from './embedder.js';
import { backoffMs } from '../../../lib/backoff.js';
import { sleep } from '../../../lib/async.js';

// OpenAI's embeddings API, and every server that speaks it (Ollama, vLLM, LiteLLM, Azure through a proxy): POST
// {base}/embeddings with `{model, input: [...], encoding_format: "float"}`, answered by `{data: [{index, embedding}]}`.
// Requests stay inside OpenAI's limits (2,048 inputs, 300,000 tokens per request, 8,192 tokens per input); a 429 or 5xx
// is retried with its Retry-After; anything else fails at once with the vendor's own words.

/** OpenAI takes 2,048 inputs per request. */
const MAX_INPUTS = 2048;
/** 300,000 tokens per request at most: ~250,000 estimated leaves room for the estimate's error. */
const MAX_REQUEST_TOKENS = 250_000;
/** 8,192 tokens per input: texts are cut at ~8,000 tokens' worth of characters (a chunk is ~250). */
const MAX_INPUT_CHARS = 8_000 * 4;
const MAX_ATTEMPTS = 4;
/** Waits between attempts when the server names none: 0.5 s, 1 s, 2 s; a Retry-After over 20 s is not waited for. */
const BACKOFF_MS = [500, 1_000, 2_000];
const MAX_RETRY_AFTER_MS = 20_000;
const DEFAULT_TIMEOUT_MS = 30_000;

export interface OpenAICompatibleOptions {
  model: string;
  /** The name the server knows the model by (the setting without its `openai/` or `<vendor>/` prefix). */
  remoteModel: string;
  baseUrl: string;
  apiKey: string | undefined;
  dimensions?: number | undefined;
  /** Who answers, in messages: "OpenAI", "the ollama server". */
  vendorName: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const estimateTokens = (text: string) => Math.ceil(text.length / 4);

/** Batches that respect the request limits, in order. */
export function batchesOf(texts: string[]): string[][] {
  const batches: string[][] = [];
  let current: string[] = [];
  let tokens = 0;
  for (const raw of texts) {
    const text = raw.length > MAX_INPUT_CHARS ? raw.slice(0, MAX_INPUT_CHARS) : raw;
    const cost = estimateTokens(text);
    if (current.length > 0 && (current.length >= MAX_INPUTS || tokens + cost > MAX_REQUEST_TOKENS)) {
      batches.push(current);
      current = [];
      tokens = 0;
    }
    current.push(text === '' ? ' ' : text);
    tokens += cost;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

export class OpenAICompatibleEmbedder implements Embedder {
  readonly model: string;
  #dimensions: number | undefined;
  readonly #options: OpenAICompatibleOptions;

  constructor(options: OpenAICompatibleOptions) {
    this.model = options.model;
    this.#dimensions = options.dimensions;
    this.#options = options;
  }

  get dimensions(): number | undefined {
    return this.#dimensions;
  }

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (const batch of batchesOf(texts)) out.push(...(await this.#request(batch, options.signal)));
    return out;
  }

  async #request(input: string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    const { baseUrl, apiKey, remoteModel, vendorName } = this.#options;
    const url = `${baseUrl.replace(/\/+$/, '')}/embeddings`;
    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      let response: Response;
      const timeout = AbortSignal.timeout(this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      try {
        response = await (this.#options.fetch ?? fetch)(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
          body: JSON.stringify({ model: remoteModel, input, encoding_format: 'float' }),
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        const why = timeout.aborted ? 'did not answer in time' : 'could not be reached';
        if (attempt < MAX_ATTEMPTS) {
          await sleep(backoffMs(BACKOFF_MS, attempt, { afterLast: 'repeat_last' })!, signal);
          continue;
        }
        throw new EmbeddingError(
          `The embedding server (${vendorName}) ${why}${error instanceof Error && !timeout.aborted ? `: ${redact(error.message, apiKey)}` : ''}.`,
          true,
        );
      }
      if (response.ok) return this.#vectors(await response.json().catch(() => null), input.length);
      const body = await response.text().catch(() => '');
      const retryable = response.status === 429 || response.status >= 500;
      if (retryable && attempt < MAX_ATTEMPTS) {
        const wait = retryAfterMs(response.headers.get('retry-after')) ?? backoffMs(BACKOFF_MS, attempt, { afterLast: 'repeat_last' })!;
        if (wait <= MAX_RETRY_AFTER_MS) {
          await sleep(wait, signal);
          continue;
        }
      }
      throw new EmbeddingError(
        `The embedding server (${vendorName}) refused the request (${response.status}): ${redact(vendorMessage(body), apiKey)}`,
        retryable,
      );
    }
  }

  #vectors(body: unknown, expected: number): Float32Array[] {
    const data = (body as { data?: unknown } | null)?.data;
    if (!Array.isArray(data) || data.length !== expected) {
      throw new EmbeddingError(
        `The embedding server (${this.#options.vendorName}) answered ${Array.isArray(data) ? data.length : 'no'} vectors for ${expected} texts.`,
        true,
      );
    }
    const out: Float32Array[] = new Array(expected);
    for (const [position, item] of data.entries()) {
      const { index, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
      const at = typeof index === 'number' && Number.isInteger(index) && index >= 0 && index < expected ? index : position;
      if (!Array.isArray(embedding) || embedding.length === 0 || !embedding.every((v) => typeof v === 'number' && Number.isFinite(v))) {
        throw new EmbeddingError(`The embedding server (${this.#options.vendorName}) answered a vector that is not a list of numbers.`, false);
      }
      this.#dimensions ??= embedding.length;
      if (embedding.length !== this.#dimensions) {
        throw new EmbeddingError(
          `The embedding model ${this.model} answered vectors of ${embedding.length} dimensions where ${this.#dimensions} were expected: it is not the model the documents were embedded with.`,
          false,
        );
      }
      out[at] = normalise(Float32Array.from(embedding as number[]));
    }
    if (out.some((v) => v === undefined)) throw new EmbeddingError(`The embedding server (${this.#options.vendorName}) answered vectors out of order.`, true);
    return out;
  }
}

/** The vendor's own explanation: OpenAI's `{error: {message}}`, else the start of the body. */
function vendorMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.message);
    if (typeof message === 'string' && message.trim()) return message.trim().slice(0, 300);
  } catch {
    // Not JSON: the text itself.
  }
  return body.trim().slice(0, 300) || 'no reason given';
}

/** A key echoed back (OpenAI's 401 names the key's last characters; a proxy may echo it whole) is never repeated. */
function redact(text: string, apiKey: string | undefined): string {
  // OpenAI's 401 shows the key as `sk-...abcd`: even that much is not repeated.
  let out = text.replace(/\b(sk|key|tok)[-_][^\s,;]{3,}/gi, '[redacted]');
  if (apiKey) out = out.split(apiKey).join('[redacted]');
  return out;
}

function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
