import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { PrismaClient } from '../../prisma/client.js';
import { HttpError } from '../http/errors.js';
import { findActiveKey, findSession, hashApiKey, type KeyIdentity, type SessionIdentity, touchApiKeys } from '../../modules/organizations/index.js';
import { KeyCache } from './key-cache.js';
import { AppError } from '../../lib/errors.js';
import { isSecureContext, readCookie } from './cookies.js';
import { isStateChanging, verifyCsrf } from './csrf.js';

/**
 * How a route authenticates its caller, declared on the route (`config: { auth }`) or for a whole plugin scope
 * (`declareAuth`), and checked on the route the router MATCHED, never on the spelling of the URL:
 * - `api_key`: `Authorization: Bearer <API_KEY>`, checked before anything else runs; sets `request.identity`.
 * - `public`: anyone (the OpenAPI document and docs page, health checks, the browser call page).
 * - `signature`: the handler verifies a signature the request carries (a carrier's signed webhook).
 * - `session`: a person signed in to the dashboard (the session cookie); sets `request.signedIn`. An API key is refused
 *   with 403 (the spec's session-only functions), and a state-changing request needs its anti-forgery token.
 * - `visitor`: anyone, with `request.signedIn` set when signed in; a form posted needs the visitor's anti-forgery token
 *   (sign-in, first-run setup, password reset, accepting an invitation).
 */
export type AuthMode = 'api_key' | 'public' | 'signature' | 'session' | 'visitor';

/** A signed-in person, and the session token their anti-forgery tokens derive from. */
export interface SignedIn extends SessionIdentity {
  token: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The organisation and user the API key acts for; set on every request to an `api_key` route. */
    identity: KeyIdentity;
    /** The person signed in to the dashboard; set on `session` routes, and on `visitor` routes when signed in. */
    signedIn: SignedIn | null;
    /** Whether dashboard cookies are `__Host-` and Secure for this request (api/auth/cookies.ts). */
    secureContext: boolean;
  }
  interface FastifyContextConfig {
    auth?: AuthMode;
    /** What a `session` route does, for the 403 an API key gets: "Managing API keys". */
    sessionOnly?: string;
  }
}

export interface AuthOptions {
  /** How long a key lookup is trusted; also the longest a revoked key keeps working. */
  keyCacheTtlMs: number;
  /** How often `last_used_at` is written, batched for all keys used since the last write. */
  usageFlushIntervalMs: number;
  /** PUBLIC_URL: where it is https, dashboard cookies are Secure whatever the request says. */
  publicUrl?: string | undefined;
}

// A plugin scope's default mode lives on the scope's instance object. Fastify creates a child scope's instance with
// the parent as its prototype, so the default reaches the scope and everything registered below it, and nothing above.
const SCOPE_AUTH = Symbol('scopeAuth');
type Scoped = FastifyInstance & { [SCOPE_AUTH]?: AuthMode };

/** Every route registered in `scope` (and in plugins below it) authenticates with `mode` unless it declares its own. */
export function declareAuth(scope: FastifyInstance, mode: AuthMode): void {
  (scope as Scoped)[SCOPE_AUTH] = mode;
}

function unauthorized(message: string, error: 'invalid_request' | 'invalid_token' | null): HttpError {
  const challenge = error ? `Bearer realm="api", error="${error}"` : 'Bearer realm="api"';
  return new HttpError('unauthorized', message, undefined, { 'WWW-Authenticate': challenge });
}

/** How many `Authorization` headers arrived; Node keeps only the first in `request.headers`. */
function authorizationHeaderCount(request: FastifyRequest): number {
  const raw = request.raw.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'authorization') count++;
  return count;
}

/** The token of an `Authorization: Bearer <token>` header; throws the 401 for a missing or malformed header. */
function bearerToken(request: FastifyRequest): string {
  if (authorizationHeaderCount(request) > 1) {
    // A proxy and a client disagreeing about who is calling: refuse rather than pick one (RFC 6750 section 3.1).
    throw new HttpError('bad_request', 'Send exactly one Authorization header', undefined, {
      'WWW-Authenticate': 'Bearer realm="api", error="invalid_request"',
    });
  }
  const header = request.headers.authorization;
  if (header === undefined || header === '') throw unauthorized('Missing API key: send Authorization: Bearer <API_KEY>', null);
  const match = /^Bearer +(\S+)$/i.exec(header);
  if (!match?.[1]) throw unauthorized('Malformed Authorization header: expected "Bearer <API_KEY>"', 'invalid_request');
  return match[1];
}

/** A route as registered, with the auth mode it declared: for checks that every route of a kind is protected. */
export interface DeclaredRoute {
  method: string;
  url: string;
  auth: AuthMode;
}

export function registerAuth(
  app: FastifyInstance,
  prisma: PrismaClient,
  options: AuthOptions,
): { cache: KeyCache; flushUsage: () => Promise<void>; routes: DeclaredRoute[] } {
  const cache = new KeyCache(options.keyCacheTtlMs);
  const routes: DeclaredRoute[] = [];
  const usedKeyIds = new Set<number>();

  async function flushUsage(): Promise<void> {
    if (usedKeyIds.size === 0) return;
    const ids = [...usedKeyIds];
    usedKeyIds.clear();
    await touchApiKeys(prisma, ids, new Date()).catch((err: unknown) => app.log.warn({ err }, 'api key usage not recorded'));
  }
  const timer = setInterval(() => void flushUsage(), options.usageFlushIntervalMs);
  timer.unref();
  app.addHook('onClose', async () => {
    clearInterval(timer);
    await flushUsage();
  });

  // Every route states how it authenticates, or the service refuses to start: a new route cannot be forgotten.
  app.addHook('onRoute', function (this: FastifyInstance, route: RouteOptions) {
    const mode = route.config?.auth ?? (this as Scoped)[SCOPE_AUTH];
    if (mode === undefined) {
      throw new Error(`route ${String(route.method)} ${route.url} declares no auth mode: set config.auth or declareAuth() on its plugin scope`);
    }
    route.config = { ...route.config, auth: mode };
    for (const method of [route.method].flat()) routes.push({ method, url: route.url, auth: mode });
  });

  app.decorateRequest('identity', null as unknown as KeyIdentity);
  app.decorateRequest('signedIn', null);
  app.decorateRequest('secureContext', false);
  async function sessionIdentity(request: FastifyRequest, mode: 'session' | 'visitor'): Promise<void> {
    request.secureContext = isSecureContext(request, options.publicUrl);
    if (mode === 'session' && request.headers.authorization !== undefined) {
      const what = request.routeOptions.config.sessionOnly ?? 'This function';
      throw new AppError('session_only', `${what} is available only in a dashboard session, not with an API key`);
    }
    const token = readCookie(request, 'session', request.secureContext);
    const identity = token ? await findSession(prisma, token) : null;
    request.signedIn = identity && token ? { ...identity, token } : null;
    if (mode === 'session' && !request.signedIn) throw new AppError('unauthorized', 'Sign in to the dashboard first');
  }

  function admitKey(request: FastifyRequest, identity: KeyIdentity | null): void {
    if (!identity) throw unauthorized('Invalid or revoked API key', 'invalid_token');
    request.identity = identity;
    usedKeyIds.add(identity.apiKeyId);
  }

  // A callback hook: nearly every API request carries a key the cache knows, and that path is answered without a
  // promise; a session, or a key not cached, takes the asynchronous path.
  app.addHook('onRequest', (request, _reply, done) => {
    // An unmatched request answers 404 and reaches no handler; there is nothing to protect.
    if (request.is404) return done();
    const mode = request.routeOptions.config.auth;
    if (mode === 'public' || mode === 'signature') return done();
    if (mode === 'session' || mode === 'visitor') {
      sessionIdentity(request, mode).then(() => done(), done);
      return;
    }
    // `api_key`, and anything else (there is nothing else after the start-up check): the key is required.
    let keyHash: string;
    try {
      keyHash = hashApiKey(bearerToken(request));
      const cached = cache.get(keyHash);
      if (cached !== undefined) {
        admitKey(request, cached);
        return done();
      }
    } catch (err) {
      return done(err as Error);
    }
    findActiveKey(prisma, keyHash)
      .then((identity) => {
        cache.set(keyHash, identity);
        admitKey(request, identity);
        done();
      })
      .catch(done);
  });
  // After the body is parsed, where a form's `_csrf` field is: the anti-forgery check of dashboard requests.
  app.addHook('preValidation', (request, _reply, done) => {
    const mode = request.routeOptions.config.auth;
    if ((mode !== 'session' && mode !== 'visitor') || !isStateChanging(request)) return done();
    const secret = mode === 'session' ? request.signedIn?.token : readCookie(request, 'csrf', request.secureContext);
    try {
      verifyCsrf(request, secret);
    } catch (err) {
      return done(err as Error);
    }
    done();
  });

  return { cache, flushUsage, routes };
}
