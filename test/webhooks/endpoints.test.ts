import { describe, expect } from 'vitest';
import { WebhookDeliveryAttempt, WebhookEndpoint, WebhookEndpointWithSecret } from '../../modules/webhooks/schemas.js';
import { recordEvent } from '../../modules/webhooks/events.js';
import type { Tenant } from '../helpers/api.js';
import { apiTestWith } from '../helpers/fixtures.js';

const BASE = '/api/organization/webhooks';

const it = apiTestWith({ allowPrivateWebhookTargets: false }).extend(
  'create',
  { scope: 'file' },
  async ({ api, tenant }) =>
    (body: unknown, who: Tenant = tenant) =>
      api.call(who, 'POST', BASE, body),
);

describe('webhook endpoints API', () => {
  it('creates an endpoint, shows the whsec_ secret once, and afterwards only its hint', async ({ api, tenant, create }) => {
    const res = await create({ url: 'https://hooks.example.com/in', event_types: ['call.completed'], description: 'CRM sync' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ success: true, data: { url: 'https://hooks.example.com/in', enabled: true, description: 'CRM sync' } });
    WebhookEndpointWithSecret.parse(res.body.data);
    const { secret, id, secret_hint } = res.body.data;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(secret.startsWith(secret_hint.replace('…', ''))).toBe(true);

    const got = await api.call(tenant, 'GET', `${BASE}/${id}`);
    expect(got.status).toBe(200);
    WebhookEndpoint.parse(got.body.data);
    expect(JSON.stringify(got.body)).not.toContain(secret.slice(10));
    const list = await api.call(tenant, 'GET', BASE);
    expect(list.body.data.map((e: { id: number }) => e.id)).toContain(id);
    expect(JSON.stringify(list.body)).not.toContain(secret.slice(10));
  });

  it('updates fields partially, and deletes', async ({ api, tenant, create }) => {
    const { body } = await create({ url: 'https://a.example.com/', event_types: ['call.started'] });
    const id = body.data.id;
    const patched = await api.call(tenant, 'PATCH', `${BASE}/${id}`, { event_types: ['call.failed', 'call.completed'], enabled: false });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ url: 'https://a.example.com/', event_types: ['call.failed', 'call.completed'], enabled: false });
    const deleted = await api.call(tenant, 'DELETE', `${BASE}/${id}`);
    expect(deleted.status).toBe(200);
    expect((await api.call(tenant, 'GET', `${BASE}/${id}`)).status).toBe(404);
  });

  it('rejects unknown fields, unknown event kinds, bad URLs and an empty event list with 422', async ({ api, tenant, create }) => {
    const cases: [unknown, (string | number)[]][] = [
      [{ url: 'https://x.example.com', event_types: ['call.completed'], secret: 'mine' }, ['body', 'secret']],
      [{ url: 'https://x.example.com', event_types: ['call.exploded'] }, ['body', 'event_types', 0]],
      [{ url: 'ftp://x.example.com', event_types: ['call.completed'] }, ['body', 'url']],
      [{ url: 'not a url', event_types: ['call.completed'] }, ['body', 'url']],
      [{ url: 'https://x.example.com', event_types: [] }, ['body', 'event_types']],
      [{ event_types: ['call.completed'] }, ['body', 'url']],
    ];
    for (const [body, loc] of cases) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
    }
    const patch = await api.call(tenant, 'PATCH', `${BASE}/1`, { colour: 'red' });
    expect(patch.status).toBe(422);
  });

  it('refuses IP-literal URLs in private, loopback, link-local and other non-public ranges', async ({ api, tenant, create }) => {
    const refused = [
      'http://127.0.0.1:8080/hook',
      'http://10.1.2.3/',
      'http://192.168.1.10/',
      'http://172.20.0.5/',
      'http://169.254.169.254/latest/meta-data',
      'http://0.0.0.0/',
      'http://100.64.0.1/',
      'http://[::1]/',
      'http://[fe80::1]/',
      'http://[fd00::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://2130706433/',
      'http://0x7f.1/',
    ];
    for (const url of refused) {
      const res = await create({ url, event_types: ['call.completed'] });
      expect(res.status, url).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['body', 'url']);
    }
    const { body } = await create({ url: 'https://93.184.215.14/hook', event_types: ['call.completed'] });
    expect(body.data.url).toBe('https://93.184.215.14/hook');
    const patch = await api.call(tenant, 'PATCH', `${BASE}/${body.data.id}`, { url: 'http://10.0.0.1/' });
    expect(patch.status).toBe(422);
  });

  it('rotates the secret: the new one is shown once and the old one signs until the overlap ends', async ({ api, tenant, create }) => {
    const { body } = await create({ url: 'https://r.example.com/', event_types: ['*'] });
    const before = Date.now();
    const rotated = await api.call(tenant, 'POST', `${BASE}/${body.data.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(body.data.secret);
    const expires = Date.parse(rotated.body.data.previous_secret_expires_at);
    expect(expires - before).toBeGreaterThanOrEqual(86_400_000 - 1_000);
    expect(expires - before).toBeLessThanOrEqual(86_400_000 + 60_000);
    const none = await api.call(tenant, 'POST', `${BASE}/${body.data.id}/rotate-secret`, { overlap_seconds: 0 });
    expect(none.body.data.previous_secret_expires_at).toBeNull();
    const bad = await api.call(tenant, 'POST', `${BASE}/${body.data.id}/rotate-secret`, { overlap_seconds: -1 });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'overlap_seconds']);
  });

  it('bounds the deliveries `limit` to 1..200 with a 422 at ["query","limit"] outside', async ({ api, tenant, create }) => {
    const { body } = await create({ url: 'https://l.example.com/', event_types: ['call.completed'] });
    const url = `${BASE}/${body.data.id}/deliveries`;
    for (const limit of ['1', '200']) {
      const res = await api.call(tenant, 'GET', `${url}?limit=${limit}`);
      expect(res.status, limit).toBe(200);
      expect(res.body).toEqual({ success: true, message: expect.any(String), data: [] });
    }
    expect((await api.call(tenant, 'GET', url)).status).toBe(200);
    for (const [limit, type] of [
      ['0', 'greater_than_equal'],
      ['201', 'less_than_equal'],
      ['-5', 'greater_than_equal'],
      ['abc', 'int_parsing'],
      ['1.5', 'int_parsing'],
      ['99999999999999999999', 'less_than_equal'],
    ]) {
      const res = await api.call(tenant, 'GET', `${url}?limit=${limit}`);
      expect(res.status, limit).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ['query', 'limit'], type });
    }
  });

  it('documents `limit` in OpenAPI as an integer from 1 to 200', async ({ api }) => {
    const doc = (await api.call(null, 'GET', '/api/openapi.json')).body;
    const op = doc.paths['/api/organization/webhooks/{endpoint_id}/deliveries'].get;
    expect(op.parameters.find((p: { name: string }) => p.name === 'limit')).toMatchObject({
      in: 'query',
      schema: { type: 'integer', minimum: 1, maximum: 200 },
    });
    expect(op.responses['422']).toBeDefined();
  });

  it('returns at most `limit` attempts, newest first, each with event id and type, attempt, time, status, duration, error and next retry', async ({
    api,
    tenant,
    create,
  }) => {
    const { body } = await create({ url: 'https://log.example.com/', event_types: ['call.completed'] });
    const endpointId = body.data.id;
    for (let i = 0; i < 3; i++) await recordEvent(api.db.prisma, tenant.organizationId, 'call.completed', { call_sid: `CA${i}` });
    // Attempts are written by delivery workers; write three here as a worker would, to read them back through the API.
    await api.db.prisma.$executeRaw`
      INSERT INTO webhook_delivery_attempts (delivery_id, endpoint_id, attempt, started_at, duration_ms, response_status, error, succeeded, next_retry_at)
      SELECT d.id, d.endpoint_id, 1, now() - (row_number() OVER (ORDER BY d.id)) * interval '1 second', 12, 500, 'unexpected response status 500', false, now() + interval '10 seconds'
      FROM webhook_deliveries d WHERE d.endpoint_id = ${endpointId}`;
    const res = await api.call(tenant, 'GET', `${BASE}/${endpointId}/deliveries?limit=2`);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(2);
    for (const item of res.body.data) WebhookDeliveryAttempt.parse(item);
    expect(res.body.data[0]).toMatchObject({
      event_id: expect.stringMatching(/^evt_/),
      event_type: 'call.completed',
      attempt: 1,
      succeeded: false,
      response_status: 500,
      duration_ms: 12,
      error: 'unexpected response status 500',
      next_retry_at: expect.any(String),
    });
    expect(Date.parse(res.body.data[0].attempted_at)).toBeGreaterThan(Date.parse(res.body.data[1].attempted_at));
  });

  it('answers 404 on every webhook route to another organisation, exactly as for a missing endpoint', async ({ api, tenant, create }) => {
    const { body } = await create({ url: 'https://t.example.com/', event_types: ['call.completed'] });
    const id = body.data.id;
    await recordEvent(api.db.prisma, tenant.organizationId, 'call.completed', { call_sid: 'CAt' });
    const delivery = await api.db.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId: id } });
    const other = await api.tenant();
    const routes: [string, string, unknown?][] = [
      ['GET', `${BASE}/${id}`],
      ['PATCH', `${BASE}/${id}`, { enabled: false }],
      ['DELETE', `${BASE}/${id}`],
      ['POST', `${BASE}/${id}/rotate-secret`, {}],
      ['GET', `${BASE}/${id}/deliveries`],
      ['POST', `${BASE}/${id}/deliveries/${delivery.id}/redeliver`],
    ];
    for (const [method, url, payload] of routes) {
      const theirs = await api.call(other, method as 'GET', url, payload);
      const missing = await api.call(tenant, method as 'GET', url.replace(`/${id}`, '/2147483647'), payload);
      expect(theirs.status, `${method} ${url}`).toBe(404);
      expect(theirs.body, `${method} ${url}`).toEqual(missing.body);
    }
    const list = await api.call(other, 'GET', BASE);
    expect(list.body.data).toEqual([]);
    const still = await api.call(tenant, 'GET', `${BASE}/${id}`);
    expect(still.body.data).toMatchObject({ enabled: true });
  });

  it('queues a delivery only for enabled endpoints of the event organisation that subscribe to its kind', async ({ api, create }) => {
    const mine = await api.tenant();
    const { body: wanted } = await create({ url: 'https://w.example.com/', event_types: ['call.completed'] }, mine);
    const { body: all } = await create({ url: 'https://all.example.com/', event_types: ['*'] }, mine);
    const { body: other } = await create({ url: 'https://o.example.com/', event_types: ['call.started'] }, mine);
    const { body: off } = await create({ url: 'https://off.example.com/', event_types: ['call.completed'], enabled: false }, mine);
    const event = await recordEvent(api.db.prisma, mine.organizationId, 'call.completed', { call_sid: 'CAq' });
    const rows = await api.db.prisma.webhookDelivery.findMany({ where: { eventId: event.id } });
    expect(rows.map((r) => r.endpointId).sort()).toEqual([wanted.data.id, all.data.id].sort());
    expect([other.data.id, off.data.id].some((id) => rows.some((r) => r.endpointId === id))).toBe(false);
  });

  it('parks queued deliveries while the endpoint is disabled and queues them again when it is enabled', async ({ api, create }) => {
    const mine = await api.tenant();
    const { body } = await create({ url: 'https://p.example.com/', event_types: ['*'] }, mine);
    const id = body.data.id;
    await recordEvent(api.db.prisma, mine.organizationId, 'call.started', { call_sid: 'CAp' });
    const status = async () => (await api.db.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId: id } })).status;
    expect(await status()).toBe('pending');
    await api.call(mine, 'PATCH', `${BASE}/${id}`, { enabled: false });
    expect(await status()).toBe('paused');
    await api.call(mine, 'PATCH', `${BASE}/${id}`, { description: 'still off' });
    expect(await status()).toBe('paused');
    const enabled = await api.call(mine, 'PATCH', `${BASE}/${id}`, { enabled: true });
    expect(enabled.body.data).toMatchObject({ enabled: true, description: 'still off' });
    expect(await status()).toBe('pending');
  });

  it('answers every malformed request shape with a 4xx, never a 500', async ({ api, tenant, create }) => {
    const { body } = await create({ url: 'https://m.example.com/', event_types: ['*'] });
    const id = body.data.id;
    const bodies = [
      null,
      [],
      'text',
      42,
      {},
      { url: 12 },
      { event_types: 'call.completed' },
      { enabled: 'yes' },
      { overlap_seconds: 1e400 },
      { url: 'https://m.example.com/'.padEnd(5000, 'x'), event_types: ['*'] },
      { description: 'x'.repeat(501) },
      { event_types: ['*', '*'] },
    ];
    const routes: [string, string][] = [
      ['POST', BASE],
      ['PATCH', `${BASE}/${id}`],
      ['POST', `${BASE}/${id}/rotate-secret`],
      ['POST', `${BASE}/${id}/deliveries/1/redeliver`],
      ['GET', `${BASE}/abc`],
      ['GET', `${BASE}/${id}/deliveries?limit=`],
      ['GET', `${BASE}/99999999999999/deliveries`],
      ['DELETE', `${BASE}/0`],
    ];
    for (const [method, url] of routes) {
      for (const payload of bodies) {
        const res = await api.app.inject({
          method: method as 'POST',
          url,
          headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
          ...(method === 'GET' || method === 'DELETE' ? {} : { payload: JSON.stringify(payload) }),
        });
        expect(res.statusCode, `${method} ${url} ${JSON.stringify(payload)?.slice(0, 40)}`).toBeLessThan(500);
      }
    }
  });

  it('writes no event and no delivery when the transaction that records it rolls back', async ({ api, create }) => {
    const mine = await api.tenant();
    await create({ url: 'https://rb.example.com/', event_types: ['*'] }, mine);
    await expect(
      api.db.prisma.$transaction(async (tx) => {
        await recordEvent(tx, mine.organizationId, 'call.completed', { call_sid: 'CArb' });
        throw new Error('state change failed');
      }),
    ).rejects.toThrow('state change failed');
    expect(await api.db.prisma.event.count({ where: { organizationId: mine.organizationId } })).toBe(0);
    expect(await api.db.prisma.webhookDelivery.count({ where: { endpoint: { organizationId: mine.organizationId } } })).toBe(0);
  });
});
