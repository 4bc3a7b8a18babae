import crypto from 'node:crypto';
import { describe, expect } from 'vitest';
import { bootstrap } from '../../modules/organizations/index.js';
import { awaitWarmTransferOutcome, emitWarmTransfer, moveWarmTransfer, openWarmTransfer } from '../../modules/telephony/index.js';
import { dbTest } from '../helpers/fixtures.js';

// The wait of a call whose assistant consults a person (agent/call/line-tools.ts): it learns the consultation's outcome
// from its row, told by the change feed, or by reading the row itself when nobody tells it.

const it = dbTest.extend('callId', { scope: 'file' }, async ({ db }) => {
  const boot = await bootstrap(db.prisma, { organizationName: 'Acme', email: 'owner@acme.example' });
  const call = await db.prisma.call.create({
    data: { callSid: `CA${crypto.randomBytes(16).toString('hex')}`, organizationId: boot.organization_id, direction: 'inbound', status: 'in_progress' },
  });
  return call.id;
});

describe('a waiting warm transfer', () => {
  it('learns an outcome written without a notification (no change feed in this process, or one lost) by reading its row', async ({ db, callId }) => {
    const row = await openWarmTransfer(db.prisma, callId);
    // The real database, with each read of the row counted: the outcome is written only once the wait's first read
    // has seen the consultation still open, so that only a later read of its own can find it.
    let reads = 0;
    let firstRead!: () => void;
    const firstReadDone = new Promise<void>((resolve) => (firstRead = resolve));
    const counted = {
      warmTransfer: {
        findUnique: async (args: Parameters<typeof db.prisma.warmTransfer.findUnique>[0]) => {
          const found = await db.prisma.warmTransfer.findUnique(args);
          if (++reads === 1) firstRead();
          return found;
        },
      },
    } as unknown as typeof db.prisma;
    const outcome = awaitWarmTransferOutcome(counted, row.token, new AbortController().signal);
    await firstReadDone;
    // Written as another process would, but its NOTIFY never arrives here: nothing calls emitWarmTransfer.
    await db.prisma.warmTransfer.update({ where: { id: row.id }, data: { state: 'accepted' } });
    await expect(outcome).resolves.toMatchObject({ token: row.token, state: 'accepted' });
    expect(reads).toBeGreaterThanOrEqual(2);
  });

  it('is told by the change feed, and answers the outcome with who answered, not the answered step', async ({ db, callId }) => {
    const row = await openWarmTransfer(db.prisma, callId);
    const outcome = awaitWarmTransferOutcome(db.prisma, row.token, new AbortController().signal);
    expect(await moveWarmTransfer(db.prisma, row.token, 'answered', 'human')).toBe(true);
    emitWarmTransfer(row.token);
    expect(await moveWarmTransfer(db.prisma, row.token, 'declined')).toBe(true);
    emitWarmTransfer(row.token);
    await expect(outcome).resolves.toMatchObject({ state: 'declined', answeredBy: 'human' });
    // The first word on a consultation stands: a key pressed after it was declined changes nothing.
    expect(await moveWarmTransfer(db.prisma, row.token, 'accepted')).toBe(false);
  });

  it('answers undefined when the call gives up first, and a later outcome is left alone', async ({ db, callId }) => {
    const row = await openWarmTransfer(db.prisma, callId);
    const controller = new AbortController();
    const outcome = awaitWarmTransferOutcome(db.prisma, row.token, controller.signal);
    controller.abort();
    await expect(outcome).resolves.toBeUndefined();
    expect(await moveWarmTransfer(db.prisma, row.token, 'no_answer')).toBe(true);
    emitWarmTransfer(row.token);
  });
});
