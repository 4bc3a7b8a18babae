import type http from 'node:http';
import type { RecordedRequest } from '../http-server.js';

// OpenAI's embeddings API as its reference documents it: POST /embeddings with `{model, input, encoding_format}`
// (input a string or an array of strings), answered `{object: "list", data: [{object: "embedding", index, embedding}],
// model, usage: {prompt_tokens, total_tokens}}`; errors as `{error: {message, type, param, code}}` with the status; a
// wrong key is a 401 naming the key's last four characters, as OpenAI's does. Ollama's and other compatible servers
// answer the same shape. Vectors are a hashed bag of words (fakeEmbedding), so texts sharing words are near.

export type EmbeddingFault = { status: number; message?: string; retryAfter?: string } | { shuffle: true } | { dimensions: number };

export interface FakeEmbeddingsOptions {
  /** The key the fake expects in Authorization; any key (or none) when absent. */
  apiKey?: string;
  /** Dimensions per model; 1536 otherwise. */
  dimensions?: Record<string, number>;
  /** A fault for the nth embeddings request (0-based), or none. */
  fault?: (index: number, body: Record<string, unknown>) => EmbeddingFault | undefined;
}

const WORD = /[a-z0-9]+/g;

/** Crude stemming, so "refunds" and "refund" share a dimension. */
const stem = (word: string) => word.replace(/(ing|ed|es|s)$/, '');

/** The fake's vector of `text`: each stemmed word hashed into a dimension, counted, L2-normalised. */
export function fakeEmbedding(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(WORD) ?? []) {
    let hash = 2166136261;
    for (const char of stem(word)) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619);
    vector[(hash >>> 0) % dimensions]! += 1;
  }
  const norm = Math.sqrt(vector.reduce((s, v) => s + v * v, 0)) || 1;
  return vector.map((v) => v / norm);
}

function error(res: http.ServerResponse, status: number, message: string, extra: Record<string, string> = {}, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(
    JSON.stringify({
      error: {
        message,
        type: status === 401 ? 'invalid_request_error' : status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error',
        param: null,
        code: null,
        ...extra,
      },
    }),
  );
}

/** Answers one embeddings request; `index` counts the embeddings requests so far. */
export function answerEmbeddings(req: RecordedRequest, res: http.ServerResponse, index: number, options: FakeEmbeddingsOptions): void {
  const presented = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
  if (options.apiKey !== undefined && presented !== options.apiKey) {
    return error(
      res,
      401,
      `Incorrect API key provided: ${presented ? `sk-...${presented.slice(-4)}` : 'none'}. You can find your API key at https://platform.openai.com/account/api-keys.`,
      { code: 'invalid_api_key' },
    );
  }
  const body = (req.json ?? {}) as Record<string, unknown>;
  const input = typeof body.input === 'string' ? [body.input] : body.input;
  if (
    typeof body.model !== 'string' ||
    !Array.isArray(input) ||
    input.length === 0 ||
    input.length > 2048 ||
    !input.every((t) => typeof t === 'string' && t.length > 0)
  ) {
    return error(res, 400, "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.", { param: 'input' });
  }
  const fault = options.fault?.(index, body);
  if (fault && 'status' in fault)
    return error(
      res,
      fault.status,
      fault.message ?? 'The server had an error while processing your request.',
      {},
      fault.retryAfter ? { 'retry-after': fault.retryAfter } : {},
    );
  const dimensions = fault && 'dimensions' in fault ? fault.dimensions : (options.dimensions?.[body.model] ?? 1536);
  const data = (input as string[]).map((text, i) => ({ object: 'embedding', index: i, embedding: fakeEmbedding(text, dimensions) }));
  // OpenAI answers in order, but documents `index` as the position: a client must not rely on the order.
  if (fault && 'shuffle' in fault) data.reverse();
  const tokens = (input as string[]).reduce((n, t) => n + Math.ceil(t.length / 4), 0);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } }));
}
