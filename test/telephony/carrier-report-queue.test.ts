import crypto from 'node:crypto';
import { describe, expect } from 'vitest';
import { bootstrap } from '../../modules/organizations/bootstrap.js';
import { applyDueReports, storeCarrierReport } from '../../modules/telephony/carrier-reports.js';
import type { PrismaClient } from '../../prisma/client.js';
import { dbTest as it } from '../helpers/fixtures.js';

// A carrier callback is acknowledged once stored; applying it can fail (a busy database) or its process can die
// before it does. The queue any process runs applies what is left, in the order it arrived, and keeps what fails.

const quiet = { warn: () => {}, error: () => {} };

async function ringingCall(prisma: PrismaClient) {
  const boot = await bootstrap(prisma, { organizationName: 'Reports', email: `reports-${crypto.randomUUID()}@example.com` });
  return prisma.call.create({
    data: {
      callSid: `CA${crypto.randomBytes(16).toString('hex')}`,
      organizationId: boot.organization_id,
      direction: 'outbound',
      transport: 'media_stream',
      status: 'ringing',
      providerCallSid: `CA${crypto.randomBytes(16).toString('hex')}`,
      toNumber: '+14155550199',
      variables: {},
    },
  });
}

/** Makes every stored report due now, as the passing of its retry delay does. */
const makeDue = (prisma: PrismaClient) => prisma.carrierReport.updateMany({ data: { nextAttemptAt: new Date(0) } });

describe('the queue of carrier reports', () => {
  it('applies a report whose process died after storing it, ending the call, and deletes it', async ({ db }) => {
    const call = await ringingCall(db.prisma);
    await storeCarrierReport(db.prisma, call.id, { providerCallSid: call.providerCallSid!, state: 'no_answer' });
    // Not due yet: the process that stored it is given the first attempt.
    expect(await applyDueReports(db.prisma, quiet)).toBe(false);
    expect((await db.prisma.call.findUniqueOrThrow({ where: { id: call.id } })).status).toBe('ringing');
    await makeDue(db.prisma);
    await applyDueReports(db.prisma, quiet);
    expect(await db.prisma.call.findUniqueOrThrow({ where: { id: call.id } })).toMatchObject({ status: 'no_answer', endReason: 'no_answer' });
    expect(await db.prisma.carrierReport.count()).toBe(0);
    expect(await db.prisma.event.count({ where: { type: 'call.completed', payload: { path: ['call_sid'], equals: call.callSid } } })).toBe(1);
  });

  it('applies reports in the order they arrived, so a late ringing does not undo a busy', async ({ db }) => {
    const call = await ringingCall(db.prisma);
    await storeCarrierReport(db.prisma, call.id, { providerCallSid: call.providerCallSid!, state: 'busy' });
    await storeCarrierReport(db.prisma, call.id, { providerCallSid: call.providerCallSid!, state: 'ringing' });
    await makeDue(db.prisma);
    await applyDueReports(db.prisma, quiet);
    expect(await db.prisma.call.findUniqueOrThrow({ where: { id: call.id } })).toMatchObject({ status: 'busy', endReason: 'busy' });
  });

  it('keeps a report it could not apply, pushes its next attempt back, and applies it on a later pass', async ({ db }) => {
    const call = await ringingCall(db.prisma);
    await storeCarrierReport(db.prisma, call.id, { providerCallSid: call.providerCallSid!, state: 'canceled' });
    await makeDue(db.prisma);
    // The call's end cannot be written: the database refuses it, as it does when a statement times out.
    await db.prisma.$executeRawUnsafe(`
      CREATE FUNCTION refuse_call_end() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'canceling statement due to statement timeout'; END $$ LANGUAGE plpgsql;
      CREATE TRIGGER refuse_call_end BEFORE UPDATE OF status ON calls FOR EACH ROW EXECUTE FUNCTION refuse_call_end();`);
    const warned: unknown[] = [];
    try {
      await applyDueReports(db.prisma, { warn: (fields: unknown) => warned.push(fields), error: () => {} } as never);
    } finally {
      await db.prisma.$executeRawUnsafe('DROP TRIGGER refuse_call_end ON calls; DROP FUNCTION refuse_call_end();');
    }
    expect(warned).toEqual([expect.objectContaining({ callId: call.id, state: 'canceled', attempts: 1 })]);
    const kept = await db.prisma.carrierReport.findFirstOrThrow({ where: { callId: call.id } });
    expect(kept.attempts).toBe(1);
    expect(kept.nextAttemptAt.getTime()).toBeGreaterThan(Date.now());
    expect((await db.prisma.call.findUniqueOrThrow({ where: { id: call.id } })).status).toBe('ringing');
    await makeDue(db.prisma);
    await applyDueReports(db.prisma, quiet);
    expect(await db.prisma.call.findUniqueOrThrow({ where: { id: call.id } })).toMatchObject({ status: 'canceled', endReason: 'canceled' });
    expect(await db.prisma.carrierReport.count({ where: { callId: call.id } })).toBe(0);
  });
});
