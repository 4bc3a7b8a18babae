import { guardedRequest } from '../../lib/net/guarded-request.js';
import { renderRequest, type HttpTemplate, type ToolValues } from './render.js';

// One call of an HTTP tool, as a call makes it and as a test run shows it: the request filled in (render.ts), sent
// through the target guard with the tool's deadline, and its answer turned into what the model is told. A non-2xx
// status, a JSON body that reports an error, a timeout or a refused target is a failure the model sees as one, so it
// does not read an error page as data. Credential values never leave here: the request shown has them redacted, and a
// response that echoes one has it redacted too.

/** Bytes of an answer read; a larger body is cut (a tool answering a model should answer briefly). */
export const MAX_RESPONSE_BYTES = 64 * 1024;
/** Characters of the answer the model is given: about 1,000 tokens, a tenth of a small model's context. */
export const MAX_MODEL_OUTPUT_CHARS = 4_000;
export const REDACTED = '[redacted]';

export interface HttpToolConfig extends HttpTemplate {
  /** Credential headers, opened: sent, never shown. */
  secretHeaders: Record<string, string>;
  timeoutMs: number;
}

export interface HttpToolResult {
  request: { method: string; url: string; headers: Record<string, string>; body: string | null };
  /** Placeholders with no value, rendered empty. */
  missing: string[];
  status: number | null;
  duration_ms: number;
  /** The answer's body as text, cut at MAX_RESPONSE_BYTES, credentials redacted. */
  response_body: string;
  truncated: boolean;
  is_error: boolean;
  /** Why the call failed; null when it did not. */
  error: string | null;
  /** What the model is given. */
  output: string;
}

/** A JSON answer that carries an error despite its status: `{"error": ...}` or a non-empty `errors`. */
function reportedError(body: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const record = parsed as Record<string, unknown>;
  if (record.error !== undefined && record.error !== null && record.error !== false && record.error !== '') {
    return typeof record.error === 'string' ? record.error : JSON.stringify(record.error);
  }
  if (Array.isArray(record.errors) && record.errors.length > 0) return JSON.stringify(record.errors);
  return null;
}

const cut = (text: string, limit: number) => (text.length > limit ? `${text.slice(0, limit)} [cut at ${limit} characters]` : text);

export async function executeHttpTool(
  config: HttpToolConfig,
  values: ToolValues,
  options: { allowPrivateTargets: boolean; signal?: AbortSignal | undefined },
): Promise<HttpToolResult> {
  const rendered = renderRequest(config, values);
  const secrets = Object.values(config.secretHeaders).filter((value) => value.length > 0);
  const redact = (text: string) => secrets.reduce((out, secret) => out.split(secret).join(REDACTED), text);
  const response = await guardedRequest({
    method: rendered.method,
    url: rendered.url,
    headers: { ...rendered.headers, ...config.secretHeaders },
    body: rendered.body,
    timeoutMs: config.timeoutMs,
    maxBodyBytes: MAX_RESPONSE_BYTES,
    allowPrivateTargets: options.allowPrivateTargets,
    signal: options.signal,
  });
  const body = redact(response.body.toString('utf8'));
  const failure =
    response.error ??
    (response.status !== null && (response.status < 200 || response.status > 299) ? `HTTP ${response.status}` : null) ??
    (response.truncated ? null : reportedError(body));
  const output = failure
    ? cut(`The request failed: ${failure}${body ? `. The answer was: ${body}` : ''}`, MAX_MODEL_OUTPUT_CHARS)
    : cut(body || `HTTP ${response.status} with no body`, MAX_MODEL_OUTPUT_CHARS);
  return {
    request: {
      method: rendered.method,
      url: redact(rendered.url),
      headers: {
        ...Object.fromEntries(Object.entries(rendered.headers).map(([k, v]) => [k, redact(v)])),
        ...Object.fromEntries(Object.keys(config.secretHeaders).map((k) => [k, REDACTED])),
      },
      body: rendered.body === null ? null : redact(rendered.body),
    },
    missing: rendered.missing,
    status: response.status,
    duration_ms: response.durationMs,
    response_body: body,
    truncated: response.truncated,
    is_error: failure !== null,
    error: failure,
    output,
  };
}
