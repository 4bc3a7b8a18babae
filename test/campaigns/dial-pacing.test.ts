import { describe, expect } from 'vitest';
import { campaignDialPacing } from '../../modules/campaigns/dial-pacing.js';
import { claimNextOutboundCall, queueOutboundCall } from '../../modules/calls/lifecycle.js';
import { createPrismaClient, type PrismaClient } from '../../prisma/client.js';
import { dbTest as it } from '../helpers/fixtures.js';
import { ALWAYS, campaignWorld } from './campaign-world.js';

// A campaign's calls per minute hold where the dial leaves: at the dialler's claim, whichever process claims. Calls
// queued over several minutes (a backlog behind busy dial slots) do not go out together, and a second process joining
// does not double the rate.

async function queued(
  prisma: PrismaClient,
  world: { organizationId: number; campaignId: number },
  count: number,
  campaignId: number | null = world.campaignId,
) {
  const assistant = await prisma.assistant.findFirstOrThrow({ where: { organizationId: world.organizationId } });
  const number = await prisma.phoneNumber.findFirstOrThrow({ where: { organizationId: world.organizationId } });
  for (let i = 0; i < count; i++) {
    await queueOutboundCall(prisma, {
      organizationId: world.organizationId,
      assistantId: assistant.id,
      contactId: null,
      phoneNumberId: number.id,
      fromNumber: number.number,
      toNumber: `+1415555${String(1000 + i)}`,
      welcomeMessage: null,
      variables: {},
      idempotencyKey: null,
      idempotencyHash: null,
      ...(campaignId === null ? {} : { campaignId }),
    });
  }
}

/** Claims until nothing more may be dialled, from several processes at once; answers the ids claimed. */
async function claimAll(clients: PrismaClient[]): Promise<number[]> {
  const claimed: number[] = [];
  await Promise.all(
    clients.map(async (client) => {
      for (
        let id = await claimNextOutboundCall(client, ['sip'], campaignDialPacing);
        id !== null;
        id = await claimNextOutboundCall(client, ['sip'], campaignDialPacing)
      )
        claimed.push(id);
    }),
  );
  return claimed;
}

describe("a campaign's calls per minute at the dialler", () => {
  it('lets out at most calls_per_minute dials in 60 s across two processes, and the rest once the minute has passed', async ({ db }) => {
    const world = await campaignWorld(db.prisma, [{ phone: '+14155550999' }], { schedule: ALWAYS, pacing: { calls_per_minute: 5, max_concurrent_calls: 50 } });
    await queued(db.prisma, world, 12);
    const second = createPrismaClient(db.url, { maxConnections: 4 });
    try {
      const first = await claimAll([db.prisma, second, db.prisma, second]);
      expect(first).toHaveLength(5);
      expect(new Set(first).size).toBe(5);
      expect(await db.prisma.call.count({ where: { campaignId: world.campaignId, status: 'queued' } })).toBe(7);
      // A minute later, on the database's clock: the claims age out of the window.
      await db.prisma.$executeRaw`UPDATE calls SET dial_claimed_at = dial_claimed_at - interval '61 seconds' WHERE campaign_id = ${world.campaignId}`;
      expect(await claimAll([db.prisma, second])).toHaveLength(5);
    } finally {
      await second.$disconnect();
    }
  });

  it('dials calls behind a full campaign: a call of no campaign is not held up by it', async ({ db }) => {
    const world = await campaignWorld(db.prisma, [{ phone: '+14155550999' }], { schedule: ALWAYS, pacing: { calls_per_minute: 1, max_concurrent_calls: 50 } });
    await queued(db.prisma, world, 8);
    await queued(db.prisma, world, 1, null);
    const claimed = await claimAll([db.prisma]);
    expect(claimed).toHaveLength(2);
    const rows = await db.prisma.call.findMany({ where: { id: { in: claimed } } });
    expect(rows.map((r) => r.campaignId).sort()).toEqual([world.campaignId, null].sort());
    expect(rows.every((r) => r.dialClaimedAt instanceof Date)).toBe(true);
  });
});
