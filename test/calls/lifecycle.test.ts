import { describe, expect } from 'vitest';
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
import { appendCallTurn, CallNotRunnableError } from '../../modules/calls/store.js';
import { bootstrap } from '../../modules/organizations/bootstrap.js';
import { dbTest } from '../helpers/fixtures.js';

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

/** An organisation with an assistant and a managed number its outbound calls are placed from. */
interface Line {
  organizationId: number;
  assistantId: number;
  phoneNumberId: number;
}

const it = dbTest
  .extend('line', { scope: 'file' }, async ({ db }): Promise<Line> => {
    const org = await bootstrap(db.prisma, { organizationName: 'Lifecycle', email: 'lifecycle@example.com' });
    const organizationId = org.organization_id;
    const assistantId = (await createAssistant(db.prisma, { organizationId, userId: org.user_id }, { name: 'Lifecycle' } as never)).id;
    const connection = await db.prisma.phoneConnection.create({ data: { organizationId, name: 'Carrier', sipAddress: 'sip.carrier.example' } });
    const number = await db.prisma.phoneNumber.create({ data: { organizationId, phoneConnectionId: connection.id, number: '+14155550300', assistantId } });
    return { organizationId, assistantId, phoneNumberId: number.id };
  })
  .extend('outbound', { scope: 'file' }, async ({ db, line }) => {
    let dialled = 0;
    return () =>
      queueOutboundCall(db.prisma, {
        ...line,
        contactId: null,
        fromNumber: '+14155550300',
        toNumber: `+1415555${String(1000 + dialled++).padStart(4, '0')}`,
        welcomeMessage: null,
        variables: {},
        idempotencyKey: null,
        idempotencyHash: null,
      });
  })
  .extend(
    'web',
    { scope: 'file' },
    async ({ db, line }) =>
      (transport: 'web' | 'browser') =>
        openWebCall(db.prisma, { organizationId: line.organizationId, assistantId: line.assistantId, transport, welcomeMessage: null, variables: {} }),
  )
  /** A call in `status`, written as such: the state a transition is tried from. */
  .extend(
    'callIn',
    { scope: 'file' },
    async ({ db, line }) =>
      (status: string) =>
        db.prisma.call.create({
          data: {
            callSid: newCallSid(),
            organizationId: line.organizationId,
            assistantId: line.assistantId,
            direction: 'inbound',
            transport: 'browser',
            status,
          },
        }),
  )
  .extend(
    'rowOf',
    { scope: 'file' },
    async ({ db }) =>
      (call: CallRow) =>
        db.prisma.call.findUniqueOrThrow({ where: { id: call.id } }),
  )
  .extend('eventsOf', { scope: 'file' }, async ({ db }) => async (call: CallRow): Promise<string[]> => {
    // Events written in one transaction share its timestamp: among those, by type, so that the order is the same each run.
    const events = await db.prisma.event.findMany({ orderBy: [{ createdAt: 'asc' }, { type: 'asc' }] });
    return events.filter((e) => (e.payload as { call_sid?: string }).call_sid === call.callSid).map((e) => e.type);
  })
  /** Every transition tried on a call; each says whether it moved the call. */
  .extend('tryEveryTransition', { scope: 'file' }, async ({ db }) => async (call: CallRow): Promise<Record<string, boolean>> => ({
    ringing: await markCallRinging(db.prisma, call.id),
    started: await markCallStarted(db.prisma, call, new Date()).then(
      () => true,
      (error: unknown) => (error instanceof CallNotRunnableError ? false : Promise.reject(error)),
    ),
    endedUnstarted: await endUnstartedCall(db.prisma, call.id, 'failed', 'not_started'),
    finished: await finishCall(db.prisma, call, finish()),
  }))
  /** Claims whatever earlier tests left queued, so a test sees only its own calls in the dialling queue. */
  .extend('drainQueue', { scope: 'file' }, async ({ db }) => async () => {
    while ((await claimNextOutboundCall(db.prisma)) !== null);
  });

describe('call statuses', () => {
  it('are each before the start, in progress or terminal, and nothing else', () => {
    expect([...NOT_STARTED, IN_PROGRESS, ...TERMINAL].sort()).toEqual([...CALL_STATUSES].sort());
    expect(new Set(CALL_STATUSES).size).toBe(CALL_STATUSES.length);
  });
});

describe('creating a call', () => {
  it('queues an outbound call for the dialler, with a fresh call sid and no room yet', async ({ outbound, line }) => {
    const call = await outbound();
    expect(call).toMatchObject({ status: 'queued', direction: 'outbound', transport: 'sip', livekitRoom: null, phoneNumberId: line.phoneNumberId });
    expect(call.callSid).toMatch(/^CA[0-9a-f]{32}$/);
  });

  it('opens a LiveKit web call queued in the room named after it, and a built-in browser call queued without a room', async ({ db, line, web }) => {
    const livekit = await openWebCall(db.prisma, {
      organizationId: line.organizationId,
      assistantId: line.assistantId,
      transport: 'web',
      welcomeMessage: 'Hi',
      variables: { a: '1' },
    });
    expect(livekit).toMatchObject({
      status: 'queued',
      direction: 'inbound',
      transport: 'web',
      livekitRoom: roomOfCall(livekit.callSid),
      welcomeMessage: 'Hi',
      variables: { a: '1' },
    });
    expect(roomOfCall(livekit.callSid)).toBe(`call-${livekit.callSid}`);
    expect(await web('browser')).toMatchObject({ status: 'queued', direction: 'inbound', transport: 'browser', livekitRoom: null });
  });

  it('opens an inbound call ringing on the organisation and assistant of the number called', async ({ db, line }) => {
    const opened = await openInboundCall(db.prisma, { toNumber: '+14155550300', fromNumber: '+14155550301', transport: 'sip' });
    expect('call' in opened && opened.call).toMatchObject({ status: 'ringing', direction: 'inbound', ...line });
  });
});

describe('dialling', () => {
  it('claims each queued outbound call once, oldest first, however many diallers claim at once, and names its room', async ({
    db,
    outbound,
    web,
    rowOf,
    drainQueue,
  }) => {
    await drainQueue();
    const queued = [await outbound(), await outbound(), await outbound()];
    const livekit = await web('web');
    const claims = await Promise.all(Array.from({ length: 6 }, () => claimNextOutboundCall(db.prisma)));
    expect(claims.filter((id) => id !== null).sort((a, b) => a! - b!)).toEqual(queued.map((c) => c.id));
    for (const call of queued) expect(await rowOf(call)).toMatchObject({ status: 'initiated', livekitRoom: roomOfCall(call.callSid) });
    // A web call is queued for its browser, not for a dialler.
    expect(await rowOf(livekit)).toMatchObject({ status: 'queued' });
    expect(await claimNextOutboundCall(db.prisma)).toBeNull();
  });

  it('marks ringing only a call claimed for dialling', async ({ db, callIn, rowOf }) => {
    for (const status of CALL_STATUSES) {
      const call = await callIn(status);
      expect(await markCallRinging(db.prisma, call.id), status).toBe(status === 'initiated');
      expect((await rowOf(call)).status).toBe(status === 'initiated' ? 'ringing' : status);
    }
  });
});

describe('starting a call', () => {
  it('starts a call from each status before the start, with its start, its heartbeat and one call.started', async ({ db, callIn, eventsOf }) => {
    for (const status of NOT_STARTED) {
      const call = await callIn(status);
      const startedAt = new Date();
      const started = await markCallStarted(db.prisma, call, startedAt);
      expect(started).toMatchObject({ status: 'in_progress', startedAt, heartbeatAt: startedAt });
      expect(await eventsOf(call)).toEqual(['call.started']);
    }
  });

  it('refuses a call that started or ended, saying what it is, and writes nothing', async ({ db, callIn, rowOf, eventsOf }) => {
    for (const status of [IN_PROGRESS, ...TERMINAL]) {
      const call = await callIn(status);
      await expect(markCallStarted(db.prisma, call, new Date())).rejects.toThrow(new CallNotRunnableError(`call is ${status}`));
      expect((await rowOf(call)).status).toBe(status);
      expect(await eventsOf(call)).toEqual([]);
    }
  });

  it('either starts a call or ends it unstarted when both race, never both', async ({ db, callIn, rowOf, eventsOf }) => {
    for (let i = 0; i < 10; i++) {
      const call = await callIn('ringing');
      const [started, ended] = await Promise.allSettled([
        markCallStarted(db.prisma, call, new Date()),
        endUnstartedCall(db.prisma, call.id, 'failed', 'ringing_timeout'),
      ]);
      const won = started.status === 'fulfilled' ? 'started' : 'ended';
      expect(ended.status === 'fulfilled' && ended.value).toBe(won === 'ended');
      expect((await rowOf(call)).status).toBe(won === 'started' ? 'in_progress' : 'failed');
      expect(await eventsOf(call)).toEqual(won === 'started' ? ['call.started'] : ['call.completed', 'call.failed']);
    }
  });
});

describe('ending a call that never started', () => {
  it('ends it from each status before the start, with no duration and call.completed, and call.failed only for a failure', async ({
    db,
    callIn,
    rowOf,
    eventsOf,
  }) => {
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

  it('leaves a call that started, and one its guard no longer matches', async ({ db, callIn, rowOf, eventsOf }) => {
    const started = await callIn(IN_PROGRESS);
    expect(await endUnstartedCall(db.prisma, started.id, 'failed', 'not_started')).toBe(false);
    expect(await rowOf(started)).toMatchObject({ status: 'in_progress', endReason: null });
    const claimed = await callIn('initiated');
    expect(await endUnstartedCall(db.prisma, claimed.id, 'failed', 'not_dialled', new Date(), { status: 'queued' })).toBe(false);
    expect(await rowOf(claimed)).toMatchObject({ status: 'initiated', endReason: null });
    expect([...(await eventsOf(started)), ...(await eventsOf(claimed))]).toEqual([]);
  });

  it('ends it once when two sweeps race', async ({ db, callIn, eventsOf }) => {
    const call = await callIn('queued');
    const results = await Promise.all([
      endUnstartedCall(db.prisma, call.id, 'failed', 'not_joined'),
      endUnstartedCall(db.prisma, call.id, 'failed', 'not_joined'),
    ]);
    expect(results.sort()).toEqual([false, true]);
    expect(await eventsOf(call)).toEqual(['call.completed', 'call.failed']);
  });
});

describe('storing turns as the call goes', () => {
  it('stores a turn at its position, and replaces it when the caller finishes a turn they were cut off in', async ({ db, callIn }) => {
    const call = await markCallStarted(db.prisma, await callIn('queued'), new Date());
    const part = { role: 'user' as const, text: "it's john", start_ms: 1_000, end_ms: 1_600, interrupted: false, metrics: null };
    await appendCallTurn(db.prisma, call.id, 0, part);
    await appendCallTurn(db.prisma, call.id, 0, { ...part, text: "it's john dot smith at gmail dot com", end_ms: 4_000 });
    const decision = {
      verdict: 'finished',
      decided_by: 'transcript',
      transcript: 'complete',
      transcript_rule: 'terminal_punctuation',
      value_kind: 'email',
      audio_model_probability: null,
      audio_model_threshold: null,
      recogniser_endpoint: false,
      delay_ms: 300,
    } as const;
    await appendCallTurn(db.prisma, call.id, 1, {
      role: 'assistant',
      text: 'Thanks, John.',
      start_ms: 4_400,
      end_ms: 5_000,
      interrupted: false,
      metrics: { end_of_utterance_delay_ms: 305 },
      turn_decision: decision,
    });
    const rows = await db.prisma.callTurn.findMany({ where: { callId: call.id }, orderBy: { position: 'asc' } });
    expect(rows.map((r) => [r.position, r.text, r.startMs, r.endMs])).toEqual([
      [0, "it's john dot smith at gmail dot com", 1_000, 4_000],
      [1, 'Thanks, John.', 4_400, 5_000],
    ]);
    expect(rows[1]!.turnDecision).toEqual(decision);
  });
});

describe('finishing a call', () => {
  it('finishes a started call with its duration, turns, recordings and call.completed, and call.failed for a failure', async ({
    db,
    callIn,
    rowOf,
    eventsOf,
  }) => {
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

  it('ends a call once when two finishers race: one call.completed, one set of recordings', async ({ db, callIn, eventsOf }) => {
    const call = await markCallStarted(db.prisma, await callIn('queued'), new Date());
    const results = await Promise.all([
      finishCall(db.prisma, call, finish()),
      finishCall(db.prisma, call, finish({ status: 'failed', endReason: 'worker_lost' })),
    ]);
    expect(results.sort()).toEqual([false, true]);
    expect((await eventsOf(call)).filter((type) => type === 'call.completed')).toHaveLength(1);
    expect(await db.prisma.callRecording.count({ where: { callId: call.id } })).toBe(1);
    expect(await db.prisma.callTurn.count({ where: { callId: call.id } })).toBe(1);
  });

  it('never finishes a call that has not started', async ({ db, callIn, rowOf, eventsOf }) => {
    for (const status of NOT_STARTED) {
      const call = await callIn(status);
      expect(await finishCall(db.prisma, call, finish())).toBe(false);
      expect((await rowOf(call)).status).toBe(status);
      expect(await eventsOf(call)).toEqual([]);
    }
  });
});

describe('a call in a terminal status', () => {
  it('is never moved again, by any transition, and gets no further event', async ({ callIn, rowOf, eventsOf, tryEveryTransition }) => {
    for (const status of TERMINAL) {
      const call = await callIn(status);
      const before = await rowOf(call);
      expect(await tryEveryTransition(call), status).toEqual({ ringing: false, started: false, endedUnstarted: false, finished: false });
      expect(await rowOf(call)).toEqual(before);
      expect(await eventsOf(call)).toEqual([]);
    }
  });

  it('is never claimed by a dialler', async ({ db, outbound, rowOf, drainQueue }) => {
    await drainQueue();
    const ended = await outbound();
    expect(await endUnstartedCall(db.prisma, ended.id, 'canceled', 'canceled')).toBe(true);
    expect(await claimNextOutboundCall(db.prisma)).toBeNull();
    expect((await rowOf(ended)).status).toBe('canceled');
  });
});
