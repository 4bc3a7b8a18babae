import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PacedAudioOutput } from './io/paced-audio-output.js';
import { PushAudioInput } from './io/push-audio-input.js';
import { vendorAccessFromEnv } from './providers/speech-providers.js';
import { startAgentWorker } from './worker.js';
import { readConfig } from '../lib/config.js';
import { createTestDatabase, type TestDatabase } from '../test/helpers/database.js';
import { createCall, localSettings } from '../test/runtime/call-harness.js';
import { startFakeOpenAI, type FakeOpenAI } from '../test/fakes/vendors/openai.js';
import { ScriptedCaller } from '../test/fakes/scripted-caller.js';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

let db: TestDatabase;
let llm: FakeOpenAI;
/** The workers' DATA_DIR, where a worker keeps its secrets key, its calls' recordings and their spools. */
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'agent-worker-'));
  db = await createTestDatabase();
  llm = await startFakeOpenAI(() => ({ text: 'Sure.' }));
});

afterAll(async () => {
  try {
    await llm.close();
    await db.drop();
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

function audioPair() {
  const audioInput = new PushAudioInput();
  const audioOutput = new PacedAudioOutput();
  const caller = new ScriptedCaller(audioInput);
  caller.start();
  return { audioInput, audioOutput, caller };
}

/** A worker as `npm start` runs it without LiveKit: calls in this process, on the file's database. */
const startLocalWorker = () =>
  startAgentWorker({
    prisma: db.prisma,
    databaseUrl: db.url,
    changes: db.changes,
    config: readConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', VENDOR_PRIVATE_HOSTS: '127.0.0.1' }),
  });

describe('the agent worker without LiveKit', () => {
  it('runs calls in local mode and, on stop, lets a running call finish before it returns', async () => {
    const worker = await startLocalWorker();
    expect(worker.mode).toBe('local');
    const call = await createCall(db.prisma, localSettings(llm.url, { llm_settings: { welcome_message: 'Hello.' } }));
    const { audioInput, audioOutput, caller } = audioPair();
    const hangup = new AbortController();
    const running = worker.runner!.start({
      callId: call.id,
      audioInput,
      audioOutput,
      signal: hangup.signal,
      access: vendorAccessFromEnv({ VENDOR_PRIVATE_HOSTS: '127.0.0.1' }),
    });
    await new Promise((r) => setTimeout(r, 1500));
    expect(worker.runner!.activeCalls).toBe(1);
    let stopped = false;
    const stopping = worker.stop({ drainTimeoutMs: 60_000 }).then(() => (stopped = true));
    await expect(worker.runner!.start({ callId: call.id, audioInput, audioOutput })).rejects.toThrow('shutting down');
    await new Promise((r) => setTimeout(r, 500));
    expect(stopped).toBe(false);
    hangup.abort();
    const result = await running;
    await stopping;
    caller.stop();
    expect(result).toMatchObject({ status: 'completed', endReason: 'customer_hangup' });
    expect(worker.runner!.activeCalls).toBe(0);
  }, 120_000);

  it('ends calls still running at the drain deadline with reason worker_shutdown', async () => {
    const worker = await startLocalWorker();
    const call = await createCall(db.prisma, localSettings(llm.url));
    const { audioInput, audioOutput, caller } = audioPair();
    const running = worker.runner!.start({ callId: call.id, audioInput, audioOutput, access: vendorAccessFromEnv({ VENDOR_PRIVATE_HOSTS: '127.0.0.1' }) });
    await new Promise((r) => setTimeout(r, 1000));
    await worker.stop({ drainTimeoutMs: 200 });
    caller.stop();
    expect(await running).toMatchObject({ status: 'completed', endReason: 'worker_shutdown' });
    const stored = await db.prisma.call.findUniqueOrThrow({ where: { id: call.id } });
    expect(stored).toMatchObject({ status: 'completed', endReason: 'worker_shutdown' });
  }, 120_000);
});
