import { describe, expect } from 'vitest';
import { openInboundCall } from '../../modules/calls/lifecycle.js';
import { apiTest } from '../helpers/fixtures.js';

const it = apiTest.extend('acme', { scope: 'file' }, async ({ api }) => api.tenant('Acme'));

let assistantId: number;

it.beforeAll(async ({ api, acme }) => {
  assistantId = (await api.call(acme, 'POST', '/api/assistants', { name: 'Reception' })).body.id;
  const conn = await api.call(acme, 'POST', '/api/phone-connections', { name: 'Carrier', sip_address: 'sip.carrier.example' });
  await api.call(acme, 'POST', '/api/phone-numbers', { number: '+14155550200', phone_connection_id: conn.body.data.id, assistant_id: assistantId });
  await api.call(acme, 'POST', '/api/phone-numbers', { number: '+14155550201', phone_connection_id: conn.body.data.id });
});

describe('an inbound call on a managed number', () => {
  it("runs the number's assistant and creates the caller's contact, once however many calls arrive together", async ({ api, acme }) => {
    const calls = await Promise.all(
      [1, 2, 3].map(() =>
        openInboundCall(api.db.prisma, {
          toNumber: '+14155550200',
          fromNumber: '+14155550123',
          transport: 'sip',
          providerCallSid: 'SCL_1',
          livekitRoom: 'room-1',
        }),
      ),
    );
    const contacts = await api.db.prisma.contact.findMany({ where: { organizationId: acme.organizationId, phoneNumber: '+14155550123' } });
    expect(contacts).toHaveLength(1);
    expect(contacts[0]).toMatchObject({ source: 'inbound_call' });
    for (const result of calls) {
      if (!('call' in result)) throw new Error('call refused');
      expect(result.call).toMatchObject({
        organizationId: acme.organizationId,
        assistantId,
        contactId: contacts[0]!.id,
        direction: 'inbound',
        transport: 'sip',
        status: 'ringing',
        fromNumber: '+14155550123',
        toNumber: '+14155550200',
        providerCallSid: 'SCL_1',
        livekitRoom: 'room-1',
      });
    }
  });

  it("links a caller the organisation already knows to that contact, reading a national number in the organisation's region", async ({ api, acme }) => {
    const known = await api.call(acme, 'POST', '/api/contacts', { phone_number: '+14155550124', first_name: 'Ada' });
    const result = await openInboundCall(api.db.prisma, { toNumber: '+14155550200', fromNumber: '(415) 555-0124', transport: 'media_stream' });
    expect('call' in result && result.call.contactId).toBe(known.body.data.id);
    expect(await api.db.prisma.contact.count({ where: { organizationId: acme.organizationId, phoneNumber: '+14155550124' } })).toBe(1);
  });

  it('takes a withheld number without creating a contact', async ({ api }) => {
    const result = await openInboundCall(api.db.prisma, { toNumber: '+14155550200', fromNumber: 'anonymous', transport: 'sip' });
    expect('call' in result && result.call).toMatchObject({ contactId: null, fromNumber: 'anonymous' });
  });

  it('is refused, creating nothing, on a number nobody manages or one without an assistant', async ({ api }) => {
    const before = { calls: await api.db.prisma.call.count(), contacts: await api.db.prisma.contact.count() };
    expect(await openInboundCall(api.db.prisma, { toNumber: '+14155550299', fromNumber: '+14155550125', transport: 'sip' })).toEqual({
      rejected: 'unknown_number',
    });
    expect(await openInboundCall(api.db.prisma, { toNumber: '+14155550201', fromNumber: '+14155550125', transport: 'sip' })).toEqual({
      rejected: 'no_assistant',
    });
    expect({ calls: await api.db.prisma.call.count(), contacts: await api.db.prisma.contact.count() }).toEqual(before);
  });
});
