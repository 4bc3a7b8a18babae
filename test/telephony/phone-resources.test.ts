import { describe, expect } from 'vitest';
import type { Tenant } from '../helpers/api.js';
import { apiTest } from '../helpers/fixtures.js';
import { isSealed } from '../../lib/secrets.js';

const ACCOUNT_SID = `AC${'0123456789abcdef'.repeat(2)}`;

const it = apiTest
  .extend('acme', { scope: 'file' }, async ({ api }) => api.tenant('Acme'))
  .extend('other', { scope: 'file' }, async ({ api }) => api.tenant('Other'))
  .extend('connection', { scope: 'file' }, async ({ api }) => async (tenant: Tenant, body: Record<string, unknown> = {}) => {
    const res = await api.call(tenant, 'POST', '/api/phone-connections', {
      name: 'Carrier',
      sip_address: 'sip.carrier.example:5060',
      username: 'acme',
      password: 'very-secret-password',
      ...body,
    });
    expect(res.status).toBe(201);
    return res.body.data as { id: number };
  });

describe('phone connections', () => {
  it('creates a SIP trunk with defaults and shows the password only as a mask', async ({ api, acme }) => {
    const res = await api.call(acme, 'POST', '/api/phone-connections', { name: 'Main', sip_address: 'sip.carrier.example', password: 'very-secret-password' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      name: 'Main',
      sip_address: 'sip.carrier.example',
      sip_transport: 'udp',
      username: null,
      password: '****word',
      livekit_trunk_id: null,
      numbers: [],
    });
    expect(JSON.stringify(res.body)).not.toContain('very-secret-password');
  });

  it('keeps the stored password when the mask is sent back, and replaces it when a new one is sent', async ({ api, acme, connection }) => {
    const { id } = await connection(acme);
    const kept = await api.call(acme, 'PATCH', `/api/phone-connections/${id}`, { name: 'Renamed', password: '****word' });
    expect(kept.body.data).toMatchObject({ name: 'Renamed', password: '****word' });
    const stored = (await api.db.prisma.phoneConnection.findUniqueOrThrow({ where: { id } })).password!;
    await api.call(acme, 'PATCH', `/api/phone-connections/${id}`, { password: 'another-long-secret' });
    const replaced = await api.call(acme, 'GET', `/api/phone-connections/${id}`);
    expect(replaced.body.data.password).toBe('****cret');
    // Stored sealed, never in the clear, and a new password is a new sealed value.
    const restored = (await api.db.prisma.phoneConnection.findUniqueOrThrow({ where: { id } })).password!;
    expect(isSealed(stored) && isSealed(restored)).toBe(true);
    expect(restored).not.toBe(stored);
    expect(stored + restored).not.toContain('secret');
  });

  it('creates a carrier connection with its account SID and a write-only auth token, sealed at rest', async ({ api, acme }) => {
    const res = await api.call(acme, 'POST', '/api/phone-connections', {
      name: 'Twilio',
      kind: 'twilio',
      account_sid: ACCOUNT_SID,
      auth_token: 'carrier-auth-token-0001',
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      kind: 'twilio',
      account_sid: ACCOUNT_SID,
      auth_token: '****0001',
      sip_address: null,
      sip_transport: null,
      password: null,
    });
    const row = await api.db.prisma.phoneConnection.findUniqueOrThrow({ where: { id: res.body.data.id } });
    expect(isSealed(row.authToken!)).toBe(true);
    expect(JSON.stringify(res.body) + row.authToken).not.toContain('carrier-auth-token-0001');
    // The mask sent back keeps the token; a new token replaces it.
    const kept = await api.call(acme, 'PATCH', `/api/phone-connections/${res.body.data.id}`, { name: 'Twilio main', auth_token: '****0001' });
    expect(kept.body.data).toMatchObject({ name: 'Twilio main', auth_token: '****0001' });
    expect((await api.db.prisma.phoneConnection.findUniqueOrThrow({ where: { id: row.id } })).authToken).toBe(row.authToken);
  });

  it("refuses a connection's fields of the other kind, and a carrier connection without its account, with a 422 per field", async ({
    api,
    acme,
    connection,
  }) => {
    const incomplete = await api.call(acme, 'POST', '/api/phone-connections', { name: 'T', kind: 'twilio', sip_address: 'sip.example', account_sid: 'AC123' });
    expect(incomplete.status).toBe(422);
    expect(incomplete.body.detail.map((d: { loc: unknown[]; type: string }) => [d.loc, d.type])).toEqual([
      [['body', 'account_sid'], 'string_pattern_mismatch'],
      [['body', 'sip_address'], 'extra_forbidden'],
      [['body', 'auth_token'], 'missing'],
    ]);
    const mixed = await api.call(acme, 'POST', '/api/phone-connections', { name: 'T', kind: 'twilio', sip_address: 'sip.example', account_sid: ACCOUNT_SID });
    expect(mixed.status).toBe(422);
    expect(mixed.body.detail.map((d: { loc: unknown[]; type: string }) => [d.loc, d.type])).toEqual([
      [['body', 'sip_address'], 'extra_forbidden'],
      [['body', 'auth_token'], 'missing'],
    ]);
    const noAddress = await api.call(acme, 'POST', '/api/phone-connections', { name: 'S' });
    expect(noAddress.body.detail).toEqual([{ loc: ['body', 'sip_address'], msg: 'Field required for sip connections', type: 'missing' }]);
    // A SIP trunk takes no carrier account, and its kind does not change.
    const { id } = await connection(acme);
    const patched = await api.call(acme, 'PATCH', `/api/phone-connections/${id}`, { account_sid: ACCOUNT_SID });
    expect(patched.status).toBe(422);
    expect(patched.body.detail).toEqual([{ loc: ['body', 'account_sid'], msg: 'Not used by sip connections', type: 'extra_forbidden' }]);
    expect((await api.call(acme, 'PATCH', `/api/phone-connections/${id}`, { kind: 'twilio' })).status).toBe(422);
    expect(await api.db.prisma.phoneConnection.count({ where: { organizationId: acme.organizationId, kind: 'twilio', name: 'T' } })).toBe(0);
  });

  it('refuses a bad address, transport or trunk id with the 422 of each field', async ({ api, acme }) => {
    const res = await api.call(acme, 'POST', '/api/phone-connections', {
      name: 'X',
      sip_address: 'sip:bad address',
      sip_transport: 'ws',
      livekit_trunk_id: 'trunk-1',
    });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual(
      expect.arrayContaining([
        ['body', 'sip_address'],
        ['body', 'sip_transport'],
        ['body', 'livekit_trunk_id'],
      ]),
    );
  });

  it("answers 404 for another organisation's connection, exactly as for a missing one", async ({ api, acme, other, connection }) => {
    const { id } = await connection(acme);
    const theirs = await api.call(other, 'GET', `/api/phone-connections/${id}`);
    const missing = await api.call(other, 'GET', '/api/phone-connections/999999');
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual(missing.body);
    expect((await api.call(other, 'DELETE', `/api/phone-connections/${id}`)).status).toBe(404);
    expect((await api.call(other, 'GET', '/api/phone-connections')).body.data.map((c: { id: number }) => c.id)).not.toContain(id);
  });
});

describe('managed phone numbers', () => {
  it('adds a number on a connection with its assistant, and lists it on the connection', async ({ api, acme, connection }) => {
    const conn = await connection(acme);
    const assistant = await api.call(acme, 'POST', '/api/assistants', { name: 'Desk' });
    const res = await api.call(acme, 'POST', '/api/phone-numbers', {
      number: '+14155550101',
      phone_connection_id: conn.id,
      assistant_id: assistant.body.id,
      label: 'Front desk',
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ number: '+14155550101', phone_connection_id: conn.id, assistant_id: assistant.body.id, label: 'Front desk' });
    expect((await api.call(acme, 'GET', `/api/phone-connections/${conn.id}`)).body.data.numbers).toEqual(['+14155550101']);
    const cleared = await api.call(acme, 'PATCH', `/api/phone-numbers/${res.body.data.id}`, { assistant_id: null });
    expect(cleared.body.data.assistant_id).toBeNull();
  });

  it('refuses a number that is not E.164 and references to rows the organisation does not have', async ({ api, acme, other, connection }) => {
    const conn = await connection(other);
    const assistant = await api.call(other, 'POST', '/api/assistants', { name: 'Theirs' });
    const res = await api.call(acme, 'POST', '/api/phone-numbers', { number: '415 555 0102', phone_connection_id: conn.id, assistant_id: assistant.body.id });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([['body', 'number']]);
    const refs = await api.call(acme, 'POST', '/api/phone-numbers', { number: '+14155550102', phone_connection_id: conn.id, assistant_id: assistant.body.id });
    expect(refs.status).toBe(422);
    expect(refs.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
      ['body', 'phone_connection_id'],
      ['body', 'assistant_id'],
    ]);
    expect(await api.db.prisma.phoneNumber.count({ where: { number: '+14155550102' } })).toBe(0);
  });

  it('registers a number once on the whole platform: a second organisation gets 409 without learning whose it is', async ({ api, acme, other, connection }) => {
    const mine = await connection(acme);
    const theirs = await connection(other);
    expect((await api.call(acme, 'POST', '/api/phone-numbers', { number: '+14155550103', phone_connection_id: mine.id })).status).toBe(201);
    const again = await api.call(other, 'POST', '/api/phone-numbers', { number: '+14155550103', phone_connection_id: theirs.id });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('This number is already registered');
  });

  it('deletes the numbers with their connection', async ({ api, acme, connection }) => {
    const conn = await connection(acme);
    const num = await api.call(acme, 'POST', '/api/phone-numbers', { number: '+14155550104', phone_connection_id: conn.id });
    expect((await api.call(acme, 'DELETE', `/api/phone-connections/${conn.id}`)).status).toBe(204);
    expect((await api.call(acme, 'GET', `/api/phone-numbers/${num.body.data.id}`)).status).toBe(404);
  });
});
