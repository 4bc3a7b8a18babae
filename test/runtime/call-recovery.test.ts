import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, onTestFinished } from 'vitest';
import { recoverOrphanedCalls, startCallRecovery } from '../../agent/call/recovery.js';
import { vendorAccessFromEnv } from '../../agent/providers/speech-providers.js';
import { mp3Info } from '../../media/mp3-duration.js';
import { rms } from '../../media/pcm.js';
import { openSpool, SpoolWriter, spoolDirOf } from '../../media/recording/spool.js';
import { dbTest } from '../helpers/fixtures.js';
import { decodeMp3 } from '../helpers/decode-mp3.js';
import { createCall, localSettings } from './call-harness.js';
import { startFakeOpenAI } from '../fakes/vendors/openai.js';
import { CALLER_RATE } from '../fakes/scripted-caller.js';
import { until } from '../helpers/until.js';
import { decodeWav } from '../../media/wav.js';
import { beepSample } from '../../media/recording/beep.js';
import { BEEP_MARGIN_MS } from '../../agent/call/recording.js';
import { startFakeCallModel } from '../fakes/vendors/call-model.js';

/** A call's DATA_DIR for this test, removed once the test has read it. */
async function callDataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'call-data-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const CALL_PROCESS = fileURLToPath(new URL('./call-process.ts', import.meta.url));

const SUMMARY = 'The caller asked the time.';
/** When the caller of the killed call asks the time: after the welcome has played, even on a busy machine. */
const SPEAKS_AT_MS = 500;
/** No vendor keys from the machine's environment: the assistants name their fake LLM themselves. */
const access = vendorAccessFromEnv({ VENDOR_PRIVATE_HOSTS: '127.0.0.1' });

const it = dbTest
  .extend('llm', { scope: 'file' }, async ({}, { onCleanup }) => {
    const llm = await startFakeCallModel(SUMMARY, () => ({ text: 'It is noon.' }));
    onCleanup(() => llm.close());
    return llm;
  })
  .extend('eventsOf', { scope: 'file' }, async ({ db }) => async (callSid: string) => {
    const events = await db.prisma.event.findMany({ orderBy: { createdAt: 'asc' } });
    return events.filter((e) => (e.payload as { call_sid?: string }).call_sid === callSid);
  });

function level(samples: Int16Array, fromMs: number, toMs: number): number {
  return rms(samples.subarray(Math.floor((fromMs * CALLER_RATE) / 1000), Math.floor((toMs * CALLER_RATE) / 1000)));
}

describe('calls whose process dies', () => {
  it('keeps the turns stored while the call ran, renders its spooled recording and analyses it, then ends it as failed with worker_lost once', async ({
    db,
    llm,
    eventsOf,
  }) => {
    const dataDir = await callDataDir();
    // Default recording settings: mp3, user, assistant and mixed tracks.
    const call = await createCall(db.prisma, localSettings(llm.url, { llm_settings: { welcome_message: 'Hello, how can I help?' }, recording_settings: {} }));
    const child = spawn(process.execPath, ['--import', 'tsx', CALL_PROCESS], {
      env: { ...process.env, DATABASE_URL: db.url, CALL_ID: String(call.id), DATA_DIR: dataDir, SPEAKS_AT_MS: String(SPEAKS_AT_MS) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      // Killed once the caller has been answered: the welcome, the question and the reply are stored mid-call.
      const turns = await until(
        async () => {
          if (child.exitCode !== null) throw new Error(`the call's process exited with ${child.exitCode}`);
          const rows = await db.prisma.callTurn.findMany({ where: { callId: call.id }, orderBy: { position: 'asc' } });
          return rows.length >= 3 && rows;
        },
        // The child imports the whole runtime first: seconds alone, over 20 s on a loaded 2-core machine. A cap only.
        { timeoutMs: 180_000, intervalMs: 200, message: 'the welcome, the question and the reply stored' },
      );
      expect(turns.map((t) => [t.role, t.text])).toEqual([
        ['assistant', 'Hello, how can I help?'],
        ['user', 'what time is it'],
        ['assistant', 'It is noon.'],
      ]);
      const beating = await db.prisma.call.findUniqueOrThrow({ where: { id: call.id } });
      expect(beating.status).toBe('in_progress');
      expect(beating.heartbeatAt!.getTime()).toBeGreaterThan(beating.startedAt!.getTime());
      // The recording is on disk while the call runs, not only in the process's memory.
      expect(existsSync(path.join(spoolDirOf(dataDir, call.callSid), 'user.pcm'))).toBe(true);
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    const dead = await db.prisma.call.findUniqueOrThrow({ where: { id: call.id } });
    const spool = (await openSpool(spoolDirOf(dataDir, call.callSid)))!;
    const spooledMs = Math.round((Math.max(spool.samples.user, spool.samples.assistant) * 1000) / spool.sampleRate);
    await spool.close();

    // Alive a moment ago: not yet the sweep's business.
    expect(await recoverOrphanedCalls(db.prisma, { staleAfterMs: 60_000, dataDir, access })).toEqual([]);
    await new Promise((r) => setTimeout(r, 600));
    // Two workers sweeping side by side end the call once.
    const sweep = () => recoverOrphanedCalls(db.prisma, { staleAfterMs: 400, dataDir, access });
    const [a, b] = await Promise.all([sweep(), sweep()]);
    expect([...a, ...b]).toEqual([call.id]);

    const ended = await db.prisma.call.findUniqueOrThrow({ where: { id: call.id }, include: { turns: true, recordings: true } });
    expect(ended).toMatchObject({ status: 'failed', endReason: 'worker_lost', summary: SUMMARY, analysisError: null });
    expect(ended.outcomes).toMatchObject({ goal_achieved: true, sentiment: 'neutral' });
    expect(ended.turns).toHaveLength(3);
    // It ended at the last evidence of the call: the latest of the last beat (every 200 ms here), the last turn's end
    // and the spooled audio's end (synced at least every second).
    const lastTurnEnd = Math.max(...ended.turns.map((t) => t.endMs));
    const evidenceMs = Math.max(dead.heartbeatAt!.getTime() - dead.startedAt!.getTime(), lastTurnEnd, spooledMs);
    expect(Math.abs(ended.durationMs! - evidenceMs)).toBeLessThanOrEqual(1);
    expect(ended.endedAt!.getTime() - ended.startedAt!.getTime()).toBe(ended.durationMs);
    expect(ended.durationMs).toBeGreaterThanOrEqual(lastTurnEnd);

    expect(ended.recordings.map((r) => r.track).sort()).toEqual(['assistant', 'mixed', 'user']);
    const decoded: Record<string, Int16Array> = {};
    for (const recording of ended.recordings) {
      expect(recording.format).toBe('mp3');
      const file = path.join(dataDir, recording.storageKey);
      const bytes = await readFile(file);
      expect(recording.sizeBytes).toBe(bytes.length);
      const info = mp3Info(bytes);
      expect(info.sampleRate).toBe(16_000);
      // LAME pads the stream with up to two frames (72 ms at 16 kHz).
      expect(Math.abs(info.durationMs - recording.durationMs)).toBeLessThan(150);
      // Up to the last audio written; which reaches the disk at least every second, the heartbeat every 200 ms here.
      expect(recording.durationMs).toBe(spooledMs);
      // The call lasts at least as long as its tracks. How much longer is what the other evidence holds past the audio
      // that reached the disk (a turn stored, or a beat, after the last sync), which the end's check above pins; no
      // bound in time is asserted on it: the spool syncs every second only while the process runs its timers on time.
      expect(ended.durationMs! - recording.durationMs).toBeGreaterThanOrEqual(-1);
      decoded[recording.track] = await decodeMp3(file, CALLER_RATE);
      expect(Math.abs((decoded[recording.track]!.length * 1000) / CALLER_RATE - recording.durationMs)).toBeLessThan(150);
    }
    // Each voice where the transcript has it, on the call's timeline; silence in the user track before the caller spoke.
    const [welcome, question] = ended.turns.sort((x, y) => x.position - y.position);
    expect(level(decoded.user!, question!.startMs, question!.endMs)).toBeGreaterThan(500);
    expect(level(decoded.user!, 0, question!.startMs - 500)).toBeLessThan(50);
    expect(level(decoded.assistant!, welcome!.startMs, welcome!.endMs)).toBeGreaterThan(500);
    expect(level(decoded.assistant!, 0, welcome!.startMs - 100)).toBeLessThan(50);
    expect(level(decoded.mixed!, question!.startMs, question!.endMs)).toBeGreaterThan(500);
    expect(level(decoded.mixed!, welcome!.startMs, welcome!.endMs)).toBeGreaterThan(500);
    expect(existsSync(spoolDirOf(dataDir, call.callSid))).toBe(false);

    const events = await eventsOf(call.callSid);
    expect(events.map((e) => e.type)).toEqual(['call.started', 'call.completed', 'call.failed']);
    expect(events[1]!.payload).toMatchObject({
      status: 'failed',
      end_reason: 'worker_lost',
      summary: SUMMARY,
      transcript: expect.arrayContaining([expect.objectContaining({ text: 'It is noon.' })]),
    });
    expect((events[1]!.payload as { recordings: Array<{ track: string }> }).recordings.map((r) => r.track).sort()).toEqual(['assistant', 'mixed', 'user']);
  }, 240_000);

  it('ends an orphan whose spool it cannot find without recordings and without error', async ({ db, llm, eventsOf }) => {
    // The call ran on another host whose DATA_DIR this worker does not share.
    const dataDir = await callDataDir();
    const call = await createCall(db.prisma, localSettings(llm.url, { recording_settings: {} }));
    const lastBeat = new Date(Date.now() - 120_000);
    await db.prisma.call.update({
      where: { id: call.id },
      data: { status: 'in_progress', startedAt: new Date(lastBeat.getTime() - 30_000), heartbeatAt: lastBeat },
    });
    await db.prisma.callTurn.create({
      data: { callId: call.id, position: 0, role: 'user', text: 'what time is it', startMs: 1000, endMs: 2000, interrupted: false },
    });

    expect(await recoverOrphanedCalls(db.prisma, { dataDir, access })).toEqual([call.id]);
    const ended = await db.prisma.call.findUniqueOrThrow({ where: { id: call.id }, include: { recordings: true } });
    expect(ended).toMatchObject({ status: 'failed', endReason: 'worker_lost', summary: SUMMARY, durationMs: 30_000 });
    expect(ended.recordings).toEqual([]);
    const events = await eventsOf(call.callSid);
    expect(events.map((e) => e.type)).toEqual(['call.completed', 'call.failed']);
    expect(events[0]!.payload).toMatchObject({ recordings: [] });
  });

  it('ends a call at its last evidence: the spooled audio or the last turn, when they outlast the last heartbeat, never in the future', async ({
    db,
    llm,
    eventsOf,
  }) => {
    const startedAt = new Date(Date.now() - 120_000);
    // The process beat once, at the start (beats come every 15 s), stored a turn that ended 4 s in and spooled 8 s of
    // the caller's audio before it died.
    const setUp = async (dataDir: string) => {
      const call = await createCall(db.prisma, localSettings(llm.url, { recording_settings: { recording_enabled: false } }));
      await db.prisma.call.update({ where: { id: call.id }, data: { status: 'in_progress', startedAt, heartbeatAt: startedAt } });
      await db.prisma.callTurn.create({
        data: { callId: call.id, position: 0, role: 'user', text: 'what time is it', startMs: 2500, endMs: 4000, interrupted: false },
      });
      const spool = new SpoolWriter(spoolDirOf(dataDir, call.callSid), { sampleRate: 16_000, startedAt: startedAt.getTime() });
      spool.write('user', 0, new Int16Array(8 * 16_000).fill(100));
      spool.write('assistant', 16_000, new Int16Array(2 * 16_000).fill(100));
      await spool.close();
      return call;
    };
    const dataDir = await callDataDir();
    const spooled = await setUp(dataDir);
    expect(await recoverOrphanedCalls(db.prisma, { dataDir, access })).toEqual([spooled.id]);
    const withSpool = await db.prisma.call.findUniqueOrThrow({ where: { id: spooled.id } });
    expect(withSpool).toMatchObject({ status: 'failed', endReason: 'worker_lost', durationMs: 8000, endedAt: new Date(startedAt.getTime() + 8000) });
    expect((await eventsOf(spooled.callSid))[0]!.payload).toMatchObject({ duration_seconds: 8, ended_at: new Date(startedAt.getTime() + 8000).toISOString() });

    // The spool on another host: the transcript is the last evidence.
    const elsewhere = await setUp(await callDataDir());
    expect(await recoverOrphanedCalls(db.prisma, { dataDir, access })).toEqual([elsewhere.id]);
    expect(await db.prisma.call.findUniqueOrThrow({ where: { id: elsewhere.id } })).toMatchObject({
      durationMs: 4000,
      endedAt: new Date(startedAt.getTime() + 4000),
    });

    // Evidence past the sweep's own clock (a machine whose clock ran ahead) is capped at that clock.
    const ahead = await setUp(dataDir);
    const now = new Date(startedAt.getTime() + 6000);
    expect(await recoverOrphanedCalls(db.prisma, { dataDir, access, now, staleAfterMs: 1000 })).toEqual([ahead.id]);
    expect(await db.prisma.call.findUniqueOrThrow({ where: { id: ahead.id } })).toMatchObject({ durationMs: 6000, endedAt: now });
  });

  it('ends a redacted orphan with its analysis and variables masked, and beeps its stored details and all its untranscribed audio', async ({ db }) => {
    // The model's summary names the caller, as a summary of the call's stored, masked turns still may.
    const model = await startFakeCallModel('Jane Doe asked to be called back on 415 555 0123.', () => ({ text: 'It is noon.' }));
    onTestFinished(() => model.close());
    const dataDir = await callDataDir();
    const startedAt = new Date(Date.now() - 120_000);
    const call = await createCall(db.prisma, localSettings(model.url, { recording_settings: { recording_enabled: true, recording_format: 'wav' } }), {
      variables: { first_name: 'Jane', callback: '+1 415 555 0123', plan: 'gold' },
    });
    await db.prisma.call.update({ where: { id: call.id }, data: { status: 'in_progress', privacyMode: 'redacted', startedAt, heartbeatAt: startedAt } });
    // As the process stored them before it died: masked, turn by turn. The caller went on speaking after the last.
    await db.prisma.callTurn.createMany({
      data: [
        { callId: call.id, position: 0, role: 'assistant', text: 'Hello, how can I help?', startMs: 0, endMs: 1500, interrupted: false },
        { callId: call.id, position: 1, role: 'user', text: 'my name is [name]', startMs: 2000, endMs: 3000, interrupted: false },
      ],
    });
    const spool = new SpoolWriter(spoolDirOf(dataDir, call.callSid), { sampleRate: 16_000, startedAt: startedAt.getTime() });
    spool.write('user', 0, new Int16Array(6 * 16_000).fill(100));
    spool.write('assistant', 0, new Int16Array(6 * 16_000).fill(100));
    await spool.close();

    expect(await recoverOrphanedCalls(db.prisma, { dataDir, access })).toEqual([call.id]);
    const ended = await db.prisma.call.findUniqueOrThrow({ where: { id: call.id }, include: { recordings: true } });
    expect(ended).toMatchObject({ status: 'failed', endReason: 'worker_lost', durationMs: 6000 });
    expect(ended.summary).toBe('[name] asked to be called back on [phone].');
    expect(ended.variables).toEqual({ first_name: '[name]', callback: '[phone]', plan: 'gold' });

    // What was spoken while the call ran as 100s, a beep where it is not: the caller's stretch that said a detail (from
    // the welcome's end, with its margin) and, on both sides, everything after the last stored turn, never transcribed.
    const track = async (name: string) => {
      const recording = ended.recordings.find((r) => r.track === name)!;
      return decodeWav(await readFile(path.join(dataDir, recording.storageKey))).samples;
    };
    const isBeep = (samples: Int16Array, fromMs: number, toMs: number) => {
      for (let i = Math.ceil((fromMs * 16_000) / 1000); i < Math.floor((toMs * 16_000) / 1000); i++) if (samples[i] !== beepSample(i, 16_000)) return false;
      return true;
    };
    const untouched = (samples: Int16Array, fromMs: number, toMs: number) =>
      samples.subarray((fromMs * 16_000) / 1000, (toMs * 16_000) / 1000).every((v) => v === 100);
    const [user, assistant] = [await track('user'), await track('assistant')];
    expect(untouched(user, 0, 1500 - BEEP_MARGIN_MS)).toBe(true);
    expect(isBeep(user, 1500 - BEEP_MARGIN_MS, 6000)).toBe(true);
    expect(untouched(assistant, 0, 3000 - BEEP_MARGIN_MS)).toBe(true);
    expect(isBeep(assistant, 3000 - BEEP_MARGIN_MS, 6000)).toBe(true);
  });

  it('stores an analysis that failed as analysis_error and still ends the call', async ({ db }) => {
    const broken = await startFakeOpenAI(() => ({ status: 500, message: 'model overloaded' }));
    try {
      const call = await createCall(db.prisma, localSettings(broken.url));
      await db.prisma.call.update({
        where: { id: call.id },
        data: { status: 'in_progress', startedAt: new Date(Date.now() - 180_000), heartbeatAt: new Date(Date.now() - 120_000) },
      });
      await db.prisma.callTurn.create({
        data: { callId: call.id, position: 0, role: 'user', text: 'what time is it', startMs: 1000, endMs: 2000, interrupted: false },
      });

      const dataDir = await callDataDir();
      expect(await recoverOrphanedCalls(db.prisma, { dataDir, access })).toEqual([call.id]);
      expect(broken.chats().length).toBeGreaterThan(0);
      const ended = await db.prisma.call.findUniqueOrThrow({ where: { id: call.id } });
      expect(ended).toMatchObject({ status: 'failed', endReason: 'worker_lost', summary: null, outcomes: null });
      expect(ended.analysisError).toMatch(/^analysis /);
    } finally {
      await broken.close();
    }
  });

  it('leaves running and finished calls alone, and the worker sweep ends a call that started but never beat', async ({ db, llm, eventsOf }) => {
    const running = await createCall(db.prisma, localSettings(llm.url));
    await db.prisma.call.update({
      where: { id: running.id },
      data: { status: 'in_progress', startedAt: new Date(Date.now() - 3_600_000), heartbeatAt: new Date() },
    });
    const finished = await createCall(db.prisma, localSettings(llm.url));
    await db.prisma.call.update({
      where: { id: finished.id },
      data: { status: 'completed', startedAt: new Date(Date.now() - 3_600_000), heartbeatAt: new Date(Date.now() - 3_600_000) },
    });
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
  }, 120_000);
});
