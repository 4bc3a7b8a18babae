import http from 'node:http';
import https from 'node:https';
import { describeError } from './http-sender.js';
import { guardedLookup, isRefusedLiteral, TargetRefused } from './target-guard.js';

// One outbound request whose answer is read, for requests the service makes on a customer's behalf (a tool's HTTP
// call): the target guard on every address connected to, no redirect followed (a redirect could lead to a private
// address; it is answered as the 3xx it is), a deadline for the whole exchange, a cap on the body read, and
// cancellation by an AbortSignal.

export interface GuardedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | null;
  timeoutMs: number;
  /** Bytes of the answer's body kept; the rest is not read (the connection is dropped). */
  maxBodyBytes: number;
  allowPrivateTargets: boolean;
  signal?: AbortSignal | undefined;
}

export interface GuardedResponse {
  /** HTTP status, when a response arrived. */
  status: number | null;
  contentType: string | null;
  /** The body read, at most maxBodyBytes. */
  body: Buffer;
  /** The body was longer than maxBodyBytes. */
  truncated: boolean;
  durationMs: number;
  /** What went wrong (timed out, cancelled, refused target, network error); null when the whole answer arrived. */
  error: string | null;
}

export const CANCELLED_ERROR = 'cancelled';

export function guardedRequest(request: GuardedRequest): Promise<GuardedResponse> {
  const started = performance.now();
  const chunks: Buffer[] = [];
  let kept = 0;
  let truncated = false;
  let status: number | null = null;
  let contentType: string | null = null;
  const done = (error: string | null): GuardedResponse => ({
    status,
    contentType,
    body: Buffer.concat(chunks),
    truncated,
    durationMs: Math.round(performance.now() - started),
    error,
  });
  let target: URL;
  try {
    target = new URL(request.url);
  } catch {
    return Promise.resolve(done('invalid URL'));
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return Promise.resolve(done('only http and https are requested'));
  if (isRefusedLiteral(target, request.allowPrivateTargets)) return Promise.resolve(done(new TargetRefused().message));
  if (request.signal?.aborted) return Promise.resolve(done(CANCELLED_ERROR));

  return new Promise<GuardedResponse>((resolve) => {
    let settled = false;
    const finish = (error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      outgoing.destroy();
      resolve(done(error));
    };
    const secure = target.protocol === 'https:';
    const headers: Record<string, string> = { 'user-agent': 'voice-platform-tools/0.1', ...request.headers };
    if (request.body !== null) {
      headers['content-type'] ??= 'application/json';
      headers['content-length'] = String(Buffer.byteLength(request.body));
    }
    const outgoing = (secure ? https : http).request(target, { method: request.method, lookup: guardedLookup(request.allowPrivateTargets), headers });
    const timer = setTimeout(() => finish(`timed out after ${request.timeoutMs} ms`), request.timeoutMs);
    const onAbort = () => finish(CANCELLED_ERROR);
    request.signal?.addEventListener('abort', onAbort, { once: true });
    outgoing.on('error', (error) => finish(describeError(error)));
    outgoing.on('response', (response) => {
      status = response.statusCode ?? 0;
      contentType = response.headers['content-type'] ?? null;
      response.on('data', (chunk: Buffer) => {
        const room = request.maxBodyBytes - kept;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, Math.max(room, 0)));
          kept = request.maxBodyBytes;
          truncated = true;
          finish(null);
          return;
        }
        chunks.push(chunk);
        kept += chunk.length;
      });
      response.on('end', () => finish(null));
      response.on('error', (error) => finish(describeError(error)));
    });
    outgoing.end(request.body ?? undefined);
  });
}
