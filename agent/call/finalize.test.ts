import { initializeLogger, voice } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { access, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LocalFileStorage, type RecordingStorage } from '../../media/recording/storage.js';
import { AssistantSettings } from '../../modules/assistants/settings.js';
import { newCallSid } from '../../modules/calls/lifecycle.js';
import type { StoredTurn } from '../../modules/calls/store.js';
import { bootstrap } from '../../modules/organizations/bootstrap.js';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.js';
import { finalizeCall, type CallToFinish } from './finalize.js';
import { startHeartbeat } from './heartbeat.js';
import { startRecording, type CallRecording } from './recording.js';
import type { Transcript } from './transcript.js';

// The end of a call against a real database: what is written, once, and what is kept or removed around the write.

let db: TestDatabase;
let organizationId: number;
let dataDir: string;

beforeAll(async () => {
  initializeLogger({ pretty: false, level: 'silent' });
  db = await createTestDatabase();
  organizationId = (await bootstrap(db.prisma, { organizationName: 'Finalize', email: 'finalize@example.com' })).organization_id;
});

afterAll(async () => {
  await db.drop();
});

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'call-finalize-'));
  return () => rm(dataDir, { recursive: true, force: true });
});

const STARTED = new Date('2026-01-05T10:00:00Z');
const ENDED = new Date('2026-01-05T10:00:12Z');

function runningCall() {
  return db.prisma.call.create({
    data: { callSid: newCallSid(), organizationId, direction: 'inbound', status: 'in_progress', startedAt: STARTED, heartbeatAt: STARTED },
  });
}

const turns: StoredTurn[] = [
  { role: 'user', text: 'what time is it', start_ms: 1_000, end_ms: 2_000, interrupted: false, metrics: null },
  { role: 'assistant', text: 'It is noon.', start_ms: 2_800, end_ms: 3_900, interrupted: false, metrics: { llm_ttft_ms: 300, e2e_latency_ms: 800 } },
  {
    role: 'assistant',
    text: '',
    start_ms: 12_000,
    end_ms: 12_000,
    interrupted: false,
    metrics: null,
    tool_calls: [{ name: 'log_outcome', arguments: {}, output: null, is_error: false, at_ms: 11_000 }],
  },
];
const transcript: Transcript = { spoken: turns.slice(0, 2).map(({ metrics: _m, ...t }) => t), turns };
const spokenText = 'user: what time is it\nassistant: It is noon.';

function finish(fields: Partial<CallToFinish> = {}): CallToFinish {
  return {
    ending: { status: 'completed', reason: 'customer_hangup' },
    endedAt: ENDED,
    transcript,
    storage: new LocalFileStorage(dataDir),
    missingVariables: [],
    stopHeartbeat: () => {},
    ...fields,
  };
}

/** A model whose analysis of this transcript answers after `ms`. */
function analyst(ms = 0) {
  const reply = JSON.stringify({ summary: 'The caller asked the time.', goal_achieved: true, sentiment: 'neutral', fields: {} });
  return new voice.testing.FakeLLM([{ input: spokenText, content: reply, ttft: ms }]);
}

/** A second of the caller, recorded as a call with the default tracks would record it. */
function recordedSecond(callSid: string): CallRecording {
  let listener: ((frame: AudioFrame) => void) | undefined;
  const audio = { audioInput: { onFrame: (l: (frame: AudioFrame) => void) => ((listener = l), () => {}) }, audioOutput: {} };
  const settings = AssistantSettings.parse({ name: 'Recorded', recording_settings: { recording_enabled: true, recording_format: 'wav' } }).recording_settings;
  // The caller's frames say they arrived one frame into the call, so the track starts with them.
  const recording = startRecording(settings, audio, { callSid, startedAt: ENDED.getTime() - 1_000, dataDir, clock: () => ENDED.getTime() - 980 })!;
  for (let i = 0; i < 50; i++) listener!(new AudioFrame(new Int16Array(320).fill(500), 16_000, 1, 320));
  recording.stop(ENDED.getTime());
  return recording;
}

const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );

describe('the end of a call', () => {
  it('writes a completed call once: its end, its turns with the tool calls after the last reply, its latency, its analysis and call.completed', async () => {
    const call = await runningCall();
    await finalizeCall(db.prisma, call, finish({ analysis: { model: analyst(), systemPrompt: 'Tell the time.' }, missingVariables: ['contact.name'] }));
    await finalizeCall(db.prisma, call, finish({ ending: { status: 'failed', reason: 'llm_error' } }));

    const stored = await db.prisma.call.findUniqueOrThrow({ where: { id: call.id }, include: { turns: { orderBy: { position: 'asc' } } } });
    expect(stored).toMatchObject({
      status: 'completed',
      endReason: 'customer_hangup',
      endedAt: ENDED,
      durationMs: 12_000,
      summary: 'The caller asked the time.',
      outcomes: { goal_achieved: true, sentiment: 'neutral', fields: {} },
      analysisError: null,
      missingVariables: ['contact.name'],
      metrics: { llm_ttft_ms: { p50: 300, p95: 300, count: 1 }, e2e_latency_ms: { p50: 800, p95: 800, count: 1 } },
    });
    expect(stored.turns.map((t) => [t.role, t.text, t.toolCalls])).toEqual([
      ['user', 'what time is it', null],
      ['assistant', 'It is noon.', null],
      ['assistant', '', [{ name: 'log_outcome', arguments: {}, output: null, is_error: false, at_ms: 11_000 }]],
    ]);
    const events = await db.prisma.event.findMany({ where: { organizationId } });
    expect(events.filter((e) => (e.payload as { call_sid: string }).call_sid === call.callSid).map((e) => e.type)).toEqual(['call.completed']);
  });

  it('analyses no failed call, and says why there is no analysis', async () => {
    const failed = await runningCall();
    const model = analyst();
    await finalizeCall(
      db.prisma,
      failed,
      finish({ ending: { status: 'failed', reason: 'llm_error', apology: true }, analysis: { model, systemPrompt: 'Tell the time.' } }),
    );
    expect(await db.prisma.call.findUniqueOrThrow({ where: { id: failed.id } })).toMatchObject({
      status: 'failed',
      endReason: 'llm_error',
      summary: null,
      analysisError: 'call failed',
    });
    const types = (await db.prisma.event.findMany({ where: { organizationId } }))
      .filter((e) => (e.payload as { call_sid: string }).call_sid === failed.callSid)
      .map((e) => e.type);
    expect(types.sort()).toEqual(['call.completed', 'call.failed']);

    const unanalysed = await runningCall();
    await finalizeCall(db.prisma, unanalysed, finish());
    expect(await db.prisma.call.findUniqueOrThrow({ where: { id: unanalysed.id } })).toMatchObject({
      status: 'completed',
      summary: null,
      analysisError: 'no model',
    });
  });

  it('keeps the heartbeat beating through the analysis, and stops it once the record is written', async () => {
    const call = await runningCall();
    const stop = startHeartbeat(db.prisma, call.id, { intervalMs: 20 });
    let statusWhenStopped: Promise<string | undefined> | undefined;
    const finishing = Date.now();
    await finalizeCall(
      db.prisma,
      call,
      finish({
        analysis: { model: analyst(300), systemPrompt: 'Tell the time.' },
        stopHeartbeat: () => {
          stop();
          statusWhenStopped = db.prisma.call.findUnique({ where: { id: call.id } }).then((c) => c?.status);
        },
      }),
    );
    expect(await statusWhenStopped).toBe('completed');
    const stored = await db.prisma.call.findUniqueOrThrow({ where: { id: call.id } });
    expect(stored.summary).toBe('The caller asked the time.');
    // Beats every 20 ms while the analysis took 300 ms.
    expect(stored.heartbeatAt!.getTime() - finishing).toBeGreaterThanOrEqual(200);
  });

  it('lists the stored tracks on the call, and removes the spool only once they are listed', async () => {
    const call = await runningCall();
    const recording = recordedSecond(call.callSid);
    let listedWhenDiscarded: number | undefined;
    const watched: CallRecording = {
      ...recording,
      spoolDir: recording.spoolDir,
      discard: async () => {
        listedWhenDiscarded = await db.prisma.callRecording.count({ where: { callId: call.id } });
        await recording.discard();
      },
    };
    await finalizeCall(db.prisma, call, finish({ recording: watched }));
    const listed = await db.prisma.callRecording.findMany({ where: { callId: call.id } });
    expect(listed.map((r) => [r.track, r.format, r.durationMs]).sort()).toEqual([
      ['assistant', 'wav', 1_000],
      ['mixed', 'wav', 1_000],
      ['user', 'wav', 1_000],
    ]);
    expect(listedWhenDiscarded).toBe(3);
    expect(await exists(recording.spoolDir)).toBe(false);
  });

  it('ends the call without recordings when the tracks cannot be stored, and keeps the spool for an operator', async () => {
    const call = await runningCall();
    const recording = recordedSecond(call.callSid);
    const full: RecordingStorage = {
      put: () => Promise.reject(new Error('no space left on device')),
      size: async () => null,
      read: () => {
        throw new Error('nothing stored');
      },
      remove: async () => {},
    };
    await finalizeCall(db.prisma, call, finish({ recording, storage: full }));
    expect(await db.prisma.call.findUniqueOrThrow({ where: { id: call.id }, include: { recordings: true } })).toMatchObject({
      status: 'completed',
      recordings: [],
    });
    expect(await exists(recording.spoolDir)).toBe(true);
  });
});
