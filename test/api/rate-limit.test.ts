import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../modules/organizations/api-keys.js';
import { readConfig } from '../../lib/config.js';
import { createApiContext, type ApiContext, type Tenant } from '../helpers/api.js';
import { apiTest } from '../helpers/fixtures.js';

// Limits count in windows of 1 s that open at a bucket's first request. Each burst below is sent at once
// (Promise.all), so all of its requests reach the limiter within milliseconds of each other, far inside the window.
// They count in the process's memory here, where a burst takes no database round trips: what this file proves (windows,
// headers, held refusals, the in-flight cap) is the same in either store. test/api/shared-rate-limit.test.ts proves the
// counts shared in Postgres between two processes.

type Answer = Awaited<ReturnType<ApiContext['call']>>;

function statuses(answers: Answer[]): number[] {
  return answers.map((a) => a.status).sort();
}

const limitedTest = apiTest
  .extend('apiOptions', { scope: 'file' }, { keyCacheTtlMs: 60_000, rateLimit: { keyPerSecond: 3, orgPerSecond: 4, orgInFlight: 0, store: 'memory' } })
  .extend(
    'burst',
    { scope: 'file' },
    async ({ api }) =>
      async (tenant: Tenant, count: number, url = '/api/assistants'): Promise<Answer[]> =>
        Promise.all(Array.from({ length: count }, () => api.call(tenant, 'GET', url))),
  )
  .extend('secondKey', { scope: 'file' }, async ({ api }) => async (tenant: Tenant): Promise<Tenant> => {
    const created = await createApiKey(api.db.prisma, { organizationId: tenant.organizationId, userId: tenant.userId });
    return { ...tenant, key: created.key };
  });
const inFlightTest = apiTest.extend('apiOptions', { scope: 'file' }, { rateLimit: { keyPerSecond: 0, orgPerSecond: 0, orgInFlight: 1 } });

describe('rate limits per organisation and per key', () => {
  const it = limitedTest;

  it('refuses a key past its limit with 429, Retry-After and the error body, while another organisation is answered', async ({ api, burst }) => {
    const a = await api.tenant();
    const b = await api.tenant();

    const answers = await burst(a, 4);
    const other = await api.call(b, 'GET', '/api/assistants');

    expect(statuses(answers)).toEqual([200, 200, 200, 429]);
    const refused = answers.find((r) => r.status === 429)!;
    expect(refused.body).toEqual({ success: false, code: 'rate_limited', message: 'Too many requests for this API key: at most 3 per second' });
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    expect(other.status).toBe(200);
  });

  it('answers a refusal only when its window reopens, so a client retrying at once cannot flood with refusals', async ({ api, burst }) => {
    const a = await api.tenant();
    // The window opens at the burst's first request, after this moment: it closes more than 1 s after it.
    const burstAt = Date.now();
    await burst(a, 3);
    const refused = await api.call(a, 'GET', '/api/assistants');
    expect(refused.status).toBe(429);
    // Timers may fire a millisecond early against Date.now().
    expect(Date.now() - burstAt).toBeGreaterThanOrEqual(995);
    // Its window has reopened by the time the refusal arrives: the next request is answered.
    expect((await api.call(a, 'GET', '/api/assistants')).status).toBe(200);
  });

  it('reports the limit, what remains of it and when it resets on every answer', async ({ api }) => {
    const a = await api.tenant();
    const first = await api.call(a, 'GET', '/api/assistants');
    const missing = await api.call(a, 'GET', '/api/assistants/2147483647');

    expect(first.status).toBe(200);
    expect(first.headers).toMatchObject({ 'ratelimit-limit': '3', 'ratelimit-remaining': '2', 'ratelimit-reset': '1', 'ratelimit-policy': '4;w=1, 3;w=1' });
    expect(missing.status).toBe(404);
    expect(missing.headers).toMatchObject({ 'ratelimit-limit': '3', 'ratelimit-remaining': '1' });
  });

  it('counts the requests of all keys of one organisation against the organisation limit', async ({ api, burst, secondKey }) => {
    const a = await api.tenant();
    const a2 = await secondKey(a);
    const other = await api.tenant();

    const first = await burst(a, 3);
    const second = await burst(a2, 2);
    const otherOrg = await api.call(other, 'GET', '/api/assistants');

    expect(statuses(first)).toEqual([200, 200, 200]);
    // The second key has used 2 of its own 3, but the organisation's 4 are spent.
    expect(statuses(second)).toEqual([200, 429]);
    expect(second.find((r) => r.status === 429)!.body.message).toBe('Too many requests for this organisation: at most 4 per second');
    expect(otherOrg.status).toBe(200);
  });

  it('answers again once the window has passed', async ({ api, burst }) => {
    const a = await api.tenant();
    const answers = await burst(a, 4);
    const refused = answers.find((r) => r.status === 429);
    expect(refused).toBeDefined();

    await new Promise((r) => setTimeout(r, Number(refused!.headers['retry-after']) * 1000 + 50));
    const again = await burst(a, 3);
    expect(statuses(again)).toEqual([200, 200, 200]);
  });

  it('refuses a request without a valid key with 401, counted against nobody', async ({ api, burst }) => {
    const a = await api.tenant();
    const anonymous = await Promise.all(Array.from({ length: 10 }, () => api.call(null, 'GET', '/api/assistants')));
    const forged = await Promise.all(Array.from({ length: 10 }, () => api.call({ ...a, key: `vak_${'x'.repeat(43)}` }, 'GET', '/api/assistants')));

    for (const res of [...anonymous, ...forged]) {
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('unauthorized');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="api"/);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
    expect(statuses(await burst(a, 3))).toEqual([200, 200, 200]);
  });

  it('counts every key-authenticated route, the built-in browser call route included', async ({ api }) => {
    const a = await api.tenant();
    const answers = await Promise.all(Array.from({ length: 4 }, () => api.call(a, 'POST', '/api/web-calls/browser', { assistant_id: 1 })));
    // Three are checked (and refused for their unknown assistant); the fourth is over the key's limit.
    expect(statuses(answers)).toEqual([422, 422, 422, 429]);
  });

  it('leaves the public OpenAPI document unlimited', async ({ api }) => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => api.app.inject({ method: 'GET', url: '/api/openapi.json' })));
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
  });
});

describe('requests in progress per organisation', () => {
  const it = inFlightTest;

  it('refuses a request while the organisation has its cap in progress, and frees the slot when the answer is sent', async ({ api }) => {
    const a = await api.tenant();
    const b = await api.tenant();
    // A body still being uploaded holds its request in progress for as long as the test keeps the stream open.
    const upload = new PassThrough();
    const held = api.app.inject({
      method: 'POST',
      url: '/api/contacts',
      headers: { authorization: `Bearer ${a.key}`, 'content-type': 'application/json' },
      payload: upload,
    });
    upload.write('{"first_name": ');
    await new Promise((r) => setTimeout(r, 100));

    const refused = await api.call(a, 'GET', '/api/assistants');
    const otherOrg = await api.call(b, 'GET', '/api/assistants');
    upload.end('"Ada"}');
    const heldAnswer = await held;
    const after = await api.call(a, 'GET', '/api/assistants');

    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ success: false, code: 'rate_limited', message: 'Too many requests in progress for this organisation: at most 1 at a time' });
    expect(refused.headers['retry-after']).toBe('1');
    expect(otherOrg.status).toBe(200);
    expect(heldAnswer.statusCode).toBeLessThan(500);
    expect(after.status).toBe(200);
  });

  it('frees the slot of a request refused after it was admitted', async ({ api }) => {
    const a = await api.tenant();
    const invalid = await api.call(a, 'POST', '/api/assistants', { name: 7 });
    const next = await api.call(a, 'GET', '/api/assistants');
    expect(invalid.status).toBe(422);
    expect(next.status).toBe(200);
  });
});

describe('without limits', () => {
  it('answers every request and sends no rate limit headers', async () => {
    const ctx = await createApiContext({ rateLimit: { keyPerSecond: 0, orgPerSecond: 0, orgInFlight: 0 } });
    try {
      const a = await ctx.tenant();
      const answers = await Promise.all(Array.from({ length: 20 }, () => ctx.call(a, 'GET', '/api/assistants')));
      expect(answers.every((r) => r.status === 200 && r.headers['ratelimit-limit'] === undefined)).toBe(true);
    } finally {
      await ctx.close();
    }
  });
});

describe('rate limit configuration', () => {
  it('has limits by default, turns one off with 0 and refuses a negative value', () => {
    expect(readConfig({}).rateLimit).toEqual({ orgPerSecond: 100, keyPerSecond: 50, orgInFlight: 5, store: 'postgres', redisUrl: undefined });
    expect(readConfig({ RATE_LIMIT_KEY_PER_SECOND: '0' }).rateLimit.keyPerSecond).toBe(0);
    expect(() => readConfig({ RATE_LIMIT_ORG_PER_SECOND: '-1' })).toThrow(/RATE_LIMIT_ORG_PER_SECOND/);
    expect(readConfig({ RATE_LIMIT_STORE: 'memory' }).rateLimit.store).toBe('memory');
    expect(() => readConfig({ RATE_LIMIT_STORE: 'disk' })).toThrow(/RATE_LIMIT_STORE/);
  });

  it('counts in Redis when REDIS_URL is set, unless told otherwise, and refuses a Redis store without a server', () => {
    expect(readConfig({ REDIS_URL: 'redis://cache.internal:6379/1' }).rateLimit).toMatchObject({ store: 'redis', redisUrl: 'redis://cache.internal:6379/1' });
    expect(readConfig({ REDIS_URL: 'rediss://cache.internal:6380', RATE_LIMIT_STORE: 'postgres' }).rateLimit.store).toBe('postgres');
    expect(() => readConfig({ RATE_LIMIT_STORE: 'redis' })).toThrow('RATE_LIMIT_STORE=redis needs REDIS_URL');
    expect(() => readConfig({ REDIS_URL: 'http://cache.internal:6379' })).toThrow(/REDIS_URL/);
  });
});
