import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAssistant } from '../../modules/assistants/service.js';
import {
  claimNextOutboundCall,
  endUnstartedCall,
  finishCall,
  markCallRinging,
  markCallStarted,
  newCallSid,
  openInboundCall,
  openWebCall,
  queueOutboundCall,
  roomOfCall,
  type CallFinish,
  type CallRow,
} from '../../modules/calls/lifecycle.js';
import { CALL_STATUSES, IN_PROGRESS, NOT_STARTED, TERMINAL } from '../../modules/calls/statuses.js';
import { CallNotRunnableError } from '../../modules/calls/store.js';
import { bootstrap } from '../../modules/organizations/bootstrap.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let db: TestDatabase;
let organizationId: number;
let assistantId: number;
let phoneNumberId: number;
let nextNumber = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  const org = await bootstrap(db.prisma, { organizationName: 'Lifecycle', email: 'lifecycle@example.com' });
  organizationId = org.organization_id;
  assistantId = (await createAssistant(db.prisma, { organizationId, userId: org.user_id }, { name: 'Lifecycle' } as never)).id;
  const connection = await db.prisma.phoneConnection.create({ data: { organizationId, name: 'Carrier', sipAddress: 'sip.carrier.example' } });
  phoneNumberId = (await db.prisma.phoneNumber.create({ data: { organizationId, phoneConnectionId: connection.id, number: '+14155550300', assistantId } })).id;
});
afterAll(async () => db.drop());

const outbound = () =>
  queueOutboundCall(db.prisma, {
    organizationId,
    assistantId,
    contactId: null,
    phoneNumberId,
    fromNumber: '+14155550300',
    toNumber: `+1415555${String(1000 + nextNumber++).padStart(4, '0')}`,
    welcomeMessage: null,
    variables: {},
    idempotencyKey: null,
    idempotencyHash: null,
  });

/** A call in `status`, written as such: the state a transition is tried from. */
const callIn = (status: string) => db.prisma.call.create({ data: { callSid: newCallSid(), organizationId, assistantId, direction: 'inbound', transport: 'browser', status } });

const rowOf = (call: CallRow) => db.prisma.call.findUniqueOrThrow({ where: { id: call.id } });

async function eventsOf(call: CallRow): Promise<string[]> {
  const events = await db.prisma.event.findMany({ orderBy: { createdAt: 'asc' } });
  return events.filter((e) => (e.payload as { call_sid?: string }).call_sid === call.callSid).map((e) => e.type);
}

const finish = (overrides: Partial<CallFinish> = {}): CallFinish => ({
  status: 'completed',
  endReason: 'customer_hangup',
  endedAt: new Date(),
  summary: null,
  outcomes: null,
  analysisError: null,
  missingVariables: [],
  metrics: null,
  turns: [{ role: 'user', text: 'Hello', start_ms: 0, end_ms: 800, interrupted: false, metrics: null }],
  recordings: [{ track: 'mixed', format: 'mp3', storageKey: 'k', duration_ms: 900, size_bytes: 1_000 }],
  ...overrides,
});

/** Every transition tried on `call`; each says whether it moved the call. */
async function tryEveryTransition(call: CallRow): Promise<Record<string, boolean>> {
  return {
    ringing: await markCallRinging(db.prisma, call.id),
    started: await markCallStarted(db.prisma, call, new Date()).then(
      () => true,
      (error: unknown) => (error instanceof CallNotRunnableError ? false : Promise.reject(error)),
    ),
    endedUnstarted: await endUnstartedCall(db.prisma, call.id, 'failed', 'not_started'),
    finished: await finishCall(db.prisma, call, finish()),
  };
}

describe('call statuses', () => {
  it('are each before the start, in progress or terminal, and nothing else', () => {
    expect([...NOT_STARTED, IN_PROGRESS, ...TERMINAL].sort()).toEqual([...CALL_STATUSES].sort());
    expect(new Set(CALL_STATUSES).size).toBe(CALL_STATUSES.length);
  });
});

describe('creating a call', () => {
  it('queues an outbound call for the dialler, with a fresh call sid and no room yet', async () => {
    const call = await outbound();
    expect(call).toMatchObject({ status: 'queued', direction: 'outbound', transport: 'sip', livekitRoom: null, phoneNumberId });
    expect(call.callSid).toMatch(/^CA[0-9a-f]{32}$/);
  });

  it('opens a LiveKit web call queued in the room named after it, and a built-in browser call queued without a room', async () => {
    const web = await openWebCall(db.prisma, { organizationId, assistantId, transport: 'web', welcomeMessage: 'Hi', variables: { a: '1' } });
    expect(web).toMatchObject({ status: 'queued', direction: 'inbound', transport: 'web', livekitRoom: roomOfCall(web.callSid), welcomeMessage: 'Hi', variables: { a: '1' } });
    expect(roomOfCall(web.callSid)).toBe(`call-${web.callSid}`);
    const browser = await openWebCall(db.prisma, { organizationId, assistantId, transport: 'browser', welcomeMessage: null, variables: {} });
    expect(browser).toMatchObject({ status: 'queued', direction: 'inbound', transport: 'browser', livekitRoom: null });
  });

  it('opens an inbound call ringing on the organisation and assistant of the number called', async () => {
    const opened = await openInboundCall(db.prisma, { toNumber: '+14155550300', fromNumber: '+14155550301', transport: 'sip' });
    expect('call' in opened && opened.call).toMatchObject({ status: 'ringing', direction: 'inbound', organizationId, assistantId, phoneNumberId });
  });
});

describe('dialling', () => {
  it('claims each queued outbound call once, oldest first, however many diallers claim at once, and names its room', async () => {
    // Whatever an earlier test left queued is claimed first; only this test's calls are looked at.
    while ((await claimNextOutboundCall(db.prisma)) !== null);
    const queued = [await outbound(), await outbound(), await outbound()];
    const web = await openWebCall(db.prisma, { organizationId, assistantId, transport: 'web', welcomeMessage: null, variables: {} });
    const claims = await Promise.all(Array.from({ length: 6 }, () => claimNextOutboundCall(db.prisma)));
    expect(claims.filter((id) => id !== null).sort((a, b) => a! - b!)).toEqual(queued.map((c) => c.id));
    for (const call of queued) expect(await rowOf(call)).toMatchObject({ status: 'initiated', livekitRoom: roomOfCall(call.callSid) });
    // A web call is queued for its browser, not for a dialler.
    expect(await rowOf(web)).toMatchObject({ status: 'queued' });
    expect(await claimNextOutboundCall(db.prisma)).toBeNull();
  });

  it('marks ringing only a call claimed for dialling', async () => {
    for (const status of CALL_STATUSES) {
      const call = await callIn(status);
      expect(await markCallRinging(db.prisma, call.id), status).toBe(status === 'initiated');
      expect((await rowOf(call)).status).toBe(status === 'initiated' ? 'ringing' : status);
    }
  });
});

describe('starting a call', () => {
  it('starts a call from each status before the start, with its start, its heartbeat and one call.started', async () => {
    for (const status of NOT_STARTED) {
      const call = await callIn(status);
      const startedAt = new Date();
      const started = await markCallStarted(db.prisma, call, startedAt);
      expect(started).toMatchObject({ status: 'in_progress', startedAt, heartbeatAt: startedAt });
      expect(await eventsOf(call)).toEqual(['call.started']);
    }
  });

  it('refuses a call that started or ended, saying what it is, and writes nothing', async () => {
    for (const status of [IN_PROGRESS, ...TERMINAL]) {
      const call = await callIn(status);
      await expect(markCallStarted(db.prisma, call, new Date())).rejects.toThrow(new CallNotRunnableError(`call is ${status}`));
      expect((await rowOf(call)).status).toBe(status);
      expect(await eventsOf(call)).toEqual([]);
    }
  });

  it('either starts a call or ends it unstarted when both race, never both', async () => {
    for (let i = 0; i < 10; i++) {
      const call = await callIn('ringing');
      const [started, ended] = await Promise.allSettled([markCallStarted(db.prisma, call, new Date()), endUnstartedCall(db.prisma, call.id, 'failed', 'ringing_timeout')]);
      const won = started.status === 'fulfilled' ? 'started' : 'ended';
      expect(ended.status === 'fulfilled' && ended.value).toBe(won === 'ended');
      expect((await rowOf(call)).status).toBe(won === 'started' ? 'in_progress' : 'failed');
      expect(await eventsOf(call)).toEqual(won === 'started' ? ['call.started'] : ['call.completed', 'call.failed']);
    }
  });
});

describe('ending a call that never started', () => {
  it('ends it from each status before the start, with no duration and call.completed, and call.failed only for a failure', async () => {
    for (const status of NOT_STARTED) {
      const busy = await callIn(status);
      const at = new Date();
      expect(await endUnstartedCall(db.prisma, busy.id, 'busy', 'busy', at)).toBe(true);
      expect(await rowOf(busy)).toMatchObject({ status: 'busy', endReason: 'busy', endedAt: at, durationMs: 0 });
      expect(await eventsOf(busy)).toEqual(['call.completed']);
      const failed = await callIn(status);
      expect(await endUnstartedCall(db.prisma, failed.id, 'failed', 'dial_failed')).toBe(true);
      expect(await eventsOf(failed)).toEqual(['call.completed', 'call.failed']);
    }
  });

  it('leaves a call that started, and one its guard no longer matches', async () => {
    const started = await callIn(IN_PROGRESS);
    expect(await endUnstartedCall(db.prisma, started.id, 'failed', 'not_started')).toBe(false);
    expect(await rowOf(started)).toMatchObject({ status: 'in_progress', endReason: null });
    const claimed = await callIn('initiated');
    expect(await endUnstartedCall(db.prisma, claimed.id, 'failed', 'not_dialled', new Date(), { status: 'queued' })).toBe(false);
    expect(await rowOf(claimed)).toMatchObject({ status: 'initiated', endReason: null });
    expect([...(await eventsOf(started)), ...(await eventsOf(claimed))]).toEqual([]);
  });

  it('ends it once when two sweeps race', async () => {
    const call = await callIn('queued');
    const results = await Promise.all([endUnstartedCall(db.prisma, call.id, 'failed', 'not_joined'), endUnstartedCall(db.prisma, call.id, 'failed', 'not_joined')]);
    expect(results.sort()).toEqual([false, true]);
    expect(await eventsOf(call)).toEqual(['call.completed', 'call.failed']);
  });
});

describe('finishing a call', () => {
  it('finishes a started call with its duration, turns, recordings and call.completed, and call.failed for a failure', async () => {
    const call = await markCallStarted(db.prisma, await callIn('ringing'), new Date(Date.now() - 5_000));
    expect(await finishCall(db.prisma, call, finish({ endedAt: new Date(call.startedAt!.getTime() + 4_250) }))).toBe(true);
    expect(await rowOf(call)).toMatchObject({ status: 'completed', endReason: 'customer_hangup', durationMs: 4_250 });
    expect(await db.prisma.callTurn.count({ where: { callId: call.id } })).toBe(1);
    expect(await db.prisma.callRecording.count({ where: { callId: call.id } })).toBe(1);
    expect(await eventsOf(call)).toEqual(['call.started', 'call.completed']);

    const failed = await markCallStarted(db.prisma, await callIn('queued'), new Date());
    expect(await finishCall(db.prisma, failed, finish({ status: 'failed', endReason: 'llm_error' }))).toBe(true);
    expect(await eventsOf(failed)).toEqual(['call.started', 'call.completed', 'call.failed']);
  });

  it('ends a call once when two finishers race: one call.completed, one set of recordings', async () => {
    const call = await markCallStarted(db.prisma, await callIn('queued'), new Date());
    const results = await Promise.all([finishCall(db.prisma, call, finish()), finishCall(db.prisma, call, finish({ status: 'failed', endReason: 'worker_lost' }))]);
    expect(results.sort()).toEqual([false, true]);
    const events = await eventsOf(call);
    expect(events.filter((type) => type === 'call.completed')).toHaveLength(1);
    expect(await db.prisma.callRecording.count({ where: { callId: call.id } })).toBe(1);
    expect(await db.prisma.callTurn.count({ where: { callId: call.id } })).toBe(1);
  });

  it('never finishes a call that has not started', async () => {
    for (const status of NOT_STARTED) {
      const call = await callIn(status);
      expect(await finishCall(db.prisma, call, finish())).toBe(false);
      expect((await rowOf(call)).status).toBe(status);
      expect(await eventsOf(call)).toEqual([]);
    }
  });
});

describe('a call in a terminal status', () => {
  it('is never moved again, by any transition, and gets no further event', async () => {
    for (const status of TERMINAL) {
      const call = await callIn(status);
      const before = await rowOf(call);
      expect(await tryEveryTransition(call), status).toEqual({ ringing: false, started: false, endedUnstarted: false, finished: false });
      expect(await rowOf(call)).toEqual(before);
      expect(await eventsOf(call)).toEqual([]);
    }
  });

  it('is never claimed by a dialler', async () => {
    while ((await claimNextOutboundCall(db.prisma)) !== null);
    const ended = await outbound();
    expect(await endUnstartedCall(db.prisma, ended.id, 'canceled', 'canceled')).toBe(true);
    expect(await claimNextOutboundCall(db.prisma)).toBeNull();
    expect((await rowOf(ended)).status).toBe('canceled');
  });
});
