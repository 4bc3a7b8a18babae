import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { until } from './until.js';

// Debian's Redis server (`redis-server`, installed by .ci/run), started on a free loopback port for one test file:
// nothing saved to disk, stopped with the file. Tests that need it skip where it is not installed.

export const REDIS_SERVER = '/usr/bin/redis-server';
export const hasRedis = existsSync(REDIS_SERVER);

export interface RedisServer {
  url: string;
  port: number;
  /** Stops the server (SIGKILL: no shutdown save to wait for); a `start` on the same port brings it back. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const running = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = running;
    let output = '';
    running.stdout!.on('data', (c) => (output += c));
    running.stderr!.on('data', (c) => (output += c));
    await until(
      () => {
        if (running.exitCode !== null) throw new Error(`redis-server exited (${running.exitCode}):\n${output}`);
        return output.includes('Ready to accept connections');
      },
      { timeoutMs: 30_000, intervalMs: 20, message: () => `redis-server not ready:\n${output}` },
    );
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, stop, start };
}
