import crypto from 'node:crypto';
import { describe, expect } from 'vitest';
import { SecretBox } from '../../lib/secret-box.js';
import { bootstrap } from '../../modules/organizations/bootstrap.js';
import { consultTrunkOfCall } from '../../modules/telephony/livekit-consult-trunk.js';
import { createPhoneConnection } from '../../modules/telephony/phone-connections.js';
import { dbTest as it } from '../helpers/fixtures.js';

// The trunk a LiveKit SIP call's warm transfer dials the person through: its number's connection, with the stored
// password opened, from the number the caller called (or the outbound call's own).

describe('the trunk of a warm transfer on LiveKit SIP', () => {
  it('is the call’s number’s SIP connection, from our own number in either direction, and none without one', async ({ db }) => {
    const secrets = new SecretBox(crypto.randomBytes(32));
    const org = await bootstrap(db.prisma, { organizationName: 'Trunks', email: 'trunks@example.com' });
    const organizationId = org.organization_id;
    const provisioned = await createPhoneConnection(db.prisma, secrets, organizationId, { name: 'LiveKit', livekit_trunk_id: 'ST_desk' });
    const inline = await createPhoneConnection(db.prisma, secrets, organizationId, {
      name: 'Inline',
      sip_address: 'sip.carrier.example',
      sip_transport: 'tls',
      username: 'acme',
      password: 'trunk-secret',
    });
    const carrier = await db.prisma.phoneConnection.create({ data: { organizationId, name: 'Carrier', kind: 'twilio', accountSid: 'AC1' } });
    const number = (phoneConnectionId: number, n: string) => db.prisma.phoneNumber.create({ data: { organizationId, phoneConnectionId, number: n } });
    const [a, b, c] = [await number(provisioned.id, '+14155550501'), await number(inline.id, '+14155550502'), await number(carrier.id, '+14155550503')];
    const call = (phoneNumberId: number | null, direction: 'inbound' | 'outbound', ours: string) =>
      db.prisma.call.create({
        data: {
          callSid: `CA${crypto.randomBytes(6).toString('hex')}`,
          organizationId,
          direction,
          phoneNumberId,
          fromNumber: direction === 'inbound' ? '+14155550999' : ours,
          toNumber: direction === 'inbound' ? ours : '+14155550999',
        },
      });

    const inbound = await call(a.id, 'inbound', a.number);
    expect(await consultTrunkOfCall(db.prisma, secrets, { callId: inbound.id })).toEqual({
      from: '+14155550501',
      trunk: { livekitTrunkId: 'ST_desk', sipAddress: '', sipTransport: 'udp', username: null, password: null },
    });
    const outbound = await call(b.id, 'outbound', b.number);
    expect(await consultTrunkOfCall(db.prisma, secrets, { callSid: outbound.callSid })).toEqual({
      from: '+14155550502',
      trunk: { livekitTrunkId: null, sipAddress: 'sip.carrier.example', sipTransport: 'tls', username: 'acme', password: 'trunk-secret' },
    });
    expect(await consultTrunkOfCall(db.prisma, secrets, { callId: (await call(c.id, 'inbound', c.number)).id })).toBeNull();
    expect(await consultTrunkOfCall(db.prisma, secrets, { callId: (await call(null, 'inbound', '+14155550504')).id })).toBeNull();
    expect(await consultTrunkOfCall(db.prisma, secrets, {})).toBeNull();
  });
});
