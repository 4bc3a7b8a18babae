import http from 'node:http';
import https from 'node:https';
import { guardedLookup, isRefusedLiteral, TargetRefused } from './target-guard.js';

/**
 * 15 s for the whole exchange (connect, request, response headers and body). Receivers are expected to acknowledge
 * and process later, as Standard Webhooks advises; 15 s still covers a receiver waking from a cold start (typically
 * 1-10 s), and bounds how long one slow endpoint holds a delivery slot that other endpoints' events are waiting for.
 */
export const DELIVERY_TIMEOUT_MS = 15_000;
/** The error of an attempt cut short by the worker stopping; its outcome is not recorded and its lease lapses. */
export const ABANDONED_ERROR = 'attempt abandoned at shutdown';
/** The response body is read only to free the connection for reuse; beyond 64 KiB the connection is dropped instead. */
const MAX_RESPONSE_BODY_BYTES = 64 * 1024;

export interface SendResult {
  /** HTTP status, when a response arrived. */
  status: number | null;
  durationMs: number;
  /** What went wrong before a response arrived (timeout, refused target, network error); null when one arrived. */
  error: string | null;
}

export interface Sender {
  send(url: string, headers: Record<string, string>, body: string): Promise<SendResult>;
  /** Ends every request in flight; each resolves with ABANDONED_ERROR. */
  abandonAll(): void;
  close(): void;
}

/** A sentence for what went wrong before a response arrived. */
export function describeError(error: unknown): string {
  if (error instanceof TargetRefused) return error.message;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET') return 'connection reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host name did not resolve';
  if (code === 'ETIMEDOUT') return 'connection timed out';
  if (code === 'CERT_HAS_EXPIRED' || code?.startsWith('ERR_TLS') || code?.includes('CERT')) return 'TLS certificate rejected';
  return error instanceof Error && error.message ? error.message.slice(0, 200) : 'request failed';
}

/**
 * Sends webhook requests with Node's own http/https: keep-alive connections per process, no redirects followed (a
 * redirect could lead to a private address, and is reported as the 3xx it is), a hard deadline per request, and the
 * target guard on every address connected to.
 */
export function createSender(options: { timeoutMs?: number; allowPrivateTargets: boolean; maxSockets?: number }): Sender {
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const lookup = guardedLookup(options.allowPrivateTargets);
  // 64 sockets per host: the worker's default concurrency (32) twice over, so one busy host never waits for a socket.
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 64 };
  const httpAgent = new http.Agent(agentOptions);
  const httpsAgent = new https.Agent(agentOptions);
  const active = new Set<() => void>();

  function send(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = performance.now();
    const done = (status: number | null, error: string | null): SendResult => ({
      status,
      error,
      durationMs: Math.round(performance.now() - started),
    });
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return Promise.resolve(done(null, 'invalid URL'));
    }
    if (isRefusedLiteral(target, options.allowPrivateTargets)) {
      return Promise.resolve(done(null, new TargetRefused().message));
    }
    const secure = target.protocol === 'https:';
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const finish = (status: number | null, error: string | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        active.delete(onAbandon);
        resolve(done(status, error));
      };
      const request = (secure ? https : http).request(target, {
        method: 'POST',
        agent: secure ? httpsAgent : httpAgent,
        lookup,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'voice-platform-webhooks/0.1',
        },
      });
      // Set once the status line arrived: the receiver has answered, and a body still trickling in at the deadline
      // does not turn that answer into a timeout.
      let answered: number | null = null;
      const timer = setTimeout(() => {
        request.destroy();
        finish(answered, answered === null ? `timed out after ${timeoutMs} ms` : null);
      }, timeoutMs);
      const onAbandon = () => {
        request.destroy();
        finish(null, ABANDONED_ERROR);
      };
      active.add(onAbandon);
      request.on('error', (error) => finish(null, describeError(error)));
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        answered = status;
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > MAX_RESPONSE_BODY_BYTES) {
            response.destroy();
            finish(status, null);
          }
        });
        response.on('end', () => finish(status, null));
        response.on('error', () => finish(status, null));
        response.on('close', () => finish(status, null));
      });
      request.end(body);
    });
  }

  return {
    send,
    abandonAll() {
      for (const abandon of [...active]) abandon();
    },
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}
