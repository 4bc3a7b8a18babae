import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createApiContext } from '../helpers/api.js';
import { dbTest } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';

// Upgrade requests the service has no socket route for, sent to a real listening API in its own process: every one is
// answered and its socket closed by the service, the process holds no more sockets afterwards than before, and it
// stops promptly on SIGTERM even with a WebSocket open.

const SCRIPT = path.join(import.meta.dirname, 'api-process.ts');
const STRAYS = 1_000;
const AT_ONCE = 100;

let child: ChildProcess;
let output = '';
let port = 0;

dbTest.beforeAll(async ({ db }) => {
  child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], { env: { ...process.env, DATABASE_URL: db.url }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  await until(
    () => {
      if (child.exitCode !== null) throw new Error(`api process exited:\n${output}`);
      return /listening (\d+)/.test(output);
    },
    // A cap for a process that hangs: loading the API takes seconds, many more on a busy machine.
    { timeoutMs: 120_000, message: () => `api process did not start:\n${output}` },
  );
  port = Number(/listening (\d+)/.exec(output)![1]);
}, 120_000);
afterAll(async () => {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Sockets the process holds open (listening socket, database connections, clients). */
function openSockets(pid: number): number {
  let count = 0;
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (fs.readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) count++;
    } catch {
      // closed between the listing and the read
    }
  }
  return count;
}

const upgradeHeaders = 'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';

/** Sends an upgrade request and waits for the SERVICE to close the connection; the client never closes first. */
function stray(request: string): Promise<{ status: number; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), closedByServer: false });
    }, 5_000);
    socket.on('data', (c) => (text += c));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), closedByServer: true });
    });
    socket.write(request);
  });
}

const KINDS: { name: string; request: string; status: number }[] = [
  { name: 'unknown path', request: `GET /nothing/here HTTP/1.1\r\nHost: x\r\n${upgradeHeaders}\r\n`, status: 404 },
  { name: 'API path', request: `GET /api/assistants HTTP/1.1\r\nHost: x\r\n${upgradeHeaders}\r\n`, status: 404 },
  { name: 'browser audio socket with a forged token', request: `GET /call/CA1/audio?token=forged HTTP/1.1\r\nHost: x\r\n${upgradeHeaders}\r\n`, status: 403 },
  {
    name: 'media stream without a WebSocket key',
    request: `GET /telephony/media-stream HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n`,
    status: 400,
  },
  { name: 'absolute-form target', request: `GET http://x/telephony/media-stream HTTP/1.1\r\nHost: x\r\n${upgradeHeaders}\r\n`, status: 400 },
];

describe('upgrade requests the service has no socket for', () => {
  it(`are answered and closed by the service: ${STRAYS} of them leave no socket behind`, async () => {
    const pid = child.pid!;
    // One of each first, so that lazily opened resources (database connections, modules) are not counted as leaks.
    for (const kind of KINDS) expect(await stray(kind.request), kind.name).toEqual({ status: kind.status, closedByServer: true });
    const before = openSockets(pid);

    const results: { kind: string; status: number; closedByServer: boolean; expected: number }[] = [];
    for (let sent = 0; sent < STRAYS; sent += AT_ONCE) {
      const batch = Array.from({ length: AT_ONCE }, (_, i) => KINDS[(sent + i) % KINDS.length]!);
      results.push(...(await Promise.all(batch.map(async (k) => ({ kind: k.name, expected: k.status, ...(await stray(k.request)) })))));
    }
    expect(results.filter((r) => !r.closedByServer || r.status !== r.expected)).toEqual([]);
    // The kernel may take a moment to release the last sockets the service closed.
    await until(() => openSockets(pid) <= before, { message: () => `${openSockets(pid)} sockets open, ${before} before` });
    expect(openSockets(pid)).toBeLessThanOrEqual(before);
  }, 120_000);

  it('do not hold the process on SIGTERM, nor does a live WebSocket', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/telephony/media-stream`);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const closed = new Promise((r) => ws.once('close', r));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    // A hang waits for the socket to close itself (its start message is due in 10 s, a caller's hang-up much later).
    const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 5_000))]);
    expect(code).toBe(0);
    expect(output).toMatch(/stopped/);
    await closed;
  }, 120_000);
});

describe('a Media Streams socket that never says which call it carries', () => {
  it('is closed (1008) once its start message is overdue', async () => {
    const ctx = await createApiContext({ httpTimeouts: { socketAuthMs: 300 } });
    try {
      await ctx.app.listen({ port: 0, host: '127.0.0.1' });
      const { port: apiPort } = ctx.app.server.address() as net.AddressInfo;
      const ws = new WebSocket(`ws://127.0.0.1:${apiPort}/telephony/media-stream`);
      const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
      const code = await Promise.race([closed, new Promise<'open'>((r) => setTimeout(() => r('open'), 5_000))]);
      expect(code).toBe(1008);
    } finally {
      await ctx.close();
    }
  });
});
