import { describe, expect } from 'vitest';
import { revokeApiKey } from '../../modules/organizations/api-keys.js';
import { createApiContext } from '../helpers/api.js';
import { apiTest } from '../helpers/fixtures.js';

const cachingTest = apiTest.extend('apiOptions', { scope: 'file' }, { keyCacheTtlMs: 60_000 });
const shortCacheTest = apiTest.extend('apiOptions', { scope: 'file' }, { keyCacheTtlMs: 200 });

describe('API key authentication', () => {
  const it = cachingTest;

  it('answers 401 with a JSON body and a Bearer challenge when the Authorization header is missing', async ({ api }) => {
    const res = await api.call(null, 'GET', '/api/assistants');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="api"');
    expect(res.body).toMatchObject({ success: false, code: 'unauthorized' });
    expect(res.body.message).toMatch(/Missing API key/);
  });

  it.for([['Basic dXNlcjpwYXNz'], ['Bearer'], ['Bearer '], ['Bearer two tokens'], ['Token vak_abc']])(
    'answers 401 invalid_request for the malformed header %j',
    async ([header], { api }) => {
      const res = await api.app.inject({ method: 'GET', url: '/api/assistants', headers: { authorization: header } });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="api", error="invalid_request"');
      expect(res.json()).toMatchObject({ success: false, code: 'unauthorized' });
    },
  );

  it('answers 401 invalid_token for a well-formed key that does not exist', async ({ api, tenant }) => {
    const res = await api.call({ ...tenant, key: 'vak_' + 'x'.repeat(43) }, 'GET', '/api/assistants');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="api", error="invalid_token"');
  });

  it('accepts the scheme name in any letter case', async ({ api, tenant }) => {
    const res = await api.app.inject({ method: 'GET', url: '/api/assistants', headers: { authorization: `bearer ${tenant.key}` } });
    expect(res.statusCode).toBe(200);
  });

  it('serves a repeated key from the cache without reading the database again', async () => {
    // No change listener: as a process whose notification of the revocation was lost.
    const deaf = await createApiContext({ keyCacheTtlMs: 60_000, changes: undefined });
    try {
      const own = await deaf.tenant();
      expect((await deaf.call(own, 'GET', '/api/assistants')).status).toBe(200);
      // Revoked behind the cache's back: this process keeps trusting its cached lookup until the TTL.
      await deaf.db.prisma.apiKey.updateMany({ where: { organizationId: own.organizationId }, data: { revokedAt: new Date() } });
      expect((await deaf.call(own, 'GET', '/api/assistants')).status).toBe(200);
    } finally {
      await deaf.close();
    }
  });

  it('records last_used_at for a key that was used', async ({ api }) => {
    const own = await api.tenant();
    const before = await api.db.prisma.apiKey.findFirstOrThrow({ where: { organizationId: own.organizationId } });
    expect(before.lastUsedAt).toBeNull();
    await api.call(own, 'GET', '/api/assistants');
    await api.app.flushKeyUsage();
    const after = await api.db.prisma.apiKey.findFirstOrThrow({ where: { organizationId: own.organizationId } });
    expect(after.lastUsedAt).toBeInstanceOf(Date);
  });

  it('stores only a hash and a short prefix of each key', async ({ api }) => {
    const own = await api.tenant();
    const row = await api.db.prisma.apiKey.findFirstOrThrow({ where: { organizationId: own.organizationId } });
    expect(own.key).toMatch(/^vak_[A-Za-z0-9_-]{43}$/);
    expect(row.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.keyHash).not.toContain(own.key.slice(4));
    expect(own.key.startsWith(row.prefix)).toBe(true);
    expect(row.prefix.length).toBe(12);
  });
});

describe('a revoked key', () => {
  const it = shortCacheTest;

  it('stops working once the cache entry expires', async ({ api }) => {
    const tenant = await api.tenant();
    expect((await api.call(tenant, 'GET', '/api/assistants')).status).toBe(200);
    const row = await api.db.prisma.apiKey.findFirstOrThrow({ where: { organizationId: tenant.organizationId } });
    expect(await revokeApiKey(api.db.prisma, row.prefix)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const res = await api.call(tenant, 'GET', '/api/assistants');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="api", error="invalid_token"');
  });

  it('cannot be revoked twice', async ({ api }) => {
    const tenant = await api.tenant();
    const row = await api.db.prisma.apiKey.findFirstOrThrow({ where: { organizationId: tenant.organizationId } });
    expect(await revokeApiKey(api.db.prisma, row.prefix)).toBe(true);
    expect(await revokeApiKey(api.db.prisma, row.prefix)).toBe(false);
  });
});

describe('session-only functions', () => {
  const it = apiTest;

  it.for([
    ['POST', '/api/organization/api-keys', /API keys/],
    ['GET', '/api/organization/api-keys', /API keys/],
    ['DELETE', '/api/organization/api-keys/12', /API keys/],
    ['GET', '/api/billing', /Billing/],
    ['GET', '/api/users/me', /profile/],
    ['PATCH', '/api/users/me', /profile/],
    ['PUT', '/api/users/me/password', /profile/],
    ['GET', '/api/organization/members', /membership/],
    ['DELETE', '/api/organization/members/3', /membership/],
    ['POST', '/api/organization/invitations', /membership/],
  ] as const)('answer 403 session_only to an API key for %s %s', async ([method, url, what], { api, tenant }) => {
    const res = await api.call(tenant, method, url, method === 'GET' || method === 'DELETE' ? undefined : {});
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ success: false, code: 'session_only' });
    expect(res.body.message).toMatch(what);
    expect(res.body.message).toMatch(/only in a dashboard session/);
  });

  it('still ask for a key first (401 without one)', async ({ api }) => {
    expect((await api.call(null, 'POST', '/api/organization/api-keys', {})).status).toBe(401);
  });
});
