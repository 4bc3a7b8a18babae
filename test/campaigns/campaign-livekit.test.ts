import { describe, expect } from 'vitest';
import pino from 'pino';
import { campaignTick } from '../../modules/campaigns/dispatcher.js';
import { getCampaign } from '../../modules/campaigns/service.js';
import { startDialler } from '../../modules/telephony/dialler.js';
import { LiveKitTelephony } from '../../modules/telephony/livekit.js';
import { dbTest } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';
import { startFakeLiveKit } from '../fakes/livekit.js';
import { ALWAYS, campaignCalls, campaignWorld, endCall } from './campaign-world.js';

// A campaign from a SIP trunk's number, dialled through LiveKit SIP (the LiveKit server fake answers each dial as the
// callee's side would): busy and unanswered contacts end with LiveKit's SIP status, are retried after their delay on
// the campaign's clock, and the answered one is done.

const log = pino({ level: 'silent' });
const it = dbTest.extend('livekit', { scope: 'file' }, async ({}, { onCleanup }) => {
  const livekit = await startFakeLiveKit();
  onCleanup(() => livekit.close());
  return livekit;
});

describe('a campaign through LiveKit SIP', () => {
  it('dials through the dialler, settles busy and unanswered contacts from the SIP answer, and retries them after their delay', async ({ db, livekit }) => {
    const people = [{ phone: '+12025556001' }, { phone: '+12025556002' }, { phone: '+12025556003' }];
    livekit.onDial('+12025556002', { sipStatus: 486, reason: 'Busy Here' });
    livekit.onDial('+12025556003', { sipStatus: 480, reason: 'Temporarily Unavailable' });
    const world = await campaignWorld(db.prisma, people, { schedule: ALWAYS, retry: { busy: { attempts: 1, delay_minutes: 15 }, no_answer: { attempts: 0 } } });
    const telephony = new LiveKitTelephony({ url: livekit.url, apiKey: livekit.apiKey, apiSecret: livekit.apiSecret, agentName: 'voice-assistant' });
    const dialler = startDialler(db.prisma, { livekit: telephony }, { logger: log, pollIntervalMs: 100 });
    try {
      const now = new Date('2026-11-24T12:00:00Z');
      expect(await campaignTick(db.prisma, log, now)).toMatchObject({ queued: 3 });
      dialler.wake();
      // The answered callee talks with the agent until the call ends; the others end on their SIP answer.
      const answered = await until(
        async () => (await campaignCalls(db.prisma, world.campaignId)).find((c) => c.toNumber === '+12025556001' && c.providerCallSid) ?? null,
        10_000,
      );
      await endCall(db.prisma, answered.id, 'answered', now);
      await until(
        async () => ((await campaignCalls(db.prisma, world.campaignId)).every((c) => ['completed', 'busy', 'no_answer'].includes(c.status)) ? true : null),
        10_000,
      );
      await campaignTick(db.prisma, log, now);
      expect((await getCampaign(db.prisma, world.organizationId, world.campaignId)).progress.contacts).toMatchObject({ done: 1, scheduled: 1, exhausted: 1 });

      // Fifteen minutes on, the busy contact is called again, busy again, and exhausted; the campaign completes.
      const later = new Date(now.getTime() + 15 * 60_000);
      expect(await campaignTick(db.prisma, log, later)).toMatchObject({ queued: 1 });
      dialler.wake();
      await until(async () => ((await campaignCalls(db.prisma, world.campaignId)).filter((c) => c.status === 'busy').length === 2 ? true : null), 10_000);
      await campaignTick(db.prisma, log, later);
      await campaignTick(db.prisma, log, later);
      const campaign = await getCampaign(db.prisma, world.organizationId, world.campaignId);
      expect(campaign).toMatchObject({ state: 'completed', progress: { outcomes: { answered: 1, busy: 2, no_answer: 1 }, attempts: 4 } });
      expect(
        livekit
          .of('CreateSIPParticipant')
          .map((c) => (c.body as { sipCallTo: string }).sipCallTo)
          .sort(),
      ).toEqual(['+12025556001', '+12025556002', '+12025556002', '+12025556003']);
    } finally {
      await dialler.stop();
    }
  }, 120_000);
});
