import { JobType, ServerMessage, WorkerMessage, WorkerStatus } from '@livekit/protocol';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { createTestDatabase, type TestDatabase } from '../test/helpers/database.js';
import { until } from '../test/helpers/until.js';
import { callKeyFromMetadata } from './livekit-job.js';
import { LOAD_THRESHOLD, startAgentWorker } from './worker.js';
import { readConfig } from '../lib/config.js';

// LiveKit's agent protocol as the server speaks it: a WebSocket at /agent authorised by a JWT carrying the agent
// grant, protobuf WorkerMessage up and ServerMessage down. No LiveKit server can run here, so this fake plays the
// server's side of registration, load reports, a job offer and the drain.

let db: TestDatabase;
/** The worker's DATA_DIR, where it keeps its secrets key. */
let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'livekit-worker-'));
  db = await createTestDatabase();
});
afterAll(async () => {
  try {
    await db.drop();
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as AddressInfo;
  await new Promise((r) => probe.close(r));
  return port;
}

/** What `script` prints, run as a module in a child process started the way the framework starts job processes. */
async function inAChildProcess(script: string): Promise<string> {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root });
  return stdout;
}

describe('the agent worker with a LiveKit server', () => {
  it('registers with its key, reports load, accepts a dispatched call and reports itself full when draining', async () => {
    const http_ = http.createServer();
    const wss = new WebSocketServer({ server: http_ });
    const received: WorkerMessage[] = [];
    let authorization = '';
    let path = '';
    let socket: WebSocket | undefined;
    wss.on('connection', (ws, req) => {
      socket = ws;
      authorization = req.headers.authorization ?? '';
      path = req.url ?? '';
      ws.on('message', (data: Buffer) => {
        const msg = WorkerMessage.fromBinary(new Uint8Array(data));
        received.push(msg);
        if (msg.message.case === 'register') {
          ws.send(new ServerMessage({ message: { case: 'register', value: { workerId: 'AW_test', serverInfo: {} } } }).toBinary());
        }
      });
    });
    await new Promise<void>((r) => http_.listen(0, '127.0.0.1', r));
    const url = `ws://127.0.0.1:${(http_.address() as AddressInfo).port}`;

    const healthPort = await freePort();
    const worker = await startAgentWorker({
      prisma: db.prisma,
      databaseUrl: db.url,
      config: readConfig({
        DATA_DIR: dataDir,
        LOG_LEVEL: process.env.TEST_WORKER_LOG ?? 'silent',
        LIVEKIT_URL: url,
        LIVEKIT_API_KEY: 'devkey',
        LIVEKIT_API_SECRET: 'secret-secret-secret-secret-secret',
        LIVEKIT_AGENT_NAME: 'voice',
        LIVEKIT_IDLE_PROCESSES: '0',
        AGENT_HEALTH_PORT: String(healthPort),
      }),
    });
    try {
      expect(worker.mode).toBe('livekit');
      // A job process is forked by the framework with no options of ours: what it inherits is all it gets.
      const handover = JSON.parse(await inAChildProcess(`console.log(JSON.stringify((await import('./agent/livekit-job-handover.ts')).handedOverByWorker()))`));
      expect(handover).toMatchObject({ databaseUrl: db.url, dataDir, agent: { pocketsphinxBin: 'pocketsphinx_continuous' } });
      await until(() => received.some((m) => m.message.case === 'register'), 20_000);
      expect(path).toBe('/agent');
      const claims = JSON.parse(Buffer.from(authorization.replace('Bearer ', '').split('.')[1]!, 'base64url').toString()) as Record<string, any>;
      expect(claims.iss).toBe('devkey');
      expect(claims.video?.agent).toBe(true);
      const register = received.find((m) => m.message.case === 'register')!.message.value as { agentName: string };
      expect(register.agentName).toBe('voice');
      // The health server answers probes on the port it was given, on loopback unless told otherwise.
      const health = await fetch(`http://127.0.0.1:${healthPort}/`);
      expect(health.status).toBe(200);
      const info = (await (await fetch(`http://127.0.0.1:${healthPort}/worker`)).json()) as { agent_name?: string; agentName?: string };
      expect(JSON.stringify(info)).toContain('voice');

      await until(() => received.some((m) => m.message.case === 'updateWorker'), 20_000);
      const load = received.find((m) => m.message.case === 'updateWorker')!.message.value as { load: number; status: WorkerStatus };
      expect(load.load).toBeGreaterThanOrEqual(0);
      // Full at or above the threshold, so LiveKit sends the job to a less loaded worker.
      expect(load.status).toBe(load.load >= LOAD_THRESHOLD ? WorkerStatus.WS_FULL : WorkerStatus.WS_AVAILABLE);

      socket!.send(
        new ServerMessage({
          message: {
            case: 'availability',
            value: { job: { id: 'AJ_1', type: JobType.JT_ROOM, room: { name: 'call-room', sid: 'RM_1' }, metadata: '{"call_id": 7}', agentName: 'voice' } },
          },
        }).toBinary(),
      );
      await until(() => received.some((m) => m.message.case === 'availability'), 20_000);
      const answer = received.find((m) => m.message.case === 'availability')!.message.value as { jobId: string; available: boolean };
      expect(answer).toMatchObject({ jobId: 'AJ_1', available: true });

      await worker.stop({ drainTimeoutMs: 1000 });
      const statuses = received.filter((m) => m.message.case === 'updateWorker').map((m) => (m.message.value as { status?: WorkerStatus }).status);
      expect(statuses).toContain(WorkerStatus.WS_FULL);
    } finally {
      await worker.stop({ drainTimeoutMs: 100 }).catch(() => {});
      for (const client of wss.clients) client.terminate();
      wss.close();
      http_.closeAllConnections();
      http_.close();
    }
  }, 120_000);

  it('reads the call from the dispatch metadata, and none from a dispatch rule that names none', () => {
    expect(callKeyFromMetadata('{"call_id": 12}')).toEqual({ callId: 12 });
    expect(callKeyFromMetadata('{"call_sid": "CA1"}')).toEqual({ callSid: 'CA1' });
    expect(callKeyFromMetadata('{}')).toBeNull();
    expect(callKeyFromMetadata('')).toBeNull();
    expect(callKeyFromMetadata('not json')).toBeNull();
  });
});
