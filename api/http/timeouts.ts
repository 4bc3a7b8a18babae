import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions, RequestPayload } from 'fastify';
import { PassThrough } from 'node:stream';
import { HttpError } from './errors.js';
import { BODY_LIMIT_BYTES } from './json-body.js';

// How long a client may take to send a request, and how long an idle connection is kept. Without bounds, a client
// trickling its headers or body a byte at a time holds a connection (and its socket and memory) for ever; docs/api.md,
// "Timeouts and limits", gives these numbers to clients.

export interface HttpTimeouts {
  /** All of a request's headers. */
  headersMs: number;
  /** A body must arrive within `bodyGraceMs` plus its length at `minBodyBytesPerSecond`. */
  bodyGraceMs: number;
  minBodyBytesPerSecond: number;
  /** The whole request, headers and body, whatever its route: the outer bound. */
  requestMs: number;
  /** A connection on which nothing moves either way. */
  idleMs: number;
  /** An idle keep-alive connection between two requests. */
  keepAliveMs: number;
  /** Requests on one keep-alive connection before the service asks the client to open a new one. */
  maxRequestsPerSocket: number;
  /** How often Node checks the header and request timeouts (it checks on an interval, not per request). */
  checkIntervalMs: number;
  /** A WebSocket that authenticates by its first message (Media Streams' `start`) must send it within this. */
  socketAuthMs: number;
}

export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = {
  // Headers are a few hundred bytes, one packet: 10 s is many round trips on the worst mobile link.
  headersMs: 10_000,
  // 32 KiB/s (256 kbit/s, a poor 3G uplink) with 10 s of grace: a JSON body of a few KiB has ~10 s, the 1 MiB limit
  // 42 s, and an 8 MiB contact import 266 s.
  bodyGraceMs: 10_000,
  minBodyBytesPerSecond: 32 * 1024,
  // Above the slowest legitimate body (the 8 MiB import, 266 s) so that only the per-body bound applies to bodies.
  requestMs: 300_000,
  // No handler is silent this long: the slowest, a call export, streams its rows as it reads them.
  idleMs: 60_000,
  // Above the 60 s idle timeout of common load balancers (AWS ALB), so the balancer, not the service, closes an idle
  // connection: the other order races a request sent on a connection the service is closing (a 502 at the balancer).
  // HTTP_KEEP_ALIVE_TIMEOUT_S raises it for balancers that keep connections longer (Google Cloud: 600 s).
  keepAliveMs: 72_000,
  // Spreads long-lived clients over processes added later; 1,000 requests make the reconnect cost negligible.
  maxRequestsPerSocket: 1_000,
  // Bounds how late the header and request timeouts fire; a pass over the connection list every second is cheap.
  checkIntervalMs: 1_000,
  // Twilio sends `connected` and `start` within milliseconds of the handshake; 10 s covers a slow carrier link.
  socketAuthMs: 10_000,
};

/** The Fastify construction options for these bounds. */
export function serverTimeoutOptions(t: HttpTimeouts): Pick<
  FastifyServerOptions,
  'connectionTimeout' | 'requestTimeout' | 'keepAliveTimeout' | 'maxRequestsPerSocket'
> & {
  http: { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number };
} {
  return {
    connectionTimeout: t.idleMs,
    requestTimeout: t.requestMs,
    keepAliveTimeout: t.keepAliveMs,
    maxRequestsPerSocket: t.maxRequestsPerSocket,
    http: { headersTimeout: t.headersMs, requestTimeout: t.requestMs, connectionsCheckingInterval: t.checkIntervalMs },
  };
}

/** How long a body of `bytes` may take to arrive. */
export function bodyDeadlineMs(bytes: number, t: HttpTimeouts): number {
  return t.bodyGraceMs + Math.ceil((bytes * 1000) / t.minBodyBytesPerSecond);
}

/** True while the request still has body bytes on the wire that nobody has read. */
function bodyUnread(raw: { complete: boolean; headers: Record<string, unknown> }): boolean {
  const length = raw.headers['content-length'];
  const hasBody = raw.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  return hasBody && !raw.complete;
}

/**
 * Two rules for request bodies:
 * - a body is read at no less than the minimum rate, or the request is answered 408 and the connection closed;
 * - a response sent before the body was read (a 401 from the auth hook, a 415, a 404) closes the connection: Node
 *   would otherwise keep reading, and discarding, whatever the client trickles, for as long as it trickles.
 */
export function registerBodyTimeouts(app: FastifyInstance, t: HttpTimeouts): void {
  // Callback hooks, not async ones: every request runs the three, and an async hook costs a promise and a microtask
  // each time.
  // An unmatched request is answered at once: no route reads its body, and reading it would only let a client hold
  // the connection for as long as it trickles.
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.is404 && bodyUnread(request.raw)) done(new HttpError('not_found', 'Not found'));
    else done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (bodyUnread(request.raw)) reply.header('connection', 'close');
    done(null, payload);
  });

  app.addHook('preParsing', (request, reply, payload, done) => {
    if (!bodyUnread(request.raw)) done(null, payload);
    else done(null, deadlinedBody(request, reply, payload, t));
  });
}

/** The request's body stream, failing with a 408 when it is not received by its deadline. */
function deadlinedBody(request: FastifyRequest, reply: FastifyReply, payload: RequestPayload, t: HttpTimeouts): RequestPayload {
  const declared = Number(request.headers['content-length']);
  const limit = request.routeOptions.bodyLimit ?? BODY_LIMIT_BYTES;
  const bytes = Number.isInteger(declared) && declared >= 0 ? Math.min(declared, limit) : limit;
  const deadlineMs = bodyDeadlineMs(bytes, t);
  const late = () => new HttpError('request_timeout', `Request body not received within ${Math.round(deadlineMs / 1000)} s`);

  if (/^multipart\/form-data/i.test(request.headers['content-type'] ?? '')) {
    // The multipart parser reads the request itself (@fastify/multipart pipes request.raw into busboy), not the
    // stream returned here. A second reader piped from the request, never read, paused it whenever its own buffer
    // was full, and busboy got the body in fits: a 0.94 MB upload took 39 s. So the deadline is kept on the request:
    // its error reaches the parser, which fails the upload with it (a 408 the error handler answers).
    const timer = setTimeout(() => {
      if (request.raw.listenerCount('error') > 0) request.raw.emit('error', late());
      else request.raw.destroy();
    }, deadlineMs);
    const stop = () => clearTimeout(timer);
    request.raw.once('end', stop);
    request.raw.once('close', stop);
    reply.raw.once('close', stop);
    return payload;
  }

  // The body parser reads this stream; on the deadline it fails with a 408 the error handler answers.
  const body = new PassThrough();
  body.on('error', () => {}); // the parser reports it; this keeps an unread stream's error from being uncaught
  payload.pipe(body);
  payload.once('error', (err) => body.destroy(err));
  const timer = setTimeout(() => {
    payload.unpipe(body);
    body.destroy(late());
  }, deadlineMs);
  const stop = () => clearTimeout(timer);
  body.once('end', stop);
  body.once('close', stop);
  reply.raw.once('close', stop);
  return body;
}
