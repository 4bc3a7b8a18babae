import { initializeLogger } from '@livekit/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delay } from '../../lib/async.js';
import { newCallSid } from '../../modules/calls/lifecycle.js';
import { bootstrap } from '../../modules/organizations/bootstrap.js';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.js';
import { startHeartbeat } from './heartbeat.js';
import { until } from '../../test/helpers/until.js';

// A running call's heartbeat against a real database.

let db: TestDatabase;
let organizationId: number;

beforeAll(async () => {
  initializeLogger({ pretty: false, level: 'silent' });
  db = await createTestDatabase();
  organizationId = (await bootstrap(db.prisma, { organizationName: 'Heartbeat', email: 'heartbeat@example.com' })).organization_id;
});

afterAll(async () => {
  await db.drop();
});

const LONG_AGO = new Date('2026-01-05T10:00:00Z');
const beatOf = async (id: number) => (await db.prisma.call.findUniqueOrThrow({ where: { id } })).heartbeatAt!.getTime();

describe("a running call's heartbeat", () => {
  it('renews the heartbeat while the call runs, and no more once stopped', async () => {
    const call = await db.prisma.call.create({
      data: { callSid: newCallSid(), organizationId, direction: 'inbound', status: 'in_progress', startedAt: LONG_AGO, heartbeatAt: LONG_AGO },
    });
    const started = Date.now();
    const stop = startHeartbeat(db.prisma, call.id, { intervalMs: 30 });
    await until(async () => (await beatOf(call.id)) >= started);
    await stop();
    const last = await beatOf(call.id);
    // Five intervals: a beat still going would have landed.
    await delay(150);
    expect(await beatOf(call.id)).toBe(last);
  });
});
