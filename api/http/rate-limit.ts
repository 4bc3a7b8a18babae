import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { setTimeout as delay } from 'node:timers/promises';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { HttpError } from './errors.js';

// Per-organisation and per-key limits on key-authenticated /api requests, counted in this process's memory: what a
// limit protects is this process's event loop and its database pool, so a 429 costs no database round trip. Several
// API processes side by side each count on their own (docs/api.md, "Rate limits").

export interface RateLimitOptions {
  /** Requests per second for all keys of one organisation together; 0: no limit. */
  orgPerSecond: number;
  /** Requests per second for one API key; 0: no limit. */
  keyPerSecond: number;
  /** Requests of one organisation being answered at the same moment; 0: no cap. */
  orgInFlight: number;
}

/** The window both limits are counted in. A fixed window lets a client send up to twice a limit across a boundary. */
const WINDOW_S = 1;
/**
 * A refused request is answered when its window reopens, not at once (as nginx's limit_req delays what exceeds a rate).
 * A client that retries the moment its 429 arrives would otherwise turn refusals into a flood of their own: 100
 * connections retrying at once made 4,000 refusals a second, the process's whole core, and another organisation's p99
 * went from 26 ms to 766 ms. Held, each connection costs one refusal per window. A held refusal is a timer and the
 * request's objects: bounded by the connections a client holds open.
 */
const MAX_REFUSAL_HOLD_MS = WINDOW_S * 1000;
/**
 * Refusals held to the same reopening would all come back at its first millisecond, with the requests the window lets
 * in, and queue everyone else's behind them: each is held a random part of a further window, so retries spread out.
 */
const REFUSAL_JITTER_MS = WINDOW_S * 1000;
/** An organisation's own answers free an in-flight slot within tens of milliseconds: a refusal waits that long. */
const IN_FLIGHT_REFUSAL_HOLD_MS = 100;

interface Limit {
  limiter: RateLimiterMemory;
  points: number;
  /** What the 429 message names: "this API key", "this organisation". */
  subject: string;
}

function limitOf(points: number, subject: string): Limit | undefined {
  if (points <= 0) return undefined;
  return { limiter: new RateLimiterMemory({ points, duration: WINDOW_S }), points, subject };
}

function resetSeconds(res: RateLimiterRes): number {
  return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
}

/** draft-ietf-httpapi-ratelimit-headers: the quota closest to running out, and both policies. */
function rateLimitHeaders(limit: Limit, res: RateLimiterRes, policy: string): Record<string, string> {
  return {
    'RateLimit-Limit': String(limit.points),
    'RateLimit-Remaining': String(res.remainingPoints),
    'RateLimit-Reset': String(resetSeconds(res)),
    'RateLimit-Policy': policy,
  };
}

function rateLimited(message: string, retryAfterS: number, headers: Record<string, string> = {}): HttpError {
  return new HttpError('rate_limited', message, undefined, { ...headers, 'Retry-After': String(retryAfterS) });
}

/**
 * Adds the limits to every route of `api` whose request carries a key identity (set by the auth hook). A preParsing
 * hook runs after every onRequest hook, the route's own included, and before a body is read: a refused contact
 * import never parses its 8 MiB.
 */
export function registerRateLimit(api: FastifyInstance, options: RateLimitOptions): void {
  const key = limitOf(options.keyPerSecond, 'this API key');
  const org = limitOf(options.orgPerSecond, 'this organisation');
  const inFlightCap = options.orgInFlight > 0 ? options.orgInFlight : 0;
  if (!key && !org && !inFlightCap) return;
  const policy = [org, key]
    .filter((l): l is Limit => l !== undefined)
    .map((l) => `${l.points};w=${WINDOW_S}`)
    .join(', ');
  const inFlight = new Map<number, number>();

  function release(organizationId: number): void {
    const n = (inFlight.get(organizationId) ?? 1) - 1;
    if (n <= 0) inFlight.delete(organizationId);
    else inFlight.set(organizationId, n);
  }

  // A flood is answered thousands of times a second, and building an Error (its stack trace) was the largest cost of a
  // refusal of our own making: the few distinct refusals are built once and thrown again. A refusal's headers follow
  // from its limit and its Retry-After (nothing remains of a spent limit), so those two name it.
  const refusals = new Map<string, HttpError>();
  function refusal(message: string, retryAfterS: number, headers?: Record<string, string>): HttpError {
    const cacheKey = `${retryAfterS} ${message}`;
    let error = refusals.get(cacheKey);
    if (!error) {
      error = rateLimited(message, retryAfterS, headers);
      refusals.set(cacheKey, error);
    }
    return error;
  }

  async function consume(limit: Limit, id: number): Promise<RateLimiterRes | HttpError> {
    try {
      return await limit.limiter.consume(id);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const message = `Too many requests for ${limit.subject}: at most ${limit.points} per second`;
      await delay(Math.min(rejection.msBeforeNext, MAX_REFUSAL_HOLD_MS) + Math.random() * REFUSAL_JITTER_MS);
      return refusal(message, resetSeconds(rejection), rateLimitHeaders(limit, rejection, policy));
    }
  }

  api.addHook('preParsing', async (request: FastifyRequest, reply: FastifyReply) => {
    const identity = request.identity;
    if (!identity) return;
    const organizationId = identity.organizationId;
    let tightest: { limit: Limit; res: RateLimiterRes } | undefined;
    if (key) {
      const res = await consume(key, identity.apiKeyId);
      if (res instanceof HttpError) throw res;
      tightest = { limit: key, res };
    }
    if (org) {
      const res = await consume(org, organizationId);
      if (res instanceof HttpError) {
        // A request the organisation's limit refused does not also spend the key's.
        if (key) await key.limiter.reward(identity.apiKeyId);
        throw res;
      }
      if (!tightest || res.remainingPoints < tightest.res.remainingPoints) tightest = { limit: org, res };
    }
    const headers = tightest ? rateLimitHeaders(tightest.limit, tightest.res, policy) : undefined;
    if (inFlightCap) {
      const running = inFlight.get(organizationId) ?? 0;
      if (running >= inFlightCap) {
        // The organisation's own answers free slots within milliseconds; a second is Retry-After's smallest unit.
        if (headers) reply.headers(headers);
        await delay(IN_FLIGHT_REFUSAL_HOLD_MS);
        throw refusal(`Too many requests in progress for this organisation: at most ${inFlightCap} at a time`, 1);
      }
      inFlight.set(organizationId, running + 1);
      // 'close' follows every response, and also a client that went away before its answer: released exactly once.
      reply.raw.once('close', () => release(organizationId));
    }
    if (headers) reply.headers(headers);
  });
}
