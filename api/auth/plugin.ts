import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { PrismaClient } from '../../prisma/client.js';
import { HttpError } from '../http/errors.js';
import { findActiveKey, hashApiKey, touchApiKeys, type KeyIdentity } from '../services/api-keys.js';
import { KeyCache } from './key-cache.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The organisation and user the API key acts for; set on every authenticated /api request. */
    identity: KeyIdentity;
  }
}

export interface AuthOptions {
  /** How long a key lookup is trusted; also the longest a revoked key keeps working. */
  keyCacheTtlMs: number;
  /** How often `last_used_at` is written, batched for all keys used since the last write. */
  usageFlushIntervalMs: number;
}

/** Paths under /api that need no key: the machine-readable description and its docs page. */
function isPublic(url: string): boolean {
  return url === '/api/openapi.json' || url === '/api/docs' || url.startsWith('/api/docs/') || url.startsWith('/api/docs?');
}

function unauthorized(message: string, error: 'invalid_request' | 'invalid_token' | null): HttpError {
  const challenge = error ? `Bearer realm="api", error="${error}"` : 'Bearer realm="api"';
  return new HttpError(401, 'unauthorized', message, undefined, { 'WWW-Authenticate': challenge });
}

/** The token of an `Authorization: Bearer <token>` header; throws the 401 for a missing or malformed header. */
function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (header === undefined || header === '') throw unauthorized('Missing API key: send Authorization: Bearer <API_KEY>', null);
  const match = /^Bearer +(\S+)$/i.exec(header);
  if (!match?.[1]) throw unauthorized('Malformed Authorization header: expected "Bearer <API_KEY>"', 'invalid_request');
  return match[1];
}

export function registerAuth(app: FastifyInstance, prisma: PrismaClient, options: AuthOptions): { cache: KeyCache; flushUsage: () => Promise<void> } {
  const cache = new KeyCache(options.keyCacheTtlMs);
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

  app.decorateRequest('identity', null as unknown as KeyIdentity);
  app.addHook('onRequest', async (request) => {
    const url = request.url;
    if (!url.startsWith('/api/') && url !== '/api') return;
    if (isPublic(url)) return;
    const token = bearerToken(request);
    const keyHash = hashApiKey(token);
    let identity = cache.get(keyHash);
    if (identity === undefined) {
      identity = await findActiveKey(prisma, keyHash);
      cache.set(keyHash, identity);
    }
    if (!identity) throw unauthorized('Invalid or revoked API key', 'invalid_token');
    request.identity = identity;
    usedKeyIds.add(identity.apiKeyId);
  });

  return { cache, flushUsage };
}
