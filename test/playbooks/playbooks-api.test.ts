import { describe, expect } from 'vitest';
import { Playbook } from '../../modules/playbooks/schemas.js';
import type { Tenant } from '../helpers/api.js';
import { apiTest } from '../helpers/fixtures.js';

const BASE = '/api/playbooks';

const it = apiTest.extend(
  'create',
  { scope: 'file' },
  async ({ api, tenant }) =>
    (body: unknown, who: Tenant = tenant) =>
      api.call(who, 'POST', BASE, body),
);

let named = 0;
/** A playbook with a fresh name, its fields overridden by `more`. */
const booking = (more: Record<string, unknown> = {}) => ({
  name: `Book an appointment ${named++}`,
  description: 'The caller wants to book, move or cancel an appointment',
  goal: 'A confirmed appointment slot',
  instructions: ['Ask which day suits them', 'Offer the free slots of that day', 'Confirm the slot back to them'],
  examples: [
    [
      { role: 'user', content: 'Can I come in on Friday?' },
      { role: 'assistant', content: 'Friday works. Morning or afternoon?' },
    ],
  ],
  collect: [
    { name: 'day', type: 'date', description: 'The day of the appointment', required: true },
    { name: 'party_size', type: 'integer' },
    { name: 'slot', type: 'enum', values: ['morning', 'afternoon'] },
  ],
  ...more,
});

describe('playbooks API', () => {
  it('creates a playbook with its defaults, reads it back, lists it, updates it and deletes it', async ({ api, tenant, create }) => {
    const res = await create(booking({ name: 'Booking' }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const playbook = Playbook.parse(res.body.data);
    expect(playbook).toMatchObject({
      name: 'Booking',
      enabled: true,
      mode: 'auto',
      content: '',
      tool_ids: [],
      instructions: ['Ask which day suits them', 'Offer the free slots of that day', 'Confirm the slot back to them'],
      collect: [
        { name: 'day', type: 'date', description: 'The day of the appointment', required: true, values: null },
        { name: 'party_size', type: 'integer', description: '', required: false, values: null },
        { name: 'slot', type: 'enum', description: '', required: false, values: ['morning', 'afternoon'] },
      ],
    });
    expect((await api.call(tenant, 'GET', `${BASE}/${playbook.id}`)).body.data).toEqual(playbook);
    const list = await api.call(tenant, 'GET', `${BASE}?per_page=1`);
    expect(list.body.data.map((p: { id: number }) => p.id)).toEqual([playbook.id]);
    expect(list.body.pagination).toMatchObject({ page: 1, per_page: 1 });

    const patched = await api.call(tenant, 'PATCH', `${BASE}/${playbook.id}`, {
      goal: 'A booked slot',
      instructions: ['Ask the day'],
      mode: 'handoff',
      content: 'We are closed on Sundays.',
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      name: 'Booking',
      goal: 'A booked slot',
      instructions: ['Ask the day'],
      mode: 'handoff',
      content: 'We are closed on Sundays.',
    });
    expect(patched.body.data.collect).toHaveLength(3);

    expect((await api.call(tenant, 'DELETE', `${BASE}/${playbook.id}`)).status).toBe(200);
    expect((await api.call(tenant, 'GET', `${BASE}/${playbook.id}`)).status).toBe(404);
  });

  it('refuses a name another playbook of the organisation has, with 409, but not one of another organisation', async ({ api, tenant, create }) => {
    expect((await create(booking({ name: 'Returns' }))).status).toBe(201);
    const again = await create(booking({ name: 'Returns' }));
    expect(again.status).toBe(409);
    expect(again.body.message).toContain('Returns');
    const other = await api.tenant();
    expect((await create(booking({ name: 'Returns' }), other)).status).toBe(201);
    // A rename onto a taken name is the same conflict.
    const second = await create(booking());
    expect((await api.call(tenant, 'PATCH', `${BASE}/${second.body.data.id}`, { name: 'Returns' })).status).toBe(409);
  });

  it.for<[(string | number)[], Record<string, unknown>]>([
    [['body', 'name'], { name: '' }],
    [['body', 'name'], { name: 'x'.repeat(101) }],
    [['body', 'description'], { description: 'x'.repeat(1_001) }],
    [['body', 'instructions'], { instructions: Array.from({ length: 51 }, () => 'step') }],
    [['body', 'instructions', 1], { instructions: ['ok', ''] }],
    [['body', 'examples', 0, 0, 'role'], { examples: [[{ role: 'system', content: 'hi' }]] }],
    [['body', 'examples', 0], { examples: [[]] }],
    [['body', 'content'], { content: 'x'.repeat(10_001) }],
    [['body', 'mode'], { mode: 'graph' }],
    [['body', 'collect', 0, 'name'], { collect: [{ name: 'first name', type: 'string' }] }],
    [['body', 'collect', 0, 'type'], { collect: [{ name: 'when', type: 'time' }] }],
    [['body', 'collect', 0, 'values'], { collect: [{ name: 'size', type: 'enum' }] }],
    [['body', 'collect', 0, 'values'], { collect: [{ name: 'size', type: 'string', values: ['a'] }] }],
    [['body', 'collect', 0, 'values'], { collect: [{ name: 'size', type: 'enum', values: ['a', 'a'] }] }],
    [
      ['body', 'collect', 1, 'name'],
      {
        collect: [
          { name: 'day', type: 'date' },
          { name: 'Day', type: 'string' },
        ],
      },
    ],
    [['body', 'tool_ids', 1], { tool_ids: [1, 'two'] }],
    [['body', 'tool_ids', 0], { tool_ids: [2_000_000_000] }],
    [['body', 'surprise'], { surprise: true }],
  ])('refuses with 422 at %j (case %#), and stores nothing', async ([loc, more], { api, create }) => {
    const before = await api.db.prisma.playbook.count();
    const res = await create(booking(more));
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
    expect(await api.db.prisma.playbook.count()).toBe(before);
  });

  it("keeps the tools in the order given, refuses another organisation's or a disabled tool at its position", async ({ api, tenant, create }) => {
    const tool = async (who: Tenant, name: string, enabled = true) =>
      (await api.call(who, 'POST', '/api/tools', { name, type: 'end_call', enabled })).body.data.id as number;
    const [a, b] = [await tool(tenant, 'pb_hang_up'), await tool(tenant, 'pb_hang_up_2')];
    const disabled = await tool(tenant, 'pb_disabled', false);
    const other = await api.tenant();
    const theirs = await tool(other, 'pb_theirs');

    const res = await create(booking({ tool_ids: [b, a, b] }));
    expect(res.status).toBe(201);
    expect(res.body.data.tool_ids).toEqual([b, a]);

    const refused = await create(booking({ tool_ids: [a, theirs, disabled] }));
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([
      { loc: ['body', 'tool_ids', 1], msg: `Tool ${theirs} does not exist`, type: 'value_error' },
      { loc: ['body', 'tool_ids', 2], msg: `Tool ${disabled} is disabled`, type: 'value_error' },
    ]);

    // A tool disabled after it was given does not block an update that leaves the tools alone.
    await api.call(tenant, 'PATCH', `/api/tools/${b}`, { enabled: false });
    const renamed = await api.call(tenant, 'PATCH', `${BASE}/${res.body.data.id}`, { goal: 'Changed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.tool_ids).toEqual([b, a]);
    const patched = await api.call(tenant, 'PATCH', `${BASE}/${res.body.data.id}`, { tool_ids: [a] });
    expect(patched.body.data.tool_ids).toEqual([a]);
    // A deleted tool leaves every playbook.
    await api.call(tenant, 'DELETE', `/api/tools/${a}`);
    expect((await api.call(tenant, 'GET', `${BASE}/${res.body.data.id}`)).body.data.tool_ids).toEqual([]);
  });

  it('checks an update as a whole playbook: an enum without values is refused and changes nothing', async ({ api, tenant, create }) => {
    const { body } = await create(booking());
    const res = await api.call(tenant, 'PATCH', `${BASE}/${body.data.id}`, { collect: [{ name: 'tier', type: 'enum' }] });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(['body', 'collect', 0, 'values']);
    expect((await api.call(tenant, 'GET', `${BASE}/${body.data.id}`)).body.data.collect).toHaveLength(3);
  });

  it("answers 404 for another organisation's playbook on every operation, and changes nothing of it", async ({ api, tenant, create }) => {
    const { body } = await create(booking());
    const other = await api.tenant();
    for (const [method, payload] of [['GET'], ['PATCH', { enabled: false }], ['DELETE']] as const) {
      expect((await api.call(other, method, `${BASE}/${body.data.id}`, payload)).status).toBe(404);
    }
    expect((await api.call(tenant, 'GET', `${BASE}/${body.data.id}`)).body.data.enabled).toBe(true);
    expect((await api.call(other, 'GET', BASE)).body.data).toEqual([]);
    expect((await api.call(tenant, 'GET', `${BASE}/999999`)).status).toBe(404);
  });

  it("lets an assistant take the organisation's playbooks in order, and refuses another organisation's", async ({ api, tenant, create }) => {
    const first = (await create(booking())).body.data.id as number;
    const second = (await create(booking())).body.data.id as number;
    const ok = await api.call(tenant, 'POST', '/api/assistants', { name: 'With playbooks', playbook_ids: [second, first] });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.playbook_ids).toEqual([second, first]);
    const other = await api.tenant();
    const refused = await api.call(other, 'POST', '/api/assistants', { name: 'Not theirs', playbook_ids: [first] });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(['body', 'playbook_ids', 0]);
  });
});
