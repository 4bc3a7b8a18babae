import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callEndedPayload } from '../../shared/call-events.js';
import { recordEvent } from '../../shared/events.js';
import { createApiContext, type ApiContext, type Tenant } from '../helpers/api.js';

let api: ApiContext;
let acme: Tenant;

beforeAll(async () => {
  api = await createApiContext();
  acme = await api.tenant('Acme');
});
afterAll(async () => api.close());

describe('deleting a contact', () => {
  it('keeps its calls and their transcripts, with the number masked, the variables and the contact link gone, also in the events', async () => {
    const contact = (await api.call(acme, 'POST', '/api/contacts', { phone_number: '+14155550123', first_name: 'Ada', email: 'ada@example.com' })).body.data as { id: number };
    const inbound = await api.db.prisma.call.create({
      data: { callSid: 'CAdel00000000000000000000000000001', organizationId: acme.organizationId, contactId: contact.id, direction: 'inbound', status: 'completed', fromNumber: '+14155550123', toNumber: '+14155550100', variables: { first_name: 'Ada' } },
    });
    const outbound = await api.db.prisma.call.create({
      data: { callSid: 'CAdel00000000000000000000000000002', organizationId: acme.organizationId, contactId: contact.id, direction: 'outbound', status: 'completed', fromNumber: '+14155550100', toNumber: '+14155550123' },
    });
    const unrelated = await api.db.prisma.call.create({
      data: { callSid: 'CAdel00000000000000000000000000003', organizationId: acme.organizationId, direction: 'inbound', status: 'completed', fromNumber: '+14155550177', toNumber: '+14155550100' },
    });
    await api.db.prisma.callTurn.create({ data: { callId: inbound.id, position: 0, role: 'user', text: 'My name is Ada', startMs: 0, endMs: 900 } });
    await recordEvent(api.db.prisma, acme.organizationId, 'call.completed', { ...callEndedPayload(inbound, [], []) });

    expect((await api.call(acme, 'DELETE', `/api/contacts/${contact.id}`)).status).toBe(204);

    const after = await api.call(acme, 'GET', `/api/calls/${inbound.callSid}`);
    expect(after.body.data).toMatchObject({ from_number: '+*********23', to_number: '+14155550100', contact_id: null, variables: {} });
    expect((await api.call(acme, 'GET', `/api/calls/${outbound.callSid}`)).body.data).toMatchObject({ from_number: '+14155550100', to_number: '+*********23', contact_id: null });
    expect((await api.call(acme, 'GET', `/api/calls/${unrelated.callSid}`)).body.data.from_number).toBe('+14155550177');
    const transcript = await api.call(acme, 'GET', `/api/calls/${inbound.callSid}/transcript`);
    expect(transcript.body.data[0].text).toBe('My name is Ada');
    const event = await api.db.prisma.event.findFirstOrThrow({ where: { organizationId: acme.organizationId, type: 'call.completed' } });
    expect(event.payload).toMatchObject({ call_sid: inbound.callSid, from_number: '+*********23', contact_id: null });
    expect(JSON.stringify(await api.db.prisma.call.findMany())).not.toContain('+14155550123');
    expect((await api.call(acme, 'GET', `/api/contacts/${contact.id}`)).status).toBe(404);
  });

  it("answers 404 for another organisation's contact and leaves its calls untouched", async () => {
    const other = await api.tenant('Other');
    const theirs = (await api.call(other, 'POST', '/api/contacts', { phone_number: '+14155550124' })).body.data as { id: number };
    await api.db.prisma.call.create({
      data: { callSid: 'CAdel00000000000000000000000000004', organizationId: other.organizationId, contactId: theirs.id, direction: 'inbound', status: 'completed', fromNumber: '+14155550124' },
    });
    expect((await api.call(acme, 'DELETE', `/api/contacts/${theirs.id}`)).status).toBe(404);
    expect((await api.db.prisma.call.findUniqueOrThrow({ where: { callSid: 'CAdel00000000000000000000000000004' } })).fromNumber).toBe('+14155550124');
  });
});
