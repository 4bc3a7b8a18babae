import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delay } from '../../lib/async.js';
import { createAssistant } from '../../modules/assistants/service.js';
import { claimNextOutboundCall, queueOutboundCall, roomOfCall } from '../../modules/calls/lifecycle.js';
import { bootstrap } from '../../modules/organizations/bootstrap.js';
import { startDialler, type Dialler } from '../../modules/telephony/dialler.js';
import { LiveKitTelephony } from '../../modules/telephony/livekit.js';
import { startFakeLiveKit, type FakeLiveKit } from '../fakes/livekit.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { until } from '../helpers/until.js';

// The dialler's loop: woken by a call queued in its process, refilled as soon as a dial frees its slot, ending dials
// lost with their process, and waiting on stop for the dials under way. The poll interval is a minute in each test, so
// nothing here happens by polling.

let db: TestDatabase;
let livekit: FakeLiveKit;
let telephony: LiveKitTelephony;
let organizationId: number;
let assistantId: number;
let phoneNumberId: number;
const logger = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;
const POLL_MS = 60_000;

beforeAll(async () => {
  db = await createTestDatabase();
  livekit = await startFakeLiveKit();
  telephony = new LiveKitTelephony({ url: livekit.url, apiKey: livekit.apiKey, apiSecret: livekit.apiSecret, agentName: 'voice-assistant' });
  const org = await bootstrap(db.prisma, { organizationName: 'Dialler', email: 'dialler@example.com' });
  organizationId = org.organization_id;
  assistantId = (await createAssistant(db.prisma, { organizationId, userId: org.user_id }, { name: 'Dialler' } as never)).id;
  const connection = await db.prisma.phoneConnection.create({ data: { organizationId, name: 'Carrier', sipAddress: 'sip.carrier.example' } });
  phoneNumberId = (await db.prisma.phoneNumber.create({ data: { organizationId, phoneConnectionId: connection.id, number: '+14155550400', assistantId } })).id;
});
afterAll(async () => {
  await livekit.close();
  await db.drop();
});

const queue = (to: string) =>
  queueOutboundCall(db.prisma, {
    organizationId,
    assistantId,
    contactId: null,
    phoneNumberId,
    fromNumber: '+14155550400',
    toNumber: to,
    welcomeMessage: null,
    variables: {},
    idempotencyKey: null,
    idempotencyHash: null,
  });
const callOf = (id: number) => db.prisma.call.findUniqueOrThrow({ where: { id } });

async function withDialler(options: { maxConcurrentDials?: number }, body: (dialler: Dialler) => Promise<void>) {
  const dialler = startDialler(db.prisma, telephony, { logger, pollIntervalMs: POLL_MS, ...options });
  try {
    await body(dialler);
  } finally {
    await dialler.stop();
  }
}

describe('the dialler', () => {
  it('dials a call queued in its process as soon as it is woken', async () => {
    await withDialler({}, async (dialler) => {
      await delay(200); // the first pass has found the queue empty
      const call = await queue('+14155550401');
      dialler.wake();
      expect(await until(async () => (await callOf(call.id)).providerCallSid, 3_000)).toBeTruthy();
    });
  });

  it('looks at the queue again as soon as a dial ends and frees its slot', async () => {
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

  it('ends a dial lost with its process, with call.completed and call.failed, and deletes its room', async () => {
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

  it('waits on stop for the dials under way', async () => {
    livekit.onDial('+14155550405', { answer: true, afterMs: 800 });
    const call = await queue('+14155550405');
    const dialler = startDialler(db.prisma, telephony, { logger, pollIntervalMs: POLL_MS });
    await until(async () => (await callOf(call.id)).status === 'ringing', 3_000);
    await dialler.stop();
    // The callee answered before the stop returned, and the answer was stored.
    expect((await callOf(call.id)).providerCallSid).toBeTruthy();
  });
});
