import { describe, expect } from 'vitest';
import { ERRORS } from '../../lib/errors.js';
import { SecretBox } from '../../lib/secret-box.js';
import { createAssistant } from '../../modules/assistants/service.js';
import { activeCalls } from '../../modules/calls/concurrency.js';
import { getOrganizationSettings, updateOrganizationSettings } from '../../modules/organizations/settings.js';
import { bootstrap } from '../../modules/organizations/bootstrap.js';
import { createPhoneConnection } from '../../modules/telephony/phone-connections.js';
import { createPhoneNumber } from '../../modules/telephony/phone-numbers.js';
import { initiateCall } from '../../modules/telephony/outbound-calls.js';
import { dbTest } from '../helpers/fixtures.js';

// An organisation's ceiling on simultaneous calls: counted from the database (every call not yet ended, inbound,
// outbound and web), enforced when an outbound call is initiated, under a lock that lets only one request take the
// last slot, organisation by organisation.

const secrets = new SecretBox(Buffer.alloc(32, 5));

async function organisation(prisma: Parameters<typeof bootstrap>[0], name: string) {
  const boot = await bootstrap(prisma, { organizationName: name, email: `owner@${name.toLowerCase()}.example` });
  const assistant = await createAssistant(prisma, { organizationId: boot.organization_id, userId: boot.user_id }, { name: 'Sales' } as never, secrets);
  const connection = await createPhoneConnection(prisma, secrets, boot.organization_id, { name: 'Trunk', sip_address: 'sip.carrier.example:5060' });
  await createPhoneNumber(prisma, boot.organization_id, {
    number: `+1415555${String(boot.organization_id).padStart(4, '0')}`,
    phone_connection_id: connection.id,
    label: null,
    assistant_id: assistant.id,
  });
  return boot.organization_id;
}

const it = dbTest.extend('acme', { scope: 'file' }, async ({ db }) => organisation(db.prisma, 'Acme'));
const dial = (n: number) => ({ to_phone_number: `+1202555${String(n).padStart(4, '0')}` });

describe('concurrent calls of an organisation', () => {
  it('are refused past max_concurrent_calls with the limit and the count, and admitted again when one ends', async ({ db, acme }) => {
    expect(await getOrganizationSettings(db.prisma, acme)).toMatchObject({ max_concurrent_calls: 10, active_calls: 0 });
    await updateOrganizationSettings(db.prisma, acme, { max_concurrent_calls: 2 });
    const first = await initiateCall(db.prisma, acme, dial(1), 'key-1');
    await initiateCall(db.prisma, acme, dial(2));
    const refused = await initiateCall(db.prisma, acme, dial(3)).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'concurrency_limit', data: { limit: 2, active: 2 } });
    expect(ERRORS.concurrency_limit).toBe('rate_limited');
    expect((refused as Error).message).toContain('max_concurrent_calls');
    // A retry of an admitted request is its call, not a new one.
    expect(await initiateCall(db.prisma, acme, dial(1), 'key-1')).toMatchObject({ call_sid: first.call_sid, created: false });
    // An inbound call in progress counts too.
    await db.prisma.call.updateMany({ where: { callSid: first.call_sid }, data: { status: 'completed' } });
    await db.prisma.call.create({ data: { callSid: 'CAinbound0001', organizationId: acme, direction: 'inbound', status: 'in_progress' } });
    expect(await activeCalls(db.prisma, acme)).toBe(2);
    await expect(initiateCall(db.prisma, acme, dial(4))).rejects.toMatchObject({ code: 'concurrency_limit' });
    await db.prisma.call.updateMany({ where: { callSid: 'CAinbound0001' }, data: { status: 'completed' } });
    expect((await initiateCall(db.prisma, acme, dial(5))).created).toBe(true);
    expect(await getOrganizationSettings(db.prisma, acme)).toMatchObject({ max_concurrent_calls: 2, active_calls: 2 });
  });

  it('let exactly one of several requests racing for the last slot take it', async ({ db }) => {
    const racer = await organisation(db.prisma, 'Racer');
    await updateOrganizationSettings(db.prisma, racer, { max_concurrent_calls: 3 });
    await initiateCall(db.prisma, racer, dial(10));
    await initiateCall(db.prisma, racer, dial(11));
    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => initiateCall(db.prisma, racer, dial(20 + i))));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.code)).toEqual(Array(5).fill('concurrency_limit'));
    expect(await activeCalls(db.prisma, racer)).toBe(3);
  });

  it("are counted per organisation: one's calls never take another's slots", async ({ db, acme }) => {
    const other = await organisation(db.prisma, 'Other');
    await updateOrganizationSettings(db.prisma, other, { max_concurrent_calls: 1 });
    expect(await activeCalls(db.prisma, acme)).toBeGreaterThan(0);
    expect((await initiateCall(db.prisma, other, dial(30))).created).toBe(true);
    await expect(initiateCall(db.prisma, other, dial(31))).rejects.toMatchObject({ code: 'concurrency_limit', data: { limit: 1, active: 1 } });
  });
});
