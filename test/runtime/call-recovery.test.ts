import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recoverOrphanedCalls, startCallRecovery } from '../../agent/call-recovery.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { createCall, localSettings } from './call-harness.js';
import { startFakeOpenAI, type FakeOpenAI } from './fakes/openai-server.js';
import { until } from '../helpers/until.js';

const CALL_PROCESS = fileURLToPath(new URL('./call-process.ts', import.meta.url));

let db: TestDatabase;
let llm: FakeOpenAI;
beforeAll(async () => {
  db = await createTestDatabase();
  llm = await startFakeOpenAI(() => ({ text: 'It is noon.' }));
});
afterAll(async () => {
  await llm.close();
  await db.drop();
});


async function eventsOf(callSid: string) {
  const events = await db.prisma.event.findMany({ orderBy: { createdAt: 'asc' } });
  return events.filter((e) => (e.payload as { call_sid?: string }).call_sid === callSid);
}

describe('calls whose process dies', () => {
  it('keeps the turns stored while the call ran, then ends it as failed with worker_lost and writes its events once', async () => {
    const call = await createCall(db.prisma, localSettings(llm.url, { llm_settings: { welcome_message: 'Hello, how can I help?' } }));
    const child = spawn(process.execPath, ['--import', 'tsx', CALL_PROCESS], {
      env: { ...process.env, DATABASE_URL: db.url, CALL_ID: String(call.id) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      // Killed once the caller has been answered: the welcome, the question and the reply are stored mid-call.
      const turns = await until(async () => {
        const rows = await db.prisma.callTurn.findMany({ where: { callId: call.id }, orderBy: { position: 'asc' } });
        return rows.length >= 3 && rows;
      }, 25_000);
      expect(turns.map((t) => [t.role, t.text])).toEqual([
        ['assistant', 'Hello, how can I help?'],
        ['user', 'what time is it'],
        ['assistant', 'It is noon.'],
      ]);
      const beating = await db.prisma.call.findUniqueOrThrow({ where: { id: call.id } });
      expect(beating.status).toBe('in_progress');
      expect(beating.heartbeatAt!.getTime()).toBeGreaterThan(beating.startedAt!.getTime());
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }

    // Alive a moment ago: not yet the sweep's business.
    expect(await recoverOrphanedCalls(db.prisma, { staleAfterMs: 60_000 })).toEqual([]);
    await new Promise((r) => setTimeout(r, 600));
    // Two workers sweeping side by side end the call once.
    const [a, b] = await Promise.all([recoverOrphanedCalls(db.prisma, { staleAfterMs: 400 }), recoverOrphanedCalls(db.prisma, { staleAfterMs: 400 })]);
    expect([...a, ...b]).toEqual([call.id]);

    const ended = await db.prisma.call.findUniqueOrThrow({ where: { id: call.id }, include: { turns: true } });
    expect(ended).toMatchObject({ status: 'failed', endReason: 'worker_lost' });
    expect(ended.turns).toHaveLength(3);
    expect(ended.endedAt!.getTime()).toBe(ended.heartbeatAt!.getTime());
    expect(ended.durationMs).toBeGreaterThan(1000);
    const events = await eventsOf(call.callSid);
    expect(events.map((e) => e.type)).toEqual(['call.started', 'call.completed', 'call.failed']);
    expect(events[1]!.payload).toMatchObject({ status: 'failed', end_reason: 'worker_lost', transcript: expect.arrayContaining([expect.objectContaining({ text: 'It is noon.' })]) });
  }, 60_000);

  it('leaves running and finished calls alone, and the worker sweep ends a call that started but never beat', async () => {
    const running = await createCall(db.prisma, localSettings(llm.url));
    await db.prisma.call.update({ where: { id: running.id }, data: { status: 'in_progress', startedAt: new Date(Date.now() - 3_600_000), heartbeatAt: new Date() } });
    const finished = await createCall(db.prisma, localSettings(llm.url));
    await db.prisma.call.update({ where: { id: finished.id }, data: { status: 'completed', startedAt: new Date(Date.now() - 3_600_000), heartbeatAt: new Date(Date.now() - 3_600_000) } });
    // A row from before heartbeats: only its start tells how old it is.
    const silent = await createCall(db.prisma, localSettings(llm.url));
    await db.prisma.call.update({ where: { id: silent.id }, data: { status: 'in_progress', startedAt: new Date(Date.now() - 120_000), heartbeatAt: null } });

    const sweep = startCallRecovery(db.prisma, { intervalMs: 100, staleAfterMs: 60_000 });
    try {
      await until(async () => (await db.prisma.call.findUniqueOrThrow({ where: { id: silent.id } })).status === 'failed', 5_000);
    } finally {
      await sweep.stop();
    }
    expect(await db.prisma.call.findUniqueOrThrow({ where: { id: running.id } })).toMatchObject({ status: 'in_progress' });
    expect(await db.prisma.call.findUniqueOrThrow({ where: { id: finished.id } })).toMatchObject({ status: 'completed' });
    expect((await eventsOf(silent.callSid)).map((e) => e.type)).toEqual(['call.completed', 'call.failed']);
  }, 30_000);
});
