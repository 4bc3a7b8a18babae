import { describe, expect } from 'vitest';
import type { Tenant } from '../helpers/api.js';
import { apiTest } from '../helpers/fixtures.js';

const it = apiTest
  .extend('acme', { scope: 'file' }, async ({ api }) => api.tenant('Acme'))
  .extend('other', { scope: 'file' }, async ({ api }) => api.tenant('Other'))
  .extend('connection', { scope: 'file' }, async ({ api }) => async (tenant: Tenant, body: Record<string, unknown> = {}) => {
    const res = await api.call(tenant, 'POST', '/api/phone-connections', { name: 'Carrier', sip_address: 'sip.carrier.example:5060', username: 'acme', password: 'very-secret-password', ...body });
    expect(res.status).toBe(201);
    return res.body.data as { id: number };
  });

describe('phone connections', () => {
  it('creates a SIP trunk with defaults and shows the password only as a mask', async ({ api, acme }) => {
    const res = await api.call(acme, 'POST', '/api/phone-connections', { name: 'Main', sip_address: 'sip.carrier.example', password: 'very-secret-password' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ name: 'Main', sip_address: 'sip.carrier.example', sip_transport: 'udp', username: null, password: '****word', livekit_trunk_id: null, numbers: [] });
    expect(JSON.stringify(res.body)).not.toContain('very-secret-password');
  });

  it('keeps the stored password when the mask is sent back, and replaces it when a new one is sent', async ({ api, acme, connection }) => {
    const { id } = await connection(acme);
    const kept = await api.call(acme, 'PATCH', `/api/phone-connections/${id}`, { name: 'Renamed', password: '****word' });
    expect(kept.body.data).toMatchObject({ name: 'Renamed', password: '****word' });
    expect((await api.db.prisma.phoneConnection.findUniqueOrThrow({ where: { id } })).password).toBe('very-secret-password');
    await api.call(acme, 'PATCH', `/api/phone-connections/${id}`, { password: 'another-long-secret' });
    expect((await api.db.prisma.phoneConnection.findUniqueOrThrow({ where: { id } })).password).toBe('another-long-secret');
  });

  it('refuses a bad address, transport or trunk id with the 422 of each field', async ({ api, acme }) => {
    const res = await api.call(acme, 'POST', '/api/phone-connections', { name: 'X', sip_address: 'sip:bad address', sip_transport: 'ws', livekit_trunk_id: 'trunk-1' });
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
    const res = await api.call(acme, 'POST', '/api/phone-numbers', { number: '+14155550101', phone_connection_id: conn.id, assistant_id: assistant.body.id, label: 'Front desk' });
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
