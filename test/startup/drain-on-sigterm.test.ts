import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { WebSocket } from 'ws';
import { bootstrap } from '../../modules/organizations/bootstrap.js';
import type { PrismaClient } from '../../prisma/client.js';
import { speechSamples } from '../fakes/scripted-caller.js';
import { startFakeOpenAI } from '../fakes/vendors/openai.js';
import { dbTest } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';
import { localSettings } from '../runtime/call-harness.js';

// `npm start` told to stop (SIGTERM, as Docker and Kubernetes send it) while a browser call is under way: the call goes
// on, its socket served by the API, until the caller hangs up, and only then does the process exit. A call still going
// when SHUTDOWN_DRAIN_S runs out is ended as `worker_shutdown`, not as the caller's hang-up. Closing the API first
// used to cut every such call at once, recorded as `customer_hangup`.

const ROOT = path.resolve(import.meta.dirname, '../..');
const FRAME = 320; // 20 ms at 16 kHz

interface Service {
  child: ChildProcess;
  output: () => string;
  url: string;
}

async function startService(databaseUrl: string, dataDir: string, drainSeconds: number): Promise<Service> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'info',
      VENDOR_PRIVATE_HOSTS: '127.0.0.1',
      SHUTDOWN_DRAIN_S: String(drainSeconds),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const url = await until(
    () => {
      if (child.exitCode !== null) throw new Error(`the service exited:\n${output}`);
      return /"msg":"service started"/.test(output) ? /"url":"([^"]+)"/.exec(output.slice(output.indexOf('"msg":"service started"') - 400))?.[1] : undefined;
    },
    { timeoutMs: 120_000, message: () => `the service did not start:\n${output}` },
  );
  return { child, output: () => output, url };
}

/** A browser's side of the call socket: 20 ms frames of silence on the wall clock, and words when asked. */
function caller(websocketUrl: string) {
  const ws = new WebSocket(websocketUrl);
  const said: Array<{ type: string; role?: string; text?: string; end_reason?: string }> = [];
  let queued: Int16Array<ArrayBufferLike> = new Int16Array(0);
  ws.on('message', (data, binary) => {
    if (!binary) said.push(JSON.parse(String(data)));
  });
  const pacer = setInterval(() => {
    if (ws.readyState !== WebSocket.OPEN) return;
    const frame = new Int16Array(FRAME);
    frame.set(queued.subarray(0, FRAME));
    queued = queued.subarray(Math.min(FRAME, queued.length));
    ws.send(Buffer.from(frame.buffer));
  }, 20);
  const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
  void closed.then(() => clearInterval(pacer));
  return {
    opened: new Promise<void>((resolve, reject) => ws.once('open', () => resolve()).once('error', reject)),
    closed,
    said,
    speak: async (text: string) => {
      queued = await speechSamples(text);
    },
    hangUp: () => ws.send(JSON.stringify({ type: 'hangup' })),
    stop: () => {
      clearInterval(pacer);
      ws.terminate();
    },
  };
}

const exitOf = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));

/**
 * `npm start` on the test's database with `SHUTDOWN_DRAIN_S`, an organisation, an assistant on the instant LLM, and a
 * browser call under way on its socket; cleaned up whatever the test did.
 */
async function callUnderWay(
  db: { prisma: PrismaClient; url: string },
  name: string,
  drainSeconds: number,
  test: (service: Service, browser: ReturnType<typeof caller>, callSid: string) => Promise<void>,
): Promise<void> {
  const llm = await startFakeOpenAI(() => ({ text: 'It is noon.' }));
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'drain-'));
  const { api_key } = await bootstrap(db.prisma, { organizationName: name, email: `${name.toLowerCase().replace(/\W+/g, '-')}@example.com` });
  const service = await startService(db.url, dataDir, drainSeconds);
  try {
    const headers = { authorization: `Bearer ${api_key}`, 'content-type': 'application/json' };
    const assistant = (await (
      await fetch(`${service.url}/api/assistants`, { method: 'POST', headers, body: JSON.stringify(localSettings(llm.url, { name: 'Desk' })) })
    ).json()) as { id: number };
    const call = (
      (await (
        await fetch(`${service.url}/api/web-calls/browser`, { method: 'POST', headers, body: JSON.stringify({ assistant_id: assistant.id }) })
      ).json()) as { data: { call_sid: string; websocket_url: string } }
    ).data;
    const browser = caller(call.websocket_url);
    await browser.opened;
    await until(async () => (await db.prisma.call.findUnique({ where: { callSid: call.call_sid } }))?.status === 'in_progress', { message: 'the call starts' });
    await test(service, browser, call.call_sid);
    browser.stop();
  } finally {
    if (service.child.exitCode === null) service.child.kill('SIGKILL');
    await llm.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

describe('a running call when npm start is told to stop', () => {
  dbTest(
    'goes on until the caller hangs up, answered meanwhile, then the process exits',
    async ({ db }) => {
      await callUnderWay(db, 'Drain', 600, async (service, browser, callSid) => {
        service.child.kill('SIGTERM');
        await until(() => /received SIGTERM/.test(service.output()), { message: 'the service hears the signal' });
        // After the signal: the caller asks, and the assistant still answers on the same socket.
        await browser.speak('what time is it');
        await until(() => browser.said.some((m) => m.type === 'transcript' && m.role === 'assistant' && m.text === 'It is noon.'), {
          timeoutMs: 60_000,
          message: 'the assistant answers after the signal',
        });
        expect(service.child.exitCode).toBeNull();

        browser.hangUp();
        expect(await exitOf(service.child)).toBe(0);
        const row = await db.prisma.call.findUniqueOrThrow({ where: { callSid } });
        expect({ status: row.status, endReason: row.endReason }).toEqual({ status: 'completed', endReason: 'customer_hangup' });
      });
    },
    400_000,
  );

  dbTest(
    'is ended as worker_shutdown once SHUTDOWN_DRAIN_S has run out, and the process exits',
    async ({ db }) => {
      await callUnderWay(db, 'Drain bound', 1, async (service, browser, callSid) => {
        service.child.kill('SIGTERM');
        await browser.closed;
        expect(browser.said.find((m) => m.type === 'ended')).toMatchObject({ end_reason: 'worker_shutdown' });
        expect(await exitOf(service.child)).toBe(0);
        expect((await db.prisma.call.findUniqueOrThrow({ where: { callSid } })).endReason).toBe('worker_shutdown');
      });
    },
    400_000,
  );
});
