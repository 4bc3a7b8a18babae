import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterPrisma, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { PrismaClient } from '../../prisma/client.js';
import { isInnerRequest } from './inner-requests.js';
import { HttpError } from './errors.js';

// Per-organisation and per-key limits on key-authenticated /api requests, counted where every API process counts: in
// Postgres (the `rate_limits` table the sign-in limit uses, through rate-limiter-flexible's Prisma store), so ten
// processes behind a load balancer admit the limit, not ten times it. Once a process has seen a key or an organisation
// spend its window, it refuses the rest of that window from memory, so a flood costs no database round trip; if the
// database cannot answer, each process counts in its own memory until it can (the store's insurance), and requests go
// on being answered. Where the operator runs Redis (REDIS_URL), the counts live there instead: one round trip of a
// Lua script per request rather than an upsert, and no rows to sweep. The in-flight cap stays per process: it protects that process's event loop and pool
// (docs/api.md, "Rate limits").

export interface RateLimitOptions {
  /** Requests per second for all keys of one organisation together; 0: no limit. */
  orgPerSecond: number;
  /** Requests per second for one API key; 0: no limit. */
  keyPerSecond: number;
  /** Requests of one organisation being answered at the same moment; 0: no cap. */
  orgInFlight: number;
  /**
   * Where the per-second counts are kept: `postgres` (default), shared by every process on the database; `redis`, shared
   * by every process on `redisUrl`; or `memory`, this process's own (RATE_LIMIT_STORE).
   */
  store?: 'postgres' | 'redis' | 'memory';
  /** The Redis server of the `redis` store (REDIS_URL). */
  redisUrl?: string | undefined;
  /**
   * How long a request waits for Redis before its process counts it in memory instead: REDIS_TIMEOUT_MS unless told.
   * A test that proves the counts shared, whatever the machine's load, makes it long.
   */
  redisTimeoutMs?: number;
  /**
   * The window the two limits count in, in seconds: 1 (they are per second) unless told. A test that must send a whole
   * burst within one window, whatever the machine's speed, makes it long.
   */
  windowS?: number;
}

/** The window both limits are counted in. A fixed window lets a client send up to twice a limit across a boundary. */
const WINDOW_S = 1;
/** A refusal's retry pacing below is in these units, whatever the window. */
const SECOND_MS = 1000;
/**
 * A refused request is answered when its window reopens, not at once (as nginx's limit_req delays what exceeds a rate).
 * A client that retries the moment its 429 arrives would otherwise turn refusals into a flood of their own: 100
 * connections retrying at once made 4,000 refusals a second, the process's whole core, and another organisation's p99
 * went from 26 ms to 766 ms. Held, each connection costs one refusal per window. A held refusal is a timer and the
 * request's objects: bounded by the connections a client holds open.
 */
const MAX_REFUSAL_HOLD_MS = SECOND_MS;
/**
 * Refusals held to the same reopening would all come back at its first millisecond, with the requests the window lets
 * in, and queue everyone else's behind them: each is held a random part of a further window, so retries spread out.
 */
const REFUSAL_JITTER_MS = SECOND_MS;
/** An organisation's own answers free an in-flight slot within tens of milliseconds: a refusal waits that long. */
const IN_FLIGHT_REFUSAL_HOLD_MS = 100;

interface Limit {
  limiter: RateLimiterAbstract;
  points: number;
  /** What the 429 message names: "this API key", "this organisation". */
  subject: string;
}

/** Where a limit's counts are shared between processes: a database, a Redis server, or nowhere (memory). */
type SharedStore = { kind: 'postgres'; prisma: PrismaClient } | { kind: 'redis'; client: Redis } | undefined;

/** How long a request waits for Redis before this process counts it in memory instead. */
const REDIS_TIMEOUT_MS = 200;

/** A limit counted in the shared store, or in memory without one; `name` keeps its counts apart from others'. */
function limitOf(points: number, subject: string, name: string, windowS: number, store: SharedStore): Limit | undefined {
  if (points <= 0) return undefined;
  const memory = new RateLimiterMemory({ points, duration: windowS, keyPrefix: name });
  if (!store) return { limiter: memory, points, subject };
  const common = {
    keyPrefix: name,
    points,
    duration: windowS,
    // Spent here: refused from memory for the rest of the window (any process would refuse it too).
    inMemoryBlockOnConsumed: points,
    inMemoryBlockDuration: windowS,
    // The store down or slow to answer: counted in this process until it is back, never a 500.
    insuranceLimiter: memory,
  };
  const limiter =
    store.kind === 'redis'
      ? // Not connected: counted in memory at once rather than queued behind a reconnection.
        new RateLimiterRedis({ ...common, storeClient: store.client, rejectIfRedisNotReady: true })
      : new RateLimiterPrisma({
          ...common,
          storeClient: store.prisma,
          tableName: 'rateLimit',
          // Expired rows are swept by the API's job (api/jobs.ts), which stops with the app, not by the store's own timer.
          clearExpiredByTimeout: false,
        });
  return { limiter, points, subject };
}

/**
 * The Redis client of the `redis` store: commands fail at once while it is disconnected (no offline queue, the limits
 * fall back to memory) and within `timeoutMs` when the server is slow; it reconnects on its own and is closed with
 * the app.
 */
function redisClient(api: FastifyInstance, url: string, timeoutMs: number): Redis {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(attempt * 200, 5_000),
  });
  // Connection errors are expected while Redis restarts; the limits count in memory meanwhile (logged once per outage).
  let down = false;
  client.on('error', (error: Error) => {
    if (down) return;
    down = true;
    api.log.warn({ err: { message: error.message } }, 'rate limits counted in memory: Redis does not answer');
  });
  client.on('ready', () => {
    if (down) api.log.info('rate limits counted in Redis again');
    down = false;
  });
  api.addHook('onClose', async () => {
    client.disconnect();
  });
  return client;
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
export function registerRateLimit(api: FastifyInstance, options: RateLimitOptions, prisma?: PrismaClient): void {
  const windowS = options.windowS ?? WINDOW_S;
  const needed = options.keyPerSecond > 0 || options.orgPerSecond > 0;
  let shared: SharedStore;
  if (needed && options.store === 'redis') {
    if (!options.redisUrl) throw new Error('the redis rate limit store needs REDIS_URL');
    shared = { kind: 'redis', client: redisClient(api, options.redisUrl, options.redisTimeoutMs ?? REDIS_TIMEOUT_MS) };
  } else if (options.store !== 'memory' && prisma) {
    shared = { kind: 'postgres', prisma };
  }
  const per = windowS === 1 ? 'per second' : `per ${windowS} seconds`;
  const key = limitOf(options.keyPerSecond, 'this API key', 'api_key', windowS, shared);
  const org = limitOf(options.orgPerSecond, 'this organisation', 'api_org', windowS, shared);
  const inFlightCap = options.orgInFlight > 0 ? options.orgInFlight : 0;
  if (!key && !org && !inFlightCap) return;
  const policy = [org, key]
    .filter((l): l is Limit => l !== undefined)
    .map((l) => `${l.points};w=${windowS}`)
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
      const message = `Too many requests for ${limit.subject}: at most ${limit.points} ${per}`;
      await delay(Math.min(rejection.msBeforeNext, MAX_REFUSAL_HOLD_MS) + Math.random() * REFUSAL_JITTER_MS);
      return refusal(message, resetSeconds(rejection), rateLimitHeaders(limit, rejection, policy));
    }
  }

  api.addHook('preParsing', async (request: FastifyRequest, reply: FastifyReply) => {
    const identity = request.identity;
    if (!identity) return;
    const organizationId = identity.organizationId;
    // One after the other: a request the key's limit refuses must not spend the organisation's budget even for a
    // moment (counted at once, a flood on one key would take the organisation's other keys' share with it). A request
    // the API made to itself to answer one (an MCP tool call's operation) is not counted again: its MCP message was.
    const counted = !isInnerRequest(request);
    let tightest: { limit: Limit; res: RateLimiterRes } | undefined;
    if (key && counted) {
      const res = await consume(key, identity.apiKeyId);
      if (res instanceof HttpError) throw res;
      tightest = { limit: key, res };
    }
    if (org && counted) {
      const res = await consume(org, organizationId);
      if (res instanceof HttpError) {
        // A request the organisation's limit refused does not also spend the key's.
        if (key) await key.limiter.reward(identity.apiKeyId);
        throw res;
      }
      if (!tightest || res.remainingPoints < tightest.res.remainingPoints) tightest = { limit: org, res };
    }
    const headers = tightest ? rateLimitHeaders(tightest.limit, tightest.res, policy) : undefined;
    // A request answered by requests of its own (MCP's tool calls) holds no slot: they each take one.
    if (inFlightCap && !request.routeOptions.config?.answeredByInnerRequests) {
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

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers by requests to the API itself (api/mcp/), which the in-flight cap counts instead of it. */
    answeredByInnerRequests?: boolean;
  }
}
