import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { describe, expect } from 'vitest';
import { delay } from '../../lib/async.js';
import { createAssistant } from '../../modules/assistants/service.js';
import { claimNextOutboundCall, queueOutboundCall, roomOfCall } from '../../modules/calls/lifecycle.js';
import { bootstrap } from '../../modules/organizations/bootstrap.js';
import { startDialler, type Dialler } from '../../modules/telephony/dialler.js';
import { LiveKitTelephony } from '../../modules/telephony/livekit.js';
import { startFakeLiveKit } from '../fakes/livekit.js';
import { dbTest } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';

// The dialler's loop: woken by a call queued in its process, refilled as soon as a dial frees its slot, ending dials
// lost with their process, and waiting on stop for the dials under way. The poll interval is a minute in each test, so
// nothing here happens by polling.

const logger = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;
const POLL_MS = 60_000;

const it = dbTest
  .extend('livekit', { scope: 'file' }, async ({}, { onCleanup }) => {
    const livekit = await startFakeLiveKit();
    onCleanup(() => livekit.close());
    return livekit;
  })
  .extend(
    'telephony',
    { scope: 'file' },
    async ({ livekit }) => new LiveKitTelephony({ url: livekit.url, apiKey: livekit.apiKey, apiSecret: livekit.apiSecret, agentName: 'voice-assistant' }),
  )
  /** Queues an outbound call to `to` from the organisation's managed number. */
  .extend('queue', { scope: 'file' }, async ({ db }) => {
    const org = await bootstrap(db.prisma, { organizationName: 'Dialler', email: 'dialler@example.com' });
    const organizationId = org.organization_id;
    const assistantId = (await createAssistant(db.prisma, { organizationId, userId: org.user_id }, { name: 'Dialler' } as never)).id;
    const connection = await db.prisma.phoneConnection.create({ data: { organizationId, name: 'Carrier', sipAddress: 'sip.carrier.example' } });
    const number = await db.prisma.phoneNumber.create({ data: { organizationId, phoneConnectionId: connection.id, number: '+14155550400', assistantId } });
    return (to: string) =>
      queueOutboundCall(db.prisma, {
        organizationId,
        assistantId,
        contactId: null,
        phoneNumberId: number.id,
        fromNumber: number.number,
        toNumber: to,
        welcomeMessage: null,
        variables: {},
        idempotencyKey: null,
        idempotencyHash: null,
      });
  })
  .extend(
    'callOf',
    { scope: 'file' },
    async ({ db }) =>
      (id: number) =>
        db.prisma.call.findUniqueOrThrow({ where: { id } }),
  )
  /** Runs `body` with a dialler that polls once a minute, stopped after it whatever happens. */
  .extend(
    'withDialler',
    { scope: 'file' },
    async ({ db, telephony }) =>
      async (options: { maxConcurrentDials?: number }, body: (dialler: Dialler) => Promise<void>) => {
        const dialler = startDialler(db.prisma, { livekit: telephony }, { logger, pollIntervalMs: POLL_MS, ...options });
        try {
          await body(dialler);
        } finally {
          await dialler.stop();
        }
      },
  );

describe('the dialler', () => {
  it('dials a call queued in its process as soon as it is woken', async ({ queue, callOf, withDialler }) => {
    await withDialler({}, async (dialler) => {
      await delay(200); // the first pass has found the queue empty
      const call = await queue('+14155550401');
      dialler.wake();
      expect(await until(async () => (await callOf(call.id)).providerCallSid, 3_000)).toBeTruthy();
    });
  });

  it('looks at the queue again as soon as a dial ends and frees its slot', async ({ livekit, queue, callOf, withDialler }) => {
    livekit.onDial('+14155550402', { answer: true, afterMs: 500 });
    const first = await queue('+14155550402');
    const second = await queue('+14155550403');
    await withDialler({ maxConcurrentDials: 1 }, async () => {
      await until(async () => (await callOf(first.id)).status === 'ringing', 3_000);
      // Its one slot is taken: the second call waits in the queue.
      expect((await callOf(second.id)).status).toBe('queued');
      expect(await until(async () => (await callOf(second.id)).providerCallSid, 5_000)).toBeTruthy();
      expect((await callOf(first.id)).providerCallSid).toBeTruthy();
    });
  });

  it('ends a dial lost with its process, with call.completed and call.failed, and deletes its room', async ({ db, livekit, queue, callOf, withDialler }) => {
    const lost = await queue('+14155550404');
    expect(await claimNextOutboundCall(db.prisma)).toBe(lost.id);
    // The process that claimed it stopped 4 minutes ago, before it dialled.
    await db.prisma.$executeRaw`UPDATE calls SET updated_at = now() - interval '4 minutes' WHERE id = ${lost.id}`;
    await withDialler({}, async () => {
      await until(async () => (await callOf(lost.id)).status === 'failed', 3_000);
    });
    expect(await callOf(lost.id)).toMatchObject({ endReason: 'dial_lost', durationMs: 0 });
    const events = await db.prisma.event.findMany({ orderBy: { createdAt: 'asc' } });
    expect(events.filter((e) => (e.payload as { call_sid?: string }).call_sid === lost.callSid).map((e) => e.type)).toEqual(['call.completed', 'call.failed']);
    expect(livekit.of('DeleteRoom').some((c) => c.body.room === roomOfCall(lost.callSid))).toBe(true);
    expect(livekit.of('CreateSIPParticipant').some((c) => c.body.sipCallTo === '+14155550404')).toBe(false);
  });

  it('waits on stop for the dials under way', async ({ db, livekit, telephony, queue, callOf }) => {
    livekit.onDial('+14155550405', { answer: true, afterMs: 800 });
    const call = await queue('+14155550405');
    const dialler = startDialler(db.prisma, { livekit: telephony }, { logger, pollIntervalMs: POLL_MS });
    await until(async () => (await callOf(call.id)).status === 'ringing', 3_000);
    await dialler.stop();
    // The callee answered before the stop returned, and the answer was stored.
    expect((await callOf(call.id)).providerCallSid).toBeTruthy();
  });
});
