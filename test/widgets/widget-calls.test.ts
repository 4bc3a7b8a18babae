import { describe, expect } from 'vitest';
import { apiTestWith } from '../helpers/fixtures.js';
import type { ApiContext, Tenant } from '../helpers/api.js';
import { endStaleUnstartedCalls, JOIN_GRACE_MS, WIDGET_JOIN_WINDOW_MS } from '../../modules/calls/index.js';

// The widget's public side over HTTP: CORS answered for the key's origins alone (preflight too, with Vary: Origin), a
// revoked or unknown key refused, the key's calls per minute and calls under way capped, the call recording its key,
// and its page framable by exactly that key's origins. Calls are created here but never joined: no audio is asked of
// the worker (the Chromium test, widget-browser.test.ts, runs one).

const it = apiTestWith({
  callAudioRunner: {
    open() {
      throw new Error('no call audio in this file');
    },
  },
}).extend(
  'assistantId',
  { scope: 'file' },
  async ({ api, tenant }) => (await api.call(tenant, 'POST', '/api/assistants', { name: 'Front desk' })).body.id as number,
);

const SHOP = 'https://shop.example.com';
const LOCAL = 'http://127.0.0.1:8080';

async function newKey(api: ApiContext, tenant: Tenant, assistantId: number, extra: Record<string, unknown> = {}) {
  const res = await api.call(tenant, 'POST', '/api/widget-keys', { name: 'Site', assistant_id: assistantId, allowed_origins: [SHOP, LOCAL], ...extra });
  expect(res.status).toBe(201);
  return res.body.data as { id: number; public_key: string };
}

async function freshOrganisation(api: ApiContext): Promise<{ tenant: Tenant; assistantId: number }> {
  const tenant = await api.tenant();
  return { tenant, assistantId: (await api.call(tenant, 'POST', '/api/assistants', { name: 'Front desk' })).body.id as number };
}

function startCall(api: ApiContext, publicKey: string, origin?: string) {
  return api.app.inject({
    method: 'POST',
    url: `/api/widget/${publicKey}/calls`,
    headers: { 'content-type': 'application/json', ...(origin ? { origin } : {}) },
    payload: '{}',
  });
}

describe('the widget script', () => {
  it('is served as JavaScript any site may load, cached for minutes and revalidated by its ETag', async ({ api }) => {
    const res = await api.app.inject({ method: 'GET', url: '/widget.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.body).toContain('attachShadow');
    const again = await api.app.inject({ method: 'GET', url: '/widget.js', headers: { 'if-none-match': String(res.headers.etag) } });
    expect(again.statusCode).toBe(304);
  });
});

describe('CORS of the public routes', () => {
  it('answers the settings to a listed origin with that origin alone, and refuses any other with 403 and no CORS header', async ({
    api,
    tenant,
    assistantId,
  }) => {
    const key = await newKey(api, tenant, assistantId, { button_label: 'Ask us', greeting: 'Hello there' });
    const ok = await api.app.inject({ method: 'GET', url: `/api/widget/${key.public_key}`, headers: { origin: LOCAL } });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(LOCAL);
    expect(ok.headers.vary).toContain('Origin');
    expect(JSON.parse(ok.body).data).toEqual({ button_label: 'Ask us', button_color: '#2f5bea', greeting: 'Hello there' });

    for (const origin of ['https://evil.example.com', 'http://127.0.0.1:8081', 'https://shop.example.com.evil.example', 'null']) {
      const refused = await api.app.inject({ method: 'GET', url: `/api/widget/${key.public_key}`, headers: { origin } });
      expect(refused.statusCode, origin).toBe(403);
      expect(JSON.parse(refused.body)).toMatchObject({ success: false, code: 'origin_not_allowed' });
      expect(refused.headers['access-control-allow-origin']).toBeUndefined();
      expect(refused.headers.vary).toContain('Origin');
    }
    // No Origin header at all (a script on a server, not a page): refused too.
    expect((await api.app.inject({ method: 'GET', url: `/api/widget/${key.public_key}` })).statusCode).toBe(403);
  });

  it('answers a preflight from a listed origin with the method and header the widget sends, and refuses one from elsewhere', async ({
    api,
    tenant,
    assistantId,
  }) => {
    const key = await newKey(api, tenant, assistantId);
    const preflight = (origin: string) =>
      api.app.inject({
        method: 'OPTIONS',
        url: `/api/widget/${key.public_key}/calls`,
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
    const ok = await preflight(SHOP);
    expect(ok.statusCode).toBe(204);
    expect(ok.headers).toMatchObject({
      'access-control-allow-origin': SHOP,
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'content-type',
      'access-control-max-age': '600',
    });
    expect(ok.headers.vary).toContain('Origin');
    const refused = await preflight('https://elsewhere.example.com');
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    // Nothing was created by either.
    expect(await api.db.prisma.call.count({ where: { widgetKeyId: key.id } })).toBe(0);
  });

  it('creates no call for a page on an origin the key does not list', async ({ api, tenant, assistantId }) => {
    const key = await newKey(api, tenant, assistantId);
    const res = await startCall(api, key.public_key, 'https://elsewhere.example.com');
    expect(res.statusCode).toBe(403);
    expect(JSON.parse(res.body).code).toBe('origin_not_allowed');
    expect(await api.db.prisma.call.count({ where: { widgetKeyId: key.id } })).toBe(0);
  });
});

describe('widget calls', () => {
  it('starts a browser call to the key’s assistant that records the key, is listed under it, and whose page only its origins may frame', async ({
    api,
    tenant,
    assistantId,
  }) => {
    const key = await newKey(api, tenant, assistantId);
    const res = await startCall(api, key.public_key, SHOP);
    expect(res.statusCode).toBe(201);
    expect(res.headers['access-control-allow-origin']).toBe(SHOP);
    const data = JSON.parse(res.body).data as { call_sid: string; page_url: string };
    const call = await api.db.prisma.call.findUniqueOrThrow({ where: { callSid: data.call_sid } });
    expect(call).toMatchObject({ organizationId: tenant.organizationId, assistantId, transport: 'browser', status: 'queued', widgetKeyId: key.id });

    const listed = await api.call(tenant, 'GET', `/api/calls?widget_key_id=${key.id}`);
    expect(listed.body.data.map((c: { call_sid: string }) => c.call_sid)).toEqual([data.call_sid]);
    expect(listed.body.data[0].widget_key_id).toBe(key.id);

    const page = await api.app.inject({ method: 'GET', url: new URL(data.page_url).pathname + new URL(data.page_url).search });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain(`frame-ancestors ${SHOP} ${LOCAL}`);
    expect(page.headers['content-security-policy']).not.toContain('*');
    expect(page.body).toContain('data-autostart');
    // Without the call's token, the same page may be framed by nobody.
    const tokenless = await api.app.inject({ method: 'GET', url: `/call/${data.call_sid}` });
    expect(tokenless.headers['content-security-policy']).toContain("frame-ancestors 'none'");

    // A call made with an API key keeps its page unframable.
    const own = await api.call(tenant, 'POST', '/api/web-calls/browser', { assistant_id: assistantId });
    const ownPage = await api.app.inject({ method: 'GET', url: new URL(own.body.data.page_url).pathname + new URL(own.body.data.page_url).search });
    expect(ownPage.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(ownPage.body).not.toContain('data-autostart');
  });

  it('refuses an unknown or revoked key with 401 widget_key_invalid, and a revoked key’s open page may no longer be framed', async ({
    api,
    tenant,
    assistantId,
  }) => {
    const unknown = await startCall(api, 'wk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', SHOP);
    expect(unknown.statusCode).toBe(401);
    expect(JSON.parse(unknown.body).code).toBe('widget_key_invalid');
    expect(unknown.headers.vary).toContain('Origin');
    expect(unknown.headers['access-control-allow-origin']).toBeUndefined();
    expect((await startCall(api, 'not-a-key', SHOP)).statusCode).toBe(401);

    const key = await newKey(api, tenant, assistantId);
    const started = JSON.parse((await startCall(api, key.public_key, SHOP)).body).data as { page_url: string };
    expect((await api.call(tenant, 'DELETE', `/api/widget-keys/${key.id}`)).status).toBe(200);
    const refused = await startCall(api, key.public_key, SHOP);
    expect(refused.statusCode).toBe(401);
    expect(JSON.parse(refused.body).code).toBe('widget_key_invalid');
    expect((await api.app.inject({ method: 'GET', url: `/api/widget/${key.public_key}`, headers: { origin: SHOP } })).statusCode).toBe(401);
    const page = await api.app.inject({ method: 'GET', url: new URL(started.page_url).pathname + new URL(started.page_url).search });
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  it('refuses the call past the key’s calls per minute with 429 rate_limited and Retry-After, readable by the page', async ({ api, tenant, assistantId }) => {
    const key = await newKey(api, tenant, assistantId, { rate_limit_per_minute: 2, max_concurrent_calls: 10 });
    expect((await startCall(api, key.public_key, SHOP)).statusCode).toBe(201);
    expect((await startCall(api, key.public_key, LOCAL)).statusCode).toBe(201);
    const refused = await startCall(api, key.public_key, SHOP);
    expect(refused.statusCode).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({ success: false, code: 'rate_limited' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused.headers['access-control-allow-origin']).toBe(SHOP);
    expect(refused.headers['access-control-expose-headers']).toBe('Retry-After');
    expect(await api.db.prisma.call.count({ where: { widgetKeyId: key.id } })).toBe(2);
    // Counted where every API process counts: the shared store holds the key's count.
    const row = await api.db.prisma.rateLimit.findUnique({ where: { key: `widget_key:${key.id}` } });
    expect(row?.points).toBe(3);
    // Another key has its own minute.
    const other = await newKey(api, tenant, assistantId, { rate_limit_per_minute: 1 });
    expect((await startCall(api, other.public_key, SHOP)).statusCode).toBe(201);
  });

  it('refuses a call past the key’s cap of calls under way with 429 widget_busy, and takes one again when a call ends', async ({
    api,
    tenant,
    assistantId,
  }) => {
    const key = await newKey(api, tenant, assistantId, { max_concurrent_calls: 2, rate_limit_per_minute: 100 });
    // Three at once, racing for the key's two slots: exactly two are admitted.
    const results = await Promise.all([0, 1, 2].map(() => startCall(api, key.public_key, SHOP)));
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 201, 429]);
    const busy = results.find((r) => r.statusCode === 429)!;
    expect(JSON.parse(busy.body)).toMatchObject({ success: false, code: 'widget_busy', limit: 2, active: 2 });
    expect(await api.db.prisma.call.count({ where: { widgetKeyId: key.id } })).toBe(2);

    const first = JSON.parse(results.find((r) => r.statusCode === 201)!.body).data.call_sid as string;
    await api.db.prisma.call.update({ where: { callSid: first }, data: { status: 'completed', endedAt: new Date() } });
    expect((await startCall(api, key.public_key, SHOP)).statusCode).toBe(201);
  });

  it('frees the slot of a call its page gave up before joining (the microphone refused, the panel closed), at once', async ({ api, tenant, assistantId }) => {
    const key = await newKey(api, tenant, assistantId, { max_concurrent_calls: 1, rate_limit_per_minute: 100 });
    const res = await startCall(api, key.public_key, SHOP);
    const { call_sid, page_url } = JSON.parse(res.body).data as { call_sid: string; page_url: string };
    const token = new URL(page_url).searchParams.get('token')!;
    expect((await startCall(api, key.public_key, SHOP)).statusCode).toBe(429);

    // Another call's token, or none, is refused and changes nothing.
    const other = JSON.parse((await startCall(api, (await newKey(api, tenant, assistantId)).public_key, SHOP)).body).data as { page_url: string };
    const otherToken = new URL(other.page_url).searchParams.get('token')!;
    for (const query of [`?token=${encodeURIComponent(otherToken)}`, '', '?token=forged']) {
      const refused = await api.app.inject({ method: 'POST', url: `/call/${call_sid}/abandon${query}` });
      expect(refused.statusCode).toBe(403);
      expect(JSON.parse(refused.body)).toMatchObject({ code: 'call_token_invalid' });
    }
    expect(await api.db.prisma.call.findUniqueOrThrow({ where: { callSid: call_sid } })).toMatchObject({ status: 'queued' });

    // What the page's beacon sends: a POST with no body.
    const abandoned = await api.app.inject({ method: 'POST', url: `/call/${call_sid}/abandon?token=${encodeURIComponent(token)}` });
    expect(abandoned.statusCode).toBe(204);
    const call = await api.db.prisma.call.findUniqueOrThrow({ where: { callSid: call_sid } });
    expect(call).toMatchObject({ status: 'canceled', endReason: 'not_joined', durationMs: 0 });
    const events = await api.db.prisma.event.findMany({ where: { organizationId: tenant.organizationId, type: 'call.completed' } });
    expect(events.filter((e) => (e.payload as { call_sid?: string }).call_sid === call_sid)).toHaveLength(1);
    expect((await startCall(api, key.public_key, SHOP)).statusCode).toBe(201);

    // Sent again (a beacon and a page closing), it changes nothing and writes no second event.
    expect((await api.app.inject({ method: 'POST', url: `/call/${call_sid}/abandon?token=${encodeURIComponent(token)}` })).statusCode).toBe(204);
    const again = await api.db.prisma.event.findMany({ where: { organizationId: tenant.organizationId, type: 'call.completed' } });
    expect(again.filter((e) => (e.payload as { call_sid?: string }).call_sid === call_sid)).toHaveLength(1);
  });

  it('leaves a call that started as it is when its page sends the abandon late', async ({ api }) => {
    // An organisation of its own: the calls the tests above left queued count against the organisation's cap.
    const { tenant, assistantId } = await freshOrganisation(api);
    const key = await newKey(api, tenant, assistantId, { rate_limit_per_minute: 100 });
    const { call_sid, page_url } = JSON.parse((await startCall(api, key.public_key, SHOP)).body).data as { call_sid: string; page_url: string };
    await api.db.prisma.call.update({ where: { callSid: call_sid }, data: { status: 'in_progress', startedAt: new Date() } });
    const token = new URL(page_url).searchParams.get('token')!;
    expect((await api.app.inject({ method: 'POST', url: `/call/${call_sid}/abandon?token=${encodeURIComponent(token)}` })).statusCode).toBe(204);
    expect(await api.db.prisma.call.findUniqueOrThrow({ where: { callSid: call_sid } })).toMatchObject({ status: 'in_progress', endReason: null });
  });

  it('ends a widget’s call still unjoined after its join window, while a call made with an API key keeps its longer one', async ({ api }) => {
    const { tenant, assistantId } = await freshOrganisation(api);
    const key = await newKey(api, tenant, assistantId, { rate_limit_per_minute: 100 });
    const started = Date.now();
    const widgetData = JSON.parse((await startCall(api, key.public_key, SHOP)).body).data as { call_sid: string; expires_at: string };
    const widgetCall = widgetData.call_sid;
    // The page is told the same window the sweep keeps: its token is good for the widget's join window, not 10 minutes.
    const expiresIn = Date.parse(widgetData.expires_at) - started;
    expect(expiresIn).toBeGreaterThan(WIDGET_JOIN_WINDOW_MS - 5_000);
    expect(expiresIn).toBeLessThanOrEqual(WIDGET_JOIN_WINDOW_MS + 1_000);
    const ownCall = (await api.call(tenant, 'POST', '/api/web-calls/browser', { assistant_id: assistantId })).body.data.call_sid as string;
    // Not within the page's window and its grace: the page may still connect.
    expect(await endStaleUnstartedCalls(api.db.prisma, { now: new Date(Date.now() + WIDGET_JOIN_WINDOW_MS) })).toEqual([]);
    const ended = await endStaleUnstartedCalls(api.db.prisma, { now: new Date(Date.now() + WIDGET_JOIN_WINDOW_MS + JOIN_GRACE_MS + 1_000) });
    const rows = await api.db.prisma.call.findMany({ where: { callSid: { in: [widgetCall, ownCall] } } });
    const byId = new Map(rows.map((r) => [r.callSid, r]));
    expect(byId.get(widgetCall)).toMatchObject({ status: 'failed', endReason: 'not_joined' });
    expect(byId.get(ownCall)).toMatchObject({ status: 'queued' });
    expect(ended.map((e) => e.callId)).toContain(byId.get(widgetCall)!.id);
  });

  it('refuses a call to an inactive assistant and creates nothing', async ({ api, tenant }) => {
    const inactive = (await api.call(tenant, 'POST', '/api/assistants', { name: 'Off', is_active: false })).body.id as number;
    const key = await newKey(api, tenant, inactive);
    const res = await startCall(api, key.public_key, SHOP);
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body).code).toBe('assistant_inactive');
    expect(await api.db.prisma.call.count({ where: { widgetKeyId: key.id } })).toBe(0);
  });
});
