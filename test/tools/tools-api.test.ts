import { describe, expect } from 'vitest';
import { Tool } from '../../modules/tools/schemas.js';
import type { Tenant } from '../helpers/api.js';
import { apiTestWith } from '../helpers/fixtures.js';

const BASE = '/api/tools';

const it = apiTestWith({ allowPrivateWebhookTargets: false }).extend(
  'create',
  { scope: 'file' },
  async ({ api, tenant }) =>
    (body: unknown, who: Tenant = tenant) =>
      api.call(who, 'POST', BASE, body),
);

/** An object nested `depth` levels deep under `key`: deep enough to overflow a recursive reader. */
function nested(depth: number, key: string): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 0; i < depth; i++) value = { [key]: value };
  return value;
}

let named = 0;
/** An HTTP tool with a fresh name, its fields overridden by `more`. */
const httpTool = (more: Record<string, unknown> = {}, http: Record<string, unknown> = {}) => ({
  name: `lookup_order_${named++}`,
  description: 'Looks an order up by its number',
  type: 'http',
  parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
  http: { method: 'GET', url: 'https://api.example.com/orders/{{args.order_id}}', query: { customer: '{{contact.email}}' }, ...http },
  ...more,
});

describe('tools API', () => {
  it('creates an HTTP tool with its defaults, reads it back, lists it, and deletes it', async ({ api, tenant, create }) => {
    const res = await create(httpTool({ name: 'lookup_order' }));
    expect(res.status).toBe(201);
    const tool = Tool.parse(res.body.data);
    expect(tool).toMatchObject({
      name: 'lookup_order',
      type: 'http',
      enabled: true,
      http: { method: 'GET', headers: {}, body: null, secret_headers: {}, timeout_ms: 5000 },
      transfer: null,
      messages: { on_start: null, on_slow: null, slow_after_ms: 2000, on_failure: null },
    });
    expect((await api.call(tenant, 'GET', `${BASE}/${tool.id}`)).body.data).toEqual(tool);
    expect((await api.call(tenant, 'GET', BASE)).body.data.map((t: { id: number }) => t.id)).toContain(tool.id);
    expect((await api.call(tenant, 'DELETE', `${BASE}/${tool.id}`)).status).toBe(200);
    expect((await api.call(tenant, 'GET', `${BASE}/${tool.id}`)).status).toBe(404);
  });

  it('stores credential headers sealed, shows them masked, and keeps them when the mask comes back', async ({ api, tenant, create }) => {
    const key = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';
    const res = await create(httpTool({}, { secret_headers: { Authorization: `Bearer ${key}` } }));
    expect(res.status).toBe(201);
    const masked = res.body.data.http.secret_headers.Authorization;
    expect(masked).toBe('****p7dc');
    const row = await api.db.prisma.tool.findUniqueOrThrow({ where: { id: res.body.data.id } });
    expect(JSON.stringify(row.config)).not.toContain(key.slice(8));
    // A client that reads the tool and writes it back unchanged keeps the key.
    const { http } = res.body.data;
    const patched = await api.call(tenant, 'PATCH', `${BASE}/${res.body.data.id}`, { http, description: 'Changed' });
    expect(patched.status).toBe(200);
    expect(patched.body.data.http.secret_headers.Authorization).toBe('****p7dc');
    const after = await api.db.prisma.tool.findUniqueOrThrow({ where: { id: res.body.data.id } });
    expect((after.config as { http: { secret_headers: Record<string, string> } }).http.secret_headers.Authorization).toBe(
      (row.config as { http: { secret_headers: Record<string, string> } }).http.secret_headers.Authorization,
    );
    // A new value replaces it.
    const replaced = await api.call(tenant, 'PATCH', `${BASE}/${res.body.data.id}`, {
      http: { ...http, secret_headers: { Authorization: 'Bearer sk_live_replacement_9999' } },
    });
    expect(replaced.body.data.http.secret_headers.Authorization).toBe('****9999');
    // A mask that masks nothing stored under that name is not a credential: refused, never stored as one.
    const copied = await create(httpTool({ name: 'copied_lookup' }, { secret_headers: { Authorization: '****9999' } }));
    expect(copied.status).toBe(422);
    expect(copied.body.detail[0]).toMatchObject({ loc: ['body', 'http', 'secret_headers', 'Authorization'], type: 'value_error' });
  });

  it('refuses to keep a stored credential for a URL moved to another host, and takes one sent again', async ({ api, tenant, create }) => {
    const res = await create(httpTool({}, { secret_headers: { Authorization: 'Bearer sk_live_stays_home_0001' } }));
    const { http } = res.body.data;
    const before = await api.db.prisma.tool.findUniqueOrThrow({ where: { id: res.body.data.id } });
    const moved = await api.call(tenant, 'PATCH', `${BASE}/${res.body.data.id}`, { http: { ...http, url: 'https://collector.example.net/steal' } });
    expect(moved.status).toBe(422);
    expect(moved.body.detail).toEqual([
      { loc: ['body', 'http', 'secret_headers', 'Authorization'], msg: expect.stringContaining('send this credential again'), type: 'value_error' },
    ]);
    expect((await api.db.prisma.tool.findUniqueOrThrow({ where: { id: res.body.data.id } })).config).toEqual(before.config);
    // Another path on the same host keeps it; the new host with the credential sent again is accepted.
    const samePlace = await api.call(tenant, 'PATCH', `${BASE}/${res.body.data.id}`, { http: { ...http, url: http.url.replace(/\/[^/]*$/, '/other') } });
    expect(samePlace.status).toBe(200);
    const resent = await api.call(tenant, 'PATCH', `${BASE}/${res.body.data.id}`, {
      http: { ...http, url: 'https://collector.example.net/steal', secret_headers: { Authorization: 'Bearer sk_live_new_home_0002' } },
    });
    expect(resent.status).toBe(200);
    expect(resent.body.data.http.secret_headers.Authorization).toBe('****0002');
  });

  it('creates the built-ins: end_call, transfer_call with its destination, send_dtmf', async ({ create }) => {
    expect((await create({ name: 'hang_up', type: 'end_call' })).status).toBe(201);
    const transfer = await create({
      name: 'to_sales',
      type: 'transfer_call',
      transfer: { destination: '+14155550123', mode: 'warm', handoff_message: 'Putting you through to sales.' },
    });
    expect(transfer.status).toBe(201);
    expect(transfer.body.data.transfer).toEqual({
      destination: '+14155550123',
      mode: 'warm',
      handoff_message: 'Putting you through to sales.',
      briefing_prompt: null,
      hold_audio: 'music',
      ring_timeout_s: 25,
      on_decline_message: null,
    });
    const sip = await create({ name: 'to_desk', type: 'transfer_call', transfer: { destination: 'sip:desk@pbx.example.com' } });
    expect(sip.body.data.transfer).toMatchObject({ mode: 'cold' });
    expect(
      (await create({ name: 'press', type: 'send_dtmf', parameters: { type: 'object', properties: { digits: { type: 'string', pattern: '^[0-9*#w]+$' } } } }))
        .status,
    ).toBe(201);
  });

  it('refuses a name another tool of the organisation has, with 409, but not one of another organisation', async ({ api, create }) => {
    expect((await create({ name: 'check_stock', type: 'end_call' })).status).toBe(201);
    const again = await create({ name: 'check_stock', type: 'end_call' });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain('check_stock');
    const other = await api.tenant();
    expect((await create({ name: 'check_stock', type: 'end_call' }, other)).status).toBe(201);
  });

  it.for<[(string | number)[], unknown]>([
    [['body', 'name'], { name: '1bad', type: 'end_call' }],
    [['body', 'type'], { name: 'x', type: 'teleport' }],
    [['body', 'http'], { name: 'x', type: 'http' }],
    [['body', 'http'], { name: 'x', type: 'end_call', http: { url: 'https://a.example.com' } }],
    [['body', 'transfer'], { name: 'x', type: 'transfer_call' }],
    [['body', 'transfer', 'destination'], { name: 'x', type: 'transfer_call', transfer: { destination: '555-1234' } }],
    [['body', 'parameters', 'type'], { name: 'x', type: 'end_call', parameters: { type: 'array' } }],
    [
      ['body', 'parameters', 'properties', 'a', 'type'],
      { name: 'x', type: 'end_call', parameters: { type: 'object', properties: { a: { type: 'no-such-type' } } } },
    ],
    [['body', 'http', 'url'], httpTool({}, { url: 'https://{{var.host}}/orders' })],
    [['body', 'http', 'url'], httpTool({}, { url: 'ftp://api.example.com/x' })],
    [['body', 'http', 'url'], httpTool({}, { url: 'http://127.0.0.1:8080/admin' })],
    [['body', 'http', 'url'], httpTool({}, { url: 'https://user:pw@api.example.com/x' })],
    [['body', 'http', 'url'], httpTool({}, { url: 'https://api.example.com/{{args.sku}}' })],
    [['body', 'http', 'headers', 'X-Trace'], httpTool({}, { headers: { 'X-Trace': '{{ process.env.SECRET }}' } })],
    [['body', 'http', 'body', 'note'], httpTool({}, { body: { note: '{{contact}}' } })],
    [['body', 'http', 'timeout_ms'], httpTool({}, { timeout_ms: 60_000 })],
    [['body', 'http', 'secret_headers', 'authorization'], httpTool({}, { headers: { Authorization: 'x' }, secret_headers: { authorization: 'y' } })],
    [['body', 'surprise'], httpTool({ surprise: true })],
  ])('refuses with 422 at %j (case %#), and stores nothing', async ([loc, body], { api, create }) => {
    const before = await api.db.prisma.tool.count();
    const res = await create(body);
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
    expect(await api.db.prisma.tool.count()).toBe(before);
  });

  it('refuses a parameters schema or a body template nested past the JSON depth limit, before reading it', async ({ api, create }) => {
    const before = await api.db.prisma.tool.count();
    expect((await create({ name: 'x', type: 'end_call', parameters: { type: 'object', ...nested(2_000, 'not') } })).status).toBe(422);
    expect((await create(httpTool({}, { method: 'POST', body: nested(3_000, 'a') }))).status).toBe(422);
    expect(await api.db.prisma.tool.count()).toBe(before);
  });

  it('checks an update as a whole tool: a type change without its config is refused and changes nothing', async ({ api, tenant, create }) => {
    const { body } = await create(httpTool());
    const res = await api.call(tenant, 'PATCH', `${BASE}/${body.data.id}`, { type: 'transfer_call' });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toEqual(
      expect.arrayContaining([
        ['body', 'http'],
        ['body', 'transfer'],
      ]),
    );
    expect((await api.call(tenant, 'GET', `${BASE}/${body.data.id}`)).body.data.type).toBe('http');
    const ok = await api.call(tenant, 'PATCH', `${BASE}/${body.data.id}`, { type: 'transfer_call', http: null, transfer: { destination: '+442071838750' } });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ type: 'transfer_call', http: null, transfer: { destination: '+442071838750', mode: 'cold' } });
  });

  it("answers 404 for another organisation's tool on every operation, and changes nothing of it", async ({ api, tenant, create }) => {
    const { body } = await create(httpTool());
    const other = await api.tenant();
    for (const [method, payload] of [['GET'], ['PATCH', { enabled: false }], ['DELETE']] as const) {
      expect((await api.call(other, method, `${BASE}/${body.data.id}`, payload)).status).toBe(404);
    }
    expect((await api.call(tenant, 'GET', `${BASE}/${body.data.id}`)).body.data.enabled).toBe(true);
    expect((await api.call(other, 'GET', BASE)).body.data).toEqual([]);
  });

  it('lets an assistant be given its enabled tools, and refuses a disabled one', async ({ api, tenant, create }) => {
    const enabled = await create(httpTool());
    const disabled = await create(httpTool({ enabled: false }));
    const ok = await api.call(tenant, 'POST', '/api/assistants', { name: 'With tools', assigned_tools: [enabled.body.data.id] });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.assigned_tools).toEqual([enabled.body.data.id]);
    const refused = await api.call(tenant, 'POST', '/api/assistants', { name: 'Bad tools', assigned_tools: [disabled.body.data.id] });
    expect(refused.status).toBe(422);
  });
});
