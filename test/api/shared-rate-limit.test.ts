import { describe, expect } from 'vitest';
import { buildApp } from '../../api/app.js';
import { createPrismaClient } from '../../prisma/client.js';
import { createApiKey } from '../../modules/organizations/api-keys.js';
import { apiTest } from '../helpers/fixtures.js';
import { LOOPBACK_VENDOR_HOSTS } from '../helpers/vendor-hosts.js';

// Two API processes on one database, as behind a load balancer: each has its own Fastify app, limiter and connection
// pool, and nothing in memory in common. The limits count in Postgres, so between them they admit the limit, not twice
// it. The window is a minute here so that a burst falls in one window however slow the machine is.

const LIMITS = { keyPerSecond: 6, orgPerSecond: 9, orgInFlight: 0, windowS: 60 };

const it = apiTest.extend('apiOptions', { scope: 'file' }, { rateLimit: LIMITS }).extend('secondProcess', { scope: 'file' }, async ({ api }, { onCleanup }) => {
  const prisma = createPrismaClient(api.db.url, { maxConnections: 4 });
  const app = await buildApp({ prisma, logLevel: 'silent', vendorTargets: LOOPBACK_VENDOR_HOSTS, rateLimit: LIMITS });
  await app.ready();
  onCleanup(async () => {
    await app.close();
    await prisma.$disconnect();
  });
  return app;
});

describe('rate limits shared by every API process', () => {
  it("admits exactly a key's limit between two processes, and refuses the rest with the limit's headers", async ({ api, tenant, secondProcess }) => {
    const send = (index: number) =>
      index % 2 === 0
        ? api.call(tenant, 'GET', '/api/assistants')
        : secondProcess
            .inject({ method: 'GET', url: '/api/assistants', headers: { authorization: `Bearer ${tenant.key}` } })
            .then((r) => ({ status: r.statusCode, headers: r.headers as Record<string, unknown> }));
    const answers = await Promise.all(Array.from({ length: 14 }, (_, i) => send(i)));
    const admitted = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect(admitted).toHaveLength(LIMITS.keyPerSecond);
    expect(refused).toHaveLength(14 - LIMITS.keyPerSecond);
    for (const answer of refused) {
      expect(answer.headers['ratelimit-limit']).toBe(String(LIMITS.keyPerSecond));
      expect(answer.headers['ratelimit-remaining']).toBe('0');
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
  });

  it("admits exactly an organisation's limit across its keys and both processes", async ({ api, secondProcess }) => {
    const owner = await api.tenant();
    const second = await createApiKey(api.db.prisma, { organizationId: owner.organizationId, userId: owner.userId });
    const keys = [owner.key, second.key];
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => {
        const headers = { authorization: `Bearer ${keys[Math.floor(i / 2) % 2]}` };
        const app = i % 2 === 0 ? api.app : secondProcess;
        return app.inject({ method: 'GET', url: '/api/assistants', headers }).then((r) => r.statusCode);
      }),
    );
    expect(answers.filter((s) => s === 200)).toHaveLength(LIMITS.orgPerSecond);
    expect(answers.filter((s) => s === 429)).toHaveLength(12 - LIMITS.orgPerSecond);
  });
});
