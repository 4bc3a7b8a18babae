import crypto from 'node:crypto';
import { initializeLogger } from '@livekit/agents';
import { beforeAll, describe, expect } from 'vitest';
import { startCallRecovery } from '../../agent/call/recovery.js';
import { BROWSER_JOIN_WINDOW_MS, endStaleUnstartedCalls, JOIN_GRACE_MS } from '../../modules/calls/unstarted.js';
import { bootstrap } from '../../modules/organizations/bootstrap.js';
import { endUnstartedCall } from '../../modules/calls/lifecycle.js';
import { dbTest } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';

beforeAll(() => {
  initializeLogger({ pretty: false, level: 'silent' });
});

const it = dbTest
  .extend(
    'organizationId',
    { scope: 'file' },
    async ({ db }) => (await bootstrap(db.prisma, { organizationName: 'Unstarted calls', email: 'unstarted@example.com' })).organization_id,
  )
  .extend(
    'callOf',
    { scope: 'file' },
    async ({ db, organizationId }) =>
      async (data: { transport: string; direction: string; status: string; createdAt: Date; updatedAt?: Date }) =>
        db.prisma.call.create({ data: { callSid: `CA${crypto.randomBytes(16).toString('hex')}`, organizationId, ...data } }),
  )
  .extend('eventsOf', { scope: 'file' }, async ({ db }) => async (callSid: string) => {
    const events = await db.prisma.event.findMany({ orderBy: { createdAt: 'asc' } });
    return events.filter((e) => (e.payload as { call_sid?: string }).call_sid === callSid);
  });

const MINUTE = 60_000;

describe('calls that never connect', () => {
  it('ends a browser call whose page never opened its socket once its token expired, with not_joined and one call.completed', async ({
    db,
    callOf,
    eventsOf,
  }) => {
    const now = new Date();
    const bound = BROWSER_JOIN_WINDOW_MS + JOIN_GRACE_MS;
    const stale = await callOf({ transport: 'browser', direction: 'inbound', status: 'queued', createdAt: new Date(now.getTime() - bound - 1000) });
    // Its token expired, but the grace after it has not run out: a socket accepted at the last second still starts it.
    const inGrace = await callOf({
      transport: 'browser',
      direction: 'inbound',
      status: 'queued',
      createdAt: new Date(now.getTime() - BROWSER_JOIN_WINDOW_MS - 1000),
    });
    const fresh = await callOf({ transport: 'browser', direction: 'inbound', status: 'queued', createdAt: new Date(now.getTime() - MINUTE) });

    // Two workers sweeping at the same moment end it once.
    const [a, b] = await Promise.all([endStaleUnstartedCalls(db.prisma, { now }), endStaleUnstartedCalls(db.prisma, { now })]);
    expect([...a, ...b]).toEqual([{ callId: stale.id, endReason: 'not_joined' }]);
    const ended = await db.prisma.call.findUniqueOrThrow({ where: { id: stale.id } });
    expect(ended).toMatchObject({ status: 'failed', endReason: 'not_joined', durationMs: 0, endedAt: now });
    const events = await eventsOf(stale.callSid);
    expect(events.map((e) => e.type)).toEqual(['call.completed', 'call.failed']);
    expect(events[0]!.payload).toMatchObject({ status: 'failed', end_reason: 'not_joined', duration_seconds: 0, transcript: [] });

    // A later sweep writes nothing more.
    expect(await endStaleUnstartedCalls(db.prisma, { now: new Date(now.getTime() + 1000) })).toEqual([]);
    expect(await eventsOf(stale.callSid)).toHaveLength(2);
    for (const waiting of [inGrace, fresh]) {
      expect(await db.prisma.call.findUniqueOrThrow({ where: { id: waiting.id } })).toMatchObject({ status: 'queued', endReason: null });
      expect(await eventsOf(waiting.callSid)).toEqual([]);
    }
  });

  it('ends each kind of call that can no longer start with a reason that says what never happened', async ({ db, callOf, eventsOf }) => {
    const now = new Date();
    const ago = (ms: number) => new Date(now.getTime() - ms);
    const cases = [
      { call: { transport: 'web', direction: 'inbound', status: 'queued', createdAt: ago(12 * MINUTE) }, reason: 'not_joined' },
      { call: { transport: 'media_stream', direction: 'inbound', status: 'ringing', createdAt: ago(61_000) }, reason: 'media_never_connected' },
      { call: { transport: 'sip', direction: 'inbound', status: 'ringing', createdAt: ago(61_000) }, reason: 'ringing_timeout' },
      { call: { transport: 'sip', direction: 'outbound', status: 'initiated', createdAt: ago(10 * MINUTE), updatedAt: ago(4 * MINUTE) }, reason: 'dial_lost' },
      { call: { transport: 'sip', direction: 'outbound', status: 'ringing', createdAt: ago(10 * MINUTE), updatedAt: ago(4 * MINUTE) }, reason: 'dial_lost' },
      { call: { transport: 'sip', direction: 'outbound', status: 'queued', createdAt: ago(61 * MINUTE) }, reason: 'not_dialled' },
      { call: { transport: 'browser', direction: 'inbound', status: 'ringing', createdAt: ago(121 * MINUTE) }, reason: 'not_started' },
    ];
    const alive = [
      // Each inside its bound.
      { transport: 'web', direction: 'inbound', status: 'queued', createdAt: ago(9 * MINUTE) },
      { transport: 'media_stream', direction: 'inbound', status: 'ringing', createdAt: ago(20_000) },
      { transport: 'sip', direction: 'inbound', status: 'ringing', createdAt: ago(20_000) },
      // Queued long ago, but a dialler claimed it a moment ago: the dial is under way.
      { transport: 'sip', direction: 'outbound', status: 'ringing', createdAt: ago(50 * MINUTE), updatedAt: ago(20_000) },
      { transport: 'sip', direction: 'outbound', status: 'queued', createdAt: ago(30 * MINUTE) },
      // Started or finished calls are the recovery sweep's or nobody's business.
      { transport: 'browser', direction: 'inbound', status: 'in_progress', createdAt: ago(300 * MINUTE) },
      { transport: 'sip', direction: 'outbound', status: 'no_answer', createdAt: ago(300 * MINUTE) },
    ];
    const rows = [];
    for (const c of cases) rows.push({ row: await callOf(c.call), reason: c.reason });
    const aliveRows = [];
    for (const c of alive) aliveRows.push(await callOf(c));

    const ended = await endStaleUnstartedCalls(db.prisma, { now });
    expect(ended.sort((x, y) => x.callId - y.callId)).toEqual(rows.map(({ row, reason }) => ({ callId: row.id, endReason: reason })));
    for (const { row, reason } of rows) {
      expect(await db.prisma.call.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ status: 'failed', endReason: reason });
      expect((await eventsOf(row.callSid)).map((e) => e.type)).toEqual(['call.completed', 'call.failed']);
    }
    for (const row of aliveRows) {
      const after = await db.prisma.call.findUniqueOrThrow({ where: { id: row.id } });
      expect(after.status).toBe(row.status);
      expect(await eventsOf(row.callSid)).toEqual([]);
    }
  });

  it('leaves a call that a dialler claimed between the sweep reading it and ending it', async ({ db, callOf, eventsOf }) => {
    const now = new Date();
    const queued = await callOf({ transport: 'sip', direction: 'outbound', status: 'queued', createdAt: new Date(now.getTime() - 61 * MINUTE) });
    // The sweep read it as undialled; then a dialler claims it (`initiated`, still a status before the start).
    await db.prisma.call.update({ where: { id: queued.id }, data: { status: 'initiated' } });
    expect(await endUnstartedCall(db.prisma, queued.id, 'failed', 'not_dialled', now, { status: 'queued' })).toBe(false);
    // Nor is it a lost dial yet: the claim touched it a moment ago.
    expect(await endStaleUnstartedCalls(db.prisma, { now })).toEqual([]);
    expect(await db.prisma.call.findUniqueOrThrow({ where: { id: queued.id } })).toMatchObject({ status: 'initiated', endReason: null });
    expect(await eventsOf(queued.callSid)).toEqual([]);
  });

  it('is part of the sweep every worker runs', async ({ db, callOf, eventsOf }) => {
    const media = await callOf({ transport: 'media_stream', direction: 'inbound', status: 'ringing', createdAt: new Date(Date.now() - 5_000) });
    const sweep = startCallRecovery(db.prisma, { intervalMs: 100, unstartedLimits: { inboundRingingMs: 4_000 } });
    try {
      await until(async () => (await db.prisma.call.findUniqueOrThrow({ where: { id: media.id } })).status === 'failed', 5_000);
    } finally {
      await sweep.stop();
    }
    expect((await eventsOf(media.callSid)).map((e) => e.type)).toEqual(['call.completed', 'call.failed']);
  });
});
