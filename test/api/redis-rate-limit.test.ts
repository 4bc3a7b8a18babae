import { Redis } from 'ioredis';
import { describe, expect } from 'vitest';
import { buildApp } from '../../api/app.js';
import { createPrismaClient } from '../../prisma/client.js';
import { apiTest } from '../helpers/fixtures.js';
import { hasRedis, startRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';
import { LOOPBACK_VENDOR_HOSTS } from '../helpers/vendor-hosts.js';

// Two API processes counting their limits in one Redis server (REDIS_URL), as an operator who runs Redis beside them
// would: between them they admit the limit, not twice it; with Redis gone, each counts in its own memory and no request
// fails; once Redis is back, the counts are shared again. The window is a minute so that a burst falls in one window
// however slow the machine is.

// Redis is given 10 s to answer, not the 200 ms of production: on a busy machine a slow answer would otherwise be
// counted in each process's memory, and the test would measure the fallback instead of the sharing.
const LIMITS = { keyPerSecond: 6, orgPerSecond: 9, orgInFlight: 0, windowS: 60, redisTimeoutMs: 10_000 };

const it = apiTest
  .extend('redis', { scope: 'file' }, async ({}, { onCleanup }) => {
    const server = await startRedis();
    onCleanup(() => server.stop());
    return server;
  })
  .extend('apiOptions', { scope: 'file' }, async ({ redis }) => ({ rateLimit: { ...LIMITS, store: 'redis' as const, redisUrl: redis.url } }))
  .extend('secondProcess', { scope: 'file' }, async ({ api, redis }, { onCleanup }) => {
    const prisma = createPrismaClient(api.db.url, { maxConnections: 4 });
    const app = await buildApp({
      prisma,
      logLevel: 'silent',
      vendorTargets: LOOPBACK_VENDOR_HOSTS,
      rateLimit: { ...LIMITS, store: 'redis', redisUrl: redis.url },
    });
    await app.ready();
    onCleanup(async () => {
      await app.close();
      await prisma.$disconnect();
    });
    return app;
  })
  .extend('inspect', { scope: 'file' }, async ({ redis }, { onCleanup }) => {
    const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    // Refused while the test has the server stopped; the test reads through it only while it runs.
    client.on('error', () => {});
    onCleanup(() => client.disconnect());
    return client;
  });

describe.skipIf(!hasRedis)('rate limits counted in Redis', () => {
  it("admits exactly a key's limit between two processes, and refuses the rest with the limit's headers", async ({ api, tenant, secondProcess, inspect }) => {
    const send = (index: number) =>
      (index % 2 === 0 ? api.app : secondProcess)
        .inject({ method: 'GET', url: '/api/assistants', headers: { authorization: `Bearer ${tenant.key}` } })
        .then((r) => ({ status: r.statusCode, headers: r.headers as Record<string, unknown> }));
    const answers = await Promise.all(Array.from({ length: 14 }, (_, i) => send(i)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(LIMITS.keyPerSecond);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(14 - LIMITS.keyPerSecond);
    for (const answer of refused) {
      expect(answer.headers['ratelimit-limit']).toBe(String(LIMITS.keyPerSecond));
      expect(answer.headers['ratelimit-remaining']).toBe('0');
    }
    // The counts are Redis's, under the limits' names, expiring with the window.
    const keys = await inspect.keys('api_*');
    expect(keys).toHaveLength(2);
    expect(keys).toContain(`api_org:${tenant.organizationId}`);
    const keyCount = keys.find((k) => k.startsWith('api_key:'))!;
    expect(Number(await inspect.get(keyCount))).toBeGreaterThanOrEqual(LIMITS.keyPerSecond);
    expect(await inspect.pttl(keyCount)).toBeGreaterThan(0);
  });

  it('goes on answering with Redis gone, each process counting in its own memory, and shares the counts again once it is back', async ({
    api,
    redis,
    secondProcess,
    inspect,
  }) => {
    await redis.stop();
    const owner = await api.tenant();
    const asOwner = { authorization: `Bearer ${owner.key}` };
    // Each process admits the key's limit from memory: twice the limit between them, and not one 500.
    const apart = await Promise.all(
      Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? api.app : secondProcess).inject({ method: 'GET', url: '/api/assistants', headers: asOwner })),
    );
    expect(apart.filter((r) => r.statusCode === 200)).toHaveLength(2 * LIMITS.keyPerSecond);
    expect(apart.filter((r) => r.statusCode === 429)).toHaveLength(16 - 2 * LIMITS.keyPerSecond);

    await redis.start();
    const other = await api.tenant();
    // Both processes reconnect on their own: a request from each is counted in Redis again.
    await until(
      async () => {
        await Promise.all(
          [api.app, secondProcess].map((app) => app.inject({ method: 'GET', url: '/api/assistants', headers: { authorization: `Bearer ${other.key}` } })),
        );
        return Number(await inspect.get(`api_org:${other.organizationId}`).catch(() => null)) >= 2;
      },
      { timeoutMs: 30_000, intervalMs: 200, message: 'counts not back in Redis' },
    );
  });
});
