import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';
import type { Transform } from 'node:stream';
import { describeError } from '../../../lib/net/http-sender.js';
import { guardedLookup, isRefusedLiteral } from '../../../lib/net/target-guard.js';
import { UrlSourceError } from './errors.js';
import { CRAWLER_USER_AGENT, describeBytes, MAX_REDIRECTS } from './options.js';

// One resource fetched on an organisation's behalf, following its redirects. A URL source is chosen by API users, as a
// webhook's URL is, so every address connected to passes the same target guard (lib/net): IP literals are checked
// here, names in the guarded lookup on the address actually connected to; and every redirect hop is checked again
// before it is followed, since a public page may redirect to the metadata service or to localhost.

export interface FetchedResource {
  /** Where the answer came from, after redirects. */
  url: string;
  status: number;
  contentType: string | null;
  /** The body of a 2xx answer, decompressed; empty for any other status (it is not read). */
  body: Buffer;
  /** The body was cut at maxBytes (only with `truncate`). */
  truncated: boolean;
}

export interface ResourceRequest {
  url: string;
  accept: string;
  allowPrivateTargets: boolean;
  /** For the whole exchange, every redirect included. */
  timeoutMs: number;
  /** Bytes of the body, after decompression: more is a `too_large` error, or cut off with `truncate`. */
  maxBytes: number;
  truncate?: boolean;
  /** Keep-alive connections for one crawl, so its pages reuse them. */
  agents: { http: http.Agent; https: https.Agent };
  /** Aborted by the caller, or at the crawl's deadline; its reason is thrown. */
  signal: AbortSignal;
  /** Runs before each request, the first and every redirect's, and throws to refuse it (robots.txt, another site). */
  beforeRequest?: (url: URL) => Promise<void> | void;
  /** Runs on a 2xx answer's Content-Type before its body is read, and throws to refuse it (a video, an archive). */
  checkType?: (url: string, contentType: string | null) => void;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export function tooLarge(url: string, maxBytes: number): UrlSourceError {
  return new UrlSourceError('too_large', `${url} is larger than ${describeBytes(maxBytes)}, the most one page or file may be.`);
}

/** The error for an answer that is neither a success nor a redirect. */
export function statusError(url: string, status: number): UrlSourceError {
  const reason = http.STATUS_CODES[status];
  return new UrlSourceError('http_status', `${url} answered ${status}${reason ? ` ${reason}` : ''}.`, {
    status,
    // A server error, a timeout on its side, or a rate limit passes; a 404 or a 403 will say the same next time.
    retryable: status >= 500 || status === 408 || status === 429,
  });
}

function refused(url: string, why: string): UrlSourceError {
  return new UrlSourceError('refused_target', `${url} ${why}, which documents are never fetched from.`);
}

function refusedAddress(url: string): UrlSourceError {
  return refused(url, 'is on a private or local network address');
}

function decoderFor(encoding: string | undefined): Transform | null | 'unknown' {
  const value = (encoding ?? '').trim().toLowerCase();
  if (value === '' || value === 'identity') return null;
  // createUnzip reads gzip and zlib-wrapped deflate alike, telling them apart by their header.
  if (value === 'gzip' || value === 'x-gzip' || value === 'deflate') return zlib.createUnzip();
  if (value === 'br') return zlib.createBrotliDecompress();
  return 'unknown';
}

interface Hop {
  status: number;
  location: string | null;
  contentType: string | null;
  body: Buffer;
  truncated: boolean;
}

function requestOnce(target: URL, request: ResourceRequest, deadline: AbortSignal): Promise<Hop> {
  const url = target.href;
  return new Promise<Hop>((resolve, reject) => {
    let settled = false;
    const settle = (error: unknown, hop?: Hop) => {
      if (settled) return;
      settled = true;
      deadline.removeEventListener('abort', onAbort);
      outgoing.destroy();
      if (error) reject(error);
      else resolve(hop!);
    };
    const onAbort = () => settle(deadline.reason);
    const secure = target.protocol === 'https:';
    const outgoing = (secure ? https : http).request(target, {
      method: 'GET',
      agent: secure ? request.agents.https : request.agents.http,
      lookup: guardedLookup(request.allowPrivateTargets),
      headers: {
        'user-agent': CRAWLER_USER_AGENT,
        accept: request.accept,
        'accept-encoding': 'gzip, deflate, br',
      },
    });
    deadline.addEventListener('abort', onAbort, { once: true });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ETARGETREFUSED') settle(refusedAddress(url));
      else settle(new UrlSourceError('network', `${url} could not be reached: ${describeError(error)}.`));
    });
    outgoing.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const header = (name: string) => {
        const value = response.headers[name];
        return (Array.isArray(value) ? value[0] : value) ?? null;
      };
      const answer = { status, location: header('location'), contentType: header('content-type') };
      if (status < 200 || status >= 300) {
        // Neither a redirect's body nor an error page is wanted: the connection is dropped rather than read to its end.
        settle(null, { ...answer, body: Buffer.alloc(0), truncated: false });
        response.destroy();
        return;
      }
      try {
        request.checkType?.(url, answer.contentType);
      } catch (error) {
        settle(error);
        response.destroy();
        return;
      }
      const decoder = decoderFor(header('content-encoding') ?? undefined);
      // Settled before the response is destroyed: destroying it reports the connection as closed early.
      if (decoder === 'unknown') {
        settle(new UrlSourceError('unsupported_type', `${url} was sent in an encoding that cannot be read (${header('content-encoding')}).`));
        response.destroy();
        return;
      }
      const declared = Number(header('content-length'));
      if (decoder === null && !request.truncate && Number.isFinite(declared) && declared > request.maxBytes) {
        settle(tooLarge(url, request.maxBytes));
        response.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      let kept = 0;
      const body = decoder ? response.pipe(decoder) : response;
      body.on('data', (chunk: Buffer) => {
        if (settled) return;
        const room = request.maxBytes - kept;
        if (chunk.length > room) {
          if (request.truncate) {
            chunks.push(chunk.subarray(0, room));
            settle(null, { ...answer, body: Buffer.concat(chunks), truncated: true });
          } else {
            settle(tooLarge(url, request.maxBytes));
          }
          response.destroy();
          decoder?.destroy();
          return;
        }
        chunks.push(chunk);
        kept += chunk.length;
      });
      body.on('end', () => settle(null, { ...answer, body: Buffer.concat(chunks), truncated: false }));
      body.on('error', (error: NodeJS.ErrnoException) => {
        const what = decoder && error.code?.startsWith('Z_') ? 'its compressed body is damaged' : describeError(error);
        settle(new UrlSourceError('network', `${url} could not be read: ${what}.`));
      });
      response.on('error', (error) => settle(new UrlSourceError('network', `${url} could not be read: ${describeError(error)}.`)));
      response.on('aborted', () => settle(new UrlSourceError('network', `${url} could not be read: the connection was closed early.`)));
    });
    outgoing.end();
  });
}

/**
 * GETs a resource, following at most MAX_REDIRECTS (5) redirects, each checked against the target guard (and the
 * caller's `beforeRequest`) before it is requested. Resolves with a 2xx answer's body, or with any other status and no
 * body; throws a `UrlSourceError` (or the signal's reason) otherwise.
 */
export async function fetchResource(request: ResourceRequest): Promise<FetchedResource> {
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const deadline = AbortSignal.any([request.signal, timeout]);
  let target = new URL(request.url);
  try {
    for (let redirects = 0; ; redirects++) {
      if (target.protocol !== 'http:' && target.protocol !== 'https:') {
        throw refused(target.href, 'is not an http or https address');
      }
      if (isRefusedLiteral(target, request.allowPrivateTargets)) throw refusedAddress(target.href);
      await request.beforeRequest?.(target);
      deadline.throwIfAborted();
      const hop = await requestOnce(target, request, deadline);
      if (!REDIRECTS.has(hop.status) || hop.location === null) {
        return { url: target.href, status: hop.status, contentType: hop.contentType, body: hop.body, truncated: hop.truncated };
      }
      if (redirects === MAX_REDIRECTS) {
        throw new UrlSourceError('http_status', `${request.url} redirected more than ${MAX_REDIRECTS} times.`, { status: hop.status });
      }
      let next: URL;
      try {
        next = new URL(hop.location, target);
      } catch {
        throw new UrlSourceError('http_status', `${target.href} redirected to an address that is not a URL.`, { status: hop.status });
      }
      next.hash = '';
      target = next;
    }
  } catch (error) {
    // The caller's reason (its cancellation, or the crawl's deadline) wins over this request's own timeout.
    if (request.signal.aborted) throw request.signal.reason;
    if (timeout.aborted) {
      throw new UrlSourceError('timeout', `${target.href} did not answer within ${request.timeoutMs / 1000} seconds.`);
    }
    throw error;
  }
}
