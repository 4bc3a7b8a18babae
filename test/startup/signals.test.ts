import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../prisma/embedded-postgres.js';
import {
  killGroup,
  postmasterPid,
  runNpm,
  scriptOutput,
  serviceEnv,
  startService,
  stopLeftCluster,
  waitForExit,
  waitForOutput,
  waitUntilGone,
  type NpmProcess,
} from './service-process.js';

// What an operator does to `npm start` on one DATA_DIR: a second start on the same port or another, a SIGTERM to the
// npm process (as Docker sends it), a kill, Ctrl-C twice. The embedded database must stop with the last process
// using it, and never be left running for good.

describe('npm start beside another npm start, and its signals', () => {
  let dataDir: string;
  let portA: number;
  let portB: number;
  const started: NpmProcess[] = [];
  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'voice-signals-'));
    await fs.chmod(dataDir, 0o755);
    portA = await freePort();
    portB = await freePort();
  });
  afterAll(async () => {
    for (const running of started) killGroup(running);
    stopLeftCluster(dataDir);
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('refuses a port in use in one line, shares the database with a second service, and stops it with the last one', async () => {
    const first = await startService(serviceEnv(dataDir, portA));
    started.push(first);
    const database = postmasterPid(dataDir);
    expect(database).toBeDefined();

    // The same port: one clear line and a non-zero exit, before any database work; the first service is untouched.
    for (const script of [['start'], ['run', 'api']]) {
      const clash = runNpm(script, serviceEnv(dataDir, portA));
      started.push(clash);
      expect(await waitForExit(clash)).toBe(1);
      expect(scriptOutput(clash).trim()).toBe(
        `cannot start: port ${portA} on 127.0.0.1 is already in use (is the service already running?): stop that process or set PORT to a free port`,
      );
    }
    expect((await fetch(`http://127.0.0.1:${portA}/healthz`)).status).toBe(200);

    // Another port: the second service joins the same cluster.
    const second = await startService(serviceEnv(dataDir, portB));
    started.push(second);
    expect(postmasterPid(dataDir)).toBe(database);

    // SIGTERM to the npm process alone (not its group), as `docker stop` sends it: it reaches the service.
    process.kill(first.npm.pid!, 'SIGTERM');
    expect(await waitForExit(first)).toBe(0);
    expect(first.output()).toContain('service stopped');
    // The database outlives the first service, because the second still uses it.
    expect(postmasterPid(dataDir)).toBe(database);
    const health = await fetch(`http://127.0.0.1:${portB}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });

    // The last service stops the database on its way out.
    process.kill(second.npm.pid!, 'SIGTERM');
    expect(await waitForExit(second)).toBe(0);
    await waitUntilGone(database!);
    expect(postmasterPid(dataDir)).toBeUndefined();
  }, 400_000);

  it('takes over a database a killed service left running, and stops it on a second Ctrl-C while the first waits for work in flight', async () => {
    const killed = await startService(serviceEnv(dataDir, portA));
    started.push(killed);
    const database = postmasterPid(dataDir)!;
    process.kill(killed.pid, 'SIGKILL');
    await waitForExit(killed);
    expect(postmasterPid(dataDir)).toBe(database);

    const service = await startService(serviceEnv(dataDir, portA));
    started.push(service);
    expect(service.output()).toContain('took over an embedded database a process that ended left running');
    expect(postmasterPid(dataDir)).toBe(database);
    expect((await fetch(`http://127.0.0.1:${portA}/healthz`)).status).toBe(200);

    // A carrier's webhook whose body never finishes (it needs no key, so the body is read): a graceful stop waits for
    // it (Node gives a request 300 s), as it waits for a running call.
    const socket = net.connect(portA, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('POST /telephony/twilio/voice HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nCallSid=');
    // Until the service has parsed the headers, the connection counts as idle and a stop would close it at once.
    await new Promise((r) => setTimeout(r, 1_000));
    try {
      process.kill(service.pid, 'SIGINT');
      await waitForOutput(service, 'received SIGINT, shutting down');
      // After the 2 s window in which a repeated signal is npm's echo of the first.
      await new Promise((r) => setTimeout(r, 2_200));
      expect(service.npm.exitCode).toBeNull();
      process.kill(service.pid, 'SIGINT');
      expect(await waitForExit(service)).toBe(1);
      expect(service.output()).toContain('stopping the database and exiting without waiting for calls');
      // The database it took over stops with it, as one it started would.
      await waitUntilGone(database);
      expect(postmasterPid(dataDir)).toBeUndefined();
    } finally {
      socket.destroy();
    }
  }, 400_000);
});
