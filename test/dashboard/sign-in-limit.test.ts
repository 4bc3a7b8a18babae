import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../api/app.js';
import { clearExpiredSignInCounts } from '../../api/auth/sign-in-limit.js';
import { createApiContext, type ApiContext } from '../helpers/api.js';
import { BrowserSession } from '../helpers/browser-session.js';
import { addPerson } from '../helpers/people.js';

// The sign-in limit as a deployment of several API processes has it: two apps on one database, as two processes behind
// a load balancer are, count one person's failed sign-ins together.

let api: ApiContext;
let second: FastifyInstance;

beforeAll(async () => {
  api = await createApiContext();
  second = await buildApp({ prisma: api.db.prisma, changes: api.db.changes, logLevel: 'silent' });
  await second.ready();
}, 180_000);
afterAll(async () => {
  await second?.close();
  await api?.close();
});

describe('the sign-in limit across API processes', () => {
  it('counts failures sent to either process together: the 11th is refused by both, even with the right password', async () => {
    const owner = await addPerson(api, (await api.tenant()).organizationId, 'owner');
    const browsers = [new BrowserSession(api.app), new BrowserSession(second)];
    for (const browser of browsers) await browser.get('/login');
    for (let i = 0; i < 10; i++) {
      const res = await browsers[i % 2]!.post('/login', { email: owner.email, password: `wrong password ${i}` });
      expect(res.status).toBe(401);
    }
    for (const browser of browsers) {
      const limited = await browser.post('/login', { email: owner.email, password: owner.password });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(800);
    }
  });

  it('clears the count on a successful sign-in, in every process', async () => {
    const owner = await addPerson(api, (await api.tenant()).organizationId, 'owner');
    const [a, b] = [new BrowserSession(api.app), new BrowserSession(second)];
    await a.get('/login');
    for (let i = 0; i < 9; i++) expect((await a.post('/login', { email: owner.email, password: `wrong ${i}` })).status).toBe(401);
    await b.signIn(owner.email, owner.password);
    await a.get('/login');
    for (let i = 0; i < 10; i++) expect((await a.post('/login', { email: owner.email, password: `wrong again ${i}` })).status).toBe(401);
  });
});

describe('the sign-in limit per client address behind a proxy', () => {
  it("counts each client by the address the proxy forwards, so one client's failures lock out no one else", async () => {
    const behindProxy = await buildApp({
      prisma: api.db.prisma,
      changes: api.db.changes,
      logLevel: 'silent',
      trustProxyHops: 1,
      signInLimit: { perEmail: 100, perAddress: 3, windowS: 900 },
    });
    await behindProxy.ready();
    try {
      const guesser = { 'x-forwarded-for': '203.0.113.7' };
      const browser = new BrowserSession(behindProxy);
      await browser.get('/login', guesser);
      for (let i = 0; i < 3; i++)
        expect((await browser.post('/login', { email: `nobody${i}@example.com`, password: 'a wrong password' }, guesser)).status).toBe(401);
      expect((await browser.post('/login', { email: 'nobody9@example.com', password: 'a wrong password' }, guesser)).status).toBe(429);
      // Another client through the same proxy is not held up by it.
      const owner = await addPerson(api, (await api.tenant()).organizationId, 'owner');
      const other = new BrowserSession(behindProxy);
      await other.get('/login', { 'x-forwarded-for': '198.51.100.4' });
      expect((await other.post('/login', { email: owner.email, password: owner.password }, { 'x-forwarded-for': '198.51.100.4' })).status).toBe(302);
    } finally {
      await behindProxy.close();
    }
  });
});

describe('expired sign-in counts', () => {
  it('are swept an hour after they expire, and counts still running are kept', async () => {
    const now = Date.now();
    await api.db.prisma.rateLimit.createMany({
      data: [
        { key: 'sign_in_email:sweep-old@example.com', points: 3, expire: new Date(now - 2 * 3_600_000) },
        { key: 'sign_in_email:sweep-recent@example.com', points: 3, expire: new Date(now - 60_000) },
        { key: 'sign_in_email:sweep-running@example.com', points: 3, expire: new Date(now + 600_000) },
      ],
    });
    expect(await clearExpiredSignInCounts(api.db.prisma)).toBe(1);
    const left = await api.db.prisma.rateLimit.findMany({ where: { key: { startsWith: 'sign_in_email:sweep-' } }, select: { key: true } });
    expect(left.map((r) => r.key).sort()).toEqual(['sign_in_email:sweep-recent@example.com', 'sign_in_email:sweep-running@example.com']);
  });
});
