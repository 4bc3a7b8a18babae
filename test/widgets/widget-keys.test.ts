import { describe, expect } from 'vitest';
import { apiTest } from '../helpers/fixtures.js';
import type { ApiContext, Tenant } from '../helpers/api.js';

// Website widget keys over the API: created for one of the organisation's assistants with exact origins, listed,
// read, changed and revoked; bad input is a 422 at its field and writes nothing; another organisation sees none of it.

const it = apiTest.extend('assistantId', { scope: 'file' }, async ({ api, tenant }) => {
  const res = await api.call(tenant, 'POST', '/api/assistants', { name: 'Front desk' });
  return res.body.id as number;
});

async function create(api: ApiContext, tenant: Tenant, body: Record<string, unknown>) {
  return api.call(tenant, 'POST', '/api/widget-keys', body);
}

describe('widget keys', () => {
  it('creates a key with a public wk_ string, normalised origins and the default limits, and reads it back', async ({ api, tenant, assistantId }) => {
    const res = await create(api, tenant, {
      name: 'Shop',
      assistant_id: assistantId,
      allowed_origins: ['https://Shop.Example.com:443/', 'http://127.0.0.1:8080', 'https://shop.example.com'],
    });
    expect(res.status).toBe(201);
    const key = res.body.data;
    expect(key).toMatchObject({
      name: 'Shop',
      assistant_id: assistantId,
      allowed_origins: ['https://shop.example.com', 'http://127.0.0.1:8080'],
      rate_limit_per_minute: 10,
      max_concurrent_calls: 3,
      button_label: null,
      button_color: null,
      greeting: null,
      revoked_at: null,
    });
    expect(key.public_key).toMatch(/^wk_[A-Za-z0-9_-]{32}$/);
    const read = await api.call(tenant, 'GET', `/api/widget-keys/${key.id}`);
    expect(read.body.data).toEqual(key);
    const list = await api.call(tenant, 'GET', '/api/widget-keys');
    expect(list.body.data.map((k: { id: number }) => k.id)).toContain(key.id);
    expect(list.body.pagination).toMatchObject({ page: 1, per_page: 20 });
  });

  it.for([
    ['a path', 'https://shop.example.com/checkout', 'without a path'],
    ['a query', 'https://shop.example.com?x=1', 'without a path'],
    ['a wildcard', 'https://*.example.com', 'without wildcards'],
    ['plain http off loopback', 'http://shop.example.com', 'http:// is only for'],
    ['another scheme', 'ftp://shop.example.com', 'Must start with https://'],
    ['no origin at all', 'shop.example.com', 'Must be an origin'],
    ['a user name', 'https://me@shop.example.com', 'user name'],
    ['an IPv6 literal', 'https://[2001:db8::1]', 'IPv4 address'],
  ])('refuses an origin with %s with a 422 at its index, creating nothing', async ([, origin, message], { api, tenant, assistantId }) => {
    const before = await api.db.prisma.widgetKey.count();
    const res = await create(api, tenant, { name: 'Bad', assistant_id: assistantId, allowed_origins: ['https://ok.example.com', origin] });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'allowed_origins', 1], type: 'value_error' })]);
    expect(res.body.detail[0].msg).toContain(message);
    expect(await api.db.prisma.widgetKey.count()).toBe(before);
  });

  it('refuses an empty origin list, limits out of range and a colour that is not #rrggbb, each at its field', async ({ api, tenant, assistantId }) => {
    const res = await create(api, tenant, {
      name: 'Bad',
      assistant_id: assistantId,
      allowed_origins: [],
      rate_limit_per_minute: 0,
      max_concurrent_calls: 101,
      button_color: 'red',
    });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc.join('.')).sort()).toEqual([
      'body.allowed_origins',
      'body.button_color',
      'body.max_concurrent_calls',
      'body.rate_limit_per_minute',
    ]);
  });

  it("refuses another organisation's assistant as no such assistant, and hides each organisation's keys from the other", async ({
    api,
    tenant,
    assistantId,
  }) => {
    const other = await api.tenant('Other');
    const refused = await create(api, other, { name: 'Theirs', assistant_id: assistantId, allowed_origins: ['https://other.example.com'] });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([{ loc: ['body', 'assistant_id'], msg: 'No such assistant', type: 'not_found' }]);

    const mine = (await create(api, tenant, { name: 'Mine', assistant_id: assistantId, allowed_origins: ['https://mine.example.com'] })).body.data;
    expect((await api.call(other, 'GET', `/api/widget-keys/${mine.id}`)).status).toBe(404);
    expect((await api.call(other, 'PATCH', `/api/widget-keys/${mine.id}`, { name: 'Taken' })).status).toBe(404);
    expect((await api.call(other, 'DELETE', `/api/widget-keys/${mine.id}`)).status).toBe(404);
    expect((await api.call(other, 'GET', '/api/widget-keys')).body.data).toEqual([]);
    // Nothing the other organisation sent changed the key.
    expect((await api.call(tenant, 'GET', `/api/widget-keys/${mine.id}`)).body.data).toEqual(mine);
    // Nor can a key be moved to the other organisation's assistant.
    const otherAssistant = (await api.call(other, 'POST', '/api/assistants', { name: 'Theirs' })).body.id;
    const moved = await api.call(tenant, 'PATCH', `/api/widget-keys/${mine.id}`, { assistant_id: otherAssistant });
    expect(moved.status).toBe(422);
    expect((await api.call(tenant, 'GET', `/api/widget-keys/${mine.id}`)).body.data.assistant_id).toBe(assistantId);
  });

  it('updates only the fields given, replacing the origins whole, and clears the button text with null', async ({ api, tenant, assistantId }) => {
    const key = (await create(api, tenant, { name: 'Docs', assistant_id: assistantId, allowed_origins: ['https://docs.example.com'], button_label: 'Call us' }))
      .body.data;
    const res = await api.call(tenant, 'PATCH', `/api/widget-keys/${key.id}`, {
      allowed_origins: ['https://help.example.com'],
      rate_limit_per_minute: 30,
      button_label: null,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      name: 'Docs',
      allowed_origins: ['https://help.example.com'],
      rate_limit_per_minute: 30,
      max_concurrent_calls: 3,
      button_label: null,
      public_key: key.public_key,
    });
    const bad = await api.call(tenant, 'PATCH', `/api/widget-keys/${key.id}`, { allowed_origins: ['https://help.example.com/path'] });
    expect(bad.status).toBe(422);
    expect((await api.call(tenant, 'GET', `/api/widget-keys/${key.id}`)).body.data.allowed_origins).toEqual(['https://help.example.com']);
  });

  it('revokes a key, which stays listed with revoked_at and can be neither changed nor revoked again', async ({ api, tenant, assistantId }) => {
    const key = (await create(api, tenant, { name: 'Old site', assistant_id: assistantId, allowed_origins: ['https://old.example.com'] })).body.data;
    const revoked = await api.call(tenant, 'DELETE', `/api/widget-keys/${key.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.revoked_at).not.toBeNull();
    const again = await api.call(tenant, 'DELETE', `/api/widget-keys/${key.id}`);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ success: false, code: 'invalid_state' });
    const changed = await api.call(tenant, 'PATCH', `/api/widget-keys/${key.id}`, { name: 'Revived' });
    expect(changed.status).toBe(409);
    expect((await api.call(tenant, 'GET', `/api/widget-keys/${key.id}`)).body.data).toMatchObject({
      name: 'Old site',
      revoked_at: revoked.body.data.revoked_at,
    });
  });

  it('asks for an API key', async ({ api }) => {
    expect((await api.call(null, 'GET', '/api/widget-keys')).status).toBe(401);
  });
});
