import { describe, expect } from 'vitest';
import { apiTest } from '../helpers/fixtures.js';

// The campaign resource: defaults, validation, the state machine and its 409s, what a running campaign may change,
// its contacts (by id, by filter, by CSV import with the import's per-row report), and tenancy. The dispatcher never
// dials here: campaigns that start are scheduled for later.

const ACCOUNT_SID = `AC${'0123456789abcdef'.repeat(2)}`;
const LATER = '2099-01-01T09:00:00Z';

const it = apiTest
  // A carrier path is configured (a public URL and an agent), so campaigns can start; its REST API is a closed port.
  .extend(
    'apiOptions',
    { scope: 'file' },
    {
      publicUrl: 'https://voice.example.com',
      carrierApiBaseUrl: 'http://127.0.0.1:9',
      callAudioRunner: {
        open: () => {
          throw new Error('no calls here');
        },
      },
    },
  )
  .extend('acme', { scope: 'file' }, async ({ api }) => {
    const tenant = await api.tenant('Acme');
    const assistant = await api.call(tenant, 'POST', '/api/assistants', { name: 'Caller' });
    const connection = await api.call(tenant, 'POST', '/api/phone-connections', {
      name: 'Twilio',
      kind: 'twilio',
      account_sid: ACCOUNT_SID,
      auth_token: 'token-1234567890',
    });
    await api.call(tenant, 'POST', '/api/phone-numbers', { number: '+14155550600', phone_connection_id: connection.body.data.id });
    await api.call(tenant, 'POST', '/api/phone-numbers', { number: '+14155550601', phone_connection_id: connection.body.data.id });
    return { tenant, assistantId: assistant.body.id as number };
  })
  .extend('other', { scope: 'file' }, async ({ api }) => api.tenant('Other'))
  .extend('campaign', { scope: 'file' }, async ({ api, acme }) => async (body: Record<string, unknown> = {}) => {
    const res = await api.call(acme.tenant, 'POST', '/api/campaigns', {
      name: 'Renewals',
      assistant_id: acme.assistantId,
      from_numbers: ['+14155550600'],
      ...body,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data as { id: number; state: string };
  })
  .extend('people', { scope: 'file' }, async ({ api, acme }) => {
    const ids: number[] = [];
    for (const [i, body] of [{ phone_number: '+14155550610' }, { phone_number: '+12125550611' }, { email: 'nophone@example.com' }].entries()) {
      const res = await api.call(acme.tenant, 'POST', '/api/contacts', { first_name: `P${i}`, ...body });
      ids.push(res.body.data.id);
    }
    return ids;
  });

describe('a campaign', () => {
  it('is created as a draft with a default for every setting', async ({ api, acme, campaign }) => {
    const created = await campaign();
    const res = await api.call(acme.tenant, 'GET', `/api/campaigns/${created.id}`);
    expect(res.body.data).toMatchObject({
      state: 'draft',
      state_reason: null,
      number_rotation: 'round_robin',
      schedule: {
        timezone: 'UTC',
        use_contact_timezone: true,
        windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '20:00' }],
        start_at: null,
        end_at: null,
      },
      pacing: { max_concurrent_calls: 5, calls_per_minute: 30, org_share: 0.8 },
      retry: {
        busy: { attempts: 2, delay_minutes: 15 },
        no_answer: { attempts: 2, delay_minutes: 60 },
        voicemail: { attempts: 1, delay_minutes: 240 },
        failed: { attempts: 1, delay_minutes: 30 },
      },
      voicemail: { detect: true, action: 'hang_up', message: null },
      circuit_breaker: { enabled: true, failure_ratio: 0.5, min_attempts: 10 },
      progress: { contacts: { total: 0, pending: 0 }, attempts: 0, calls_in_flight: 0, circuit_breaker: { state: 'closed' } },
    });
  });

  it('refuses bad settings with a 422 per field, and numbers or assistants of another organisation as unknown', async ({ api, acme, other }) => {
    const res = await api.call(acme.tenant, 'POST', '/api/campaigns', {
      name: 'Bad',
      assistant_id: acme.assistantId,
      from_numbers: ['+14155550600', '+14155550699'],
      schedule: { timezone: 'Mars/Olympus', windows: [{ days: ['mon'], start: '18:00', end: '09:00' }] },
      pacing: { max_concurrent_calls: 0 },
      voicemail: { action: 'leave_message' },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual(
      expect.arrayContaining([
        ['body', 'schedule', 'timezone'],
        ['body', 'schedule', 'windows', 0, 'end'],
        ['body', 'pacing', 'max_concurrent_calls'],
        ['body', 'voicemail', 'message'],
      ]),
    );
    const theirs = await api.call(other, 'POST', '/api/campaigns', { name: 'X', assistant_id: acme.assistantId, from_numbers: ['+14155550600'] });
    expect(theirs.status).toBe(422);
    expect(theirs.body.detail).toEqual([
      { loc: ['body', 'assistant_id'], msg: 'No such assistant', type: 'not_found' },
      { loc: ['body', 'from_numbers', 0], msg: "Value is not one of the organisation's managed numbers", type: 'not_managed_number' },
    ]);
  });

  it('moves draft → scheduled → paused → scheduled → cancelled, with 409 naming the state for anything else', async ({ api, acme, campaign, people }) => {
    const { id } = await campaign({ schedule: { start_at: LATER } });
    const post = (action: string) => api.call(acme.tenant, 'POST', `/api/campaigns/${id}/${action}`);
    expect((await post('start')).body).toMatchObject({ code: 'campaign_empty' });
    await api.call(acme.tenant, 'POST', `/api/campaigns/${id}/contacts`, { contact_ids: people });
    expect((await post('pause')).body).toMatchObject({ code: 'invalid_state', state: 'draft', message: `Campaign ${id} is draft: it cannot be paused` });
    expect((await post('start')).body.data.state).toBe('scheduled');
    expect((await post('start')).status).toBe(409);
    expect((await post('pause')).body.data.state).toBe('paused');
    expect((await post('resume')).body.data.state).toBe('scheduled');
    expect((await api.call(acme.tenant, 'DELETE', `/api/campaigns/${id}`)).status).toBe(409);
    const cancelled = await post('cancel');
    expect(cancelled.body.data).toMatchObject({ state: 'cancelled', progress: { contacts: { skipped: 2, pending: 0 } } });
    expect((await post('resume')).body).toMatchObject({ code: 'invalid_state', state: 'cancelled' });
    expect(
      (await api.call(acme.tenant, 'PUT', `/api/campaigns/${id}`, { name: 'Again', assistant_id: acme.assistantId, from_numbers: ['+14155550600'] })).status,
    ).toBe(409);
    const events = (await api.db.prisma.event.findMany({ where: { organizationId: acme.tenant.organizationId }, orderBy: { createdAt: 'asc' } })).filter(
      (e) => (e.payload as { campaign_id?: number }).campaign_id === id,
    );
    expect(events.map((e) => [e.type, (e.payload as { reason?: string }).reason])).toEqual([
      ['campaign.paused', 'requested'],
      ['campaign.completed', 'cancelled'],
    ]);
  });

  it('takes new schedule and pacing while running, and refuses other changes until paused', async ({ api, acme, campaign, people }) => {
    const { id } = await campaign({ schedule: { windows: [{ days: ['sun'], start: '00:00', end: '00:01' }] } });
    await api.call(acme.tenant, 'POST', `/api/campaigns/${id}/contacts`, { contact_ids: people });
    // Running now, with nobody inside the one-minute window: nothing is dialled.
    const moved = await api.db.prisma.campaign.update({ where: { id }, data: { state: 'running' } });
    const base = { name: moved.name, assistant_id: acme.assistantId, from_numbers: ['+14155550600'] };
    const paced = await api.call(acme.tenant, 'PUT', `/api/campaigns/${id}`, {
      ...base,
      pacing: { max_concurrent_calls: 2 },
      schedule: { windows: [{ days: ['sat'], start: '00:00', end: '00:01' }] },
    });
    expect(paced.status, JSON.stringify(paced.body)).toBe(200);
    expect(paced.body.data.pacing.max_concurrent_calls).toBe(2);
    const renamed = await api.call(acme.tenant, 'PUT', `/api/campaigns/${id}`, { ...base, name: 'Other name', from_numbers: ['+14155550601'] });
    expect(renamed.status).toBe(409);
    expect(renamed.body).toMatchObject({ code: 'invalid_state', state: 'running', fields: ['name', 'from_numbers'] });
  });

  it("deletes a draft, and answers 404 for another organisation's campaign exactly as for none", async ({ api, acme, other, campaign }) => {
    const { id } = await campaign();
    const theirs = await api.call(other, 'GET', `/api/campaigns/${id}`);
    const none = await api.call(other, 'GET', '/api/campaigns/999999');
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual(none.body);
    for (const [method, path] of [
      ['POST', `/api/campaigns/${id}/start`],
      ['GET', `/api/campaigns/${id}/progress`],
      ['DELETE', `/api/campaigns/${id}`],
      ['GET', `/api/campaigns/${id}/contacts`],
    ] as const) {
      expect((await api.call(other, method, path)).status).toBe(404);
    }
    expect((await api.call(acme.tenant, 'DELETE', `/api/campaigns/${id}`)).status).toBe(204);
    expect((await api.call(acme.tenant, 'GET', `/api/campaigns/${id}`)).status).toBe(404);
  });
});

describe("a campaign's contacts", () => {
  it('are added by id and by filter once each, leaving out those without a phone and reporting ids nobody has', async ({
    api,
    acme,
    other,
    campaign,
    people,
  }) => {
    const { id } = await campaign();
    const foreign = await api.call(other, 'POST', '/api/contacts', { phone_number: '+14155550699' });
    const byId = await api.call(acme.tenant, 'POST', `/api/campaigns/${id}/contacts`, { contact_ids: [people[0], people[2], foreign.body.data.id] });
    expect(byId.body.data).toEqual({ added: 1, already_in: 0, without_phone: 1, not_found: [foreign.body.data.id] });
    const byFilter = await api.call(acme.tenant, 'POST', `/api/campaigns/${id}/contacts`, { filter: { has_phone: true } });
    expect(byFilter.body.data).toEqual({ added: 1, already_in: 1, without_phone: 0, not_found: [] });
    const listed = await api.call(acme.tenant, 'GET', `/api/contacts?campaign_id=${id}`);
    expect(listed.body.data.map((c: { id: number }) => c.id).sort()).toEqual([people[0], people[1]].sort());
    const contacts = await api.call(acme.tenant, 'GET', `/api/campaigns/${id}/contacts`);
    expect(contacts.body.data.map((c: { state: string; attempts: number }) => [c.state, c.attempts])).toEqual([
      ['pending', 0],
      ['pending', 0],
    ]);
    expect((await api.call(acme.tenant, 'POST', `/api/campaigns/${id}/contacts`, {})).status).toBe(422);
  });

  it('are imported from CSV through the contacts import, with its per-row report and the var columns as variables', async ({ api, acme, campaign }) => {
    const { id } = await campaign();
    const csv =
      'first_name,phone_number,email,var.plan\nAda,+14155550620,ada@example.com,gold\nBad,not-a-number,,silver\nBob,+14155550621,,\nNo phone,,nophone2@example.com,bronze\n';
    const res = await api.app.inject({
      method: 'POST',
      url: `/api/campaigns/${id}/contacts/import`,
      headers: { authorization: `Bearer ${acme.tenant.key}`, 'content-type': 'text/csv' },
      payload: csv,
    });
    expect(res.statusCode, res.body).toBe(200);
    const report = JSON.parse(res.body).data;
    expect(report).toMatchObject({ total: 4, created: 3, invalid: 1, added: 2, already_in: 0, without_phone: 1 });
    expect(report.rows[1]).toMatchObject({ index: 1, status: 'invalid' });
    const contacts = (await api.call(acme.tenant, 'GET', `/api/campaigns/${id}/contacts`)).body.data as Array<{
      phone_number: string;
      variables: Record<string, string>;
    }>;
    expect(contacts.map((c) => [c.phone_number, c.variables])).toEqual([
      ['+14155550620', { plan: 'gold' }],
      ['+14155550621', {}],
    ]);
  });
});
