import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../prisma/embedded-postgres.js';
import { until } from './helpers/until.js';
import { STATE_ROOT } from '../prisma/cluster-location.js';
import { stopLeftCluster } from './startup/service-process.js';

// The README's quick start, for real: `npm start` on an empty DATA_DIR (embedded Postgres), the operator CLI, and a
// restart that finds the data again. As root, the clone sits where root's clones do, in a private folder (mode 0700,
// like /root): Postgres runs as the postgres system user, which cannot enter it, and the service must start anyway,
// keep its data, and leave the folder as private as it found it.

const root = path.resolve(import.meta.dirname, '..');
const asRoot = process.getuid?.() === 0;

interface Running {
  child: ChildProcess;
  output: () => string;
  stopped?: boolean;
}

/** Every service started, for a test cut short (its timeout) to leave none running. */
const spawned: ChildProcess[] = [];

async function startService(env: NodeJS.ProcessEnv): Promise<Running> {
  // Its own process group, so a stop signals npm and everything under it at once, as Ctrl-C in a terminal does.
  const child = spawn('npm', ['start'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  spawned.push(child);
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  await until(
    () => {
      // The log's line on stdout and the plain line on stderr, in whichever order the two streams bring them.
      if (output.includes('service started') && output.includes('Ready: open ')) return true;
      if (child.exitCode !== null) throw new Error(`service exited early:\n${output}`);
      return false;
    },
    { timeoutMs: 120_000, intervalMs: 100, message: () => `service did not start:\n${output}` },
  );
  return { child, output: () => output };
}

/** Signals the whole process group, as Ctrl-C in a terminal does, and waits for the service's own "stopped" line. */
async function stop(running: Running): Promise<void> {
  if (running.stopped) return;
  running.stopped = true;
  try {
    process.kill(-running.child.pid!, 'SIGTERM');
  } catch {
    return; // the group is gone already
  }
  await until(() => running.output().includes('service stopped'), {
    timeoutMs: 60_000,
    intervalMs: 100,
    message: () => `service did not stop:\n${running.output().slice(-2000)}`,
  });
}

describe('npm start on a fresh machine', () => {
  let folder: string;
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let base: string;
  beforeAll(async () => {
    folder = await fs.mkdtemp(path.join(os.tmpdir(), 'voice-start-'));
    await fs.chmod(folder, asRoot ? 0o700 : 0o755);
    dataDir = path.join(folder, 'data');
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), DATABASE_URL: '', LOG_LEVEL: 'info' };
    // An operator's shell, not the test runner's: `npm test --loglevel=warn` exports npm_config_loglevel to its
    // children, which would override the project's .npmrc and put npm's banner on the CLI's stdout.
    delete env.npm_config_loglevel;
  });
  afterAll(async () => {
    // A test that timed out left its service and the embedded cluster it started: neither outlives the file.
    for (const child of spawned) {
      try {
        if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    }
    stopLeftCluster(dataDir);
    const target = await fs.readlink(path.join(dataDir, 'postgres')).catch(() => undefined);
    if (target?.startsWith(`${STATE_ROOT}/`)) await fs.rm(path.dirname(target), { recursive: true, force: true });
    await fs.rm(folder, { recursive: true, force: true });
  });

  it('serves the API on embedded Postgres, says where to create the organisation (browser or command), and keeps data across a restart', async () => {
    const first = await startService(env);
    try {
      expect(first.output()).toMatch(/no organisation yet/);
      expect(first.output()).toMatch(/npm run cli -- bootstrap/);
      expect(first.output()).toContain(`"url":"${base}"`);
      // And one plain line for the person at the terminal, once it is ready.
      expect(first.output()).toContain(`Ready: open ${base} in a browser\n`);
      expect((await fetch(`${base}/healthz`)).status).toBe(200);

      // The CLI joins the cluster the running service started, and prints exactly one JSON object on stdout (run with
      // --silent, as a program reading it runs it: npm's banner stays off stdout).
      const cli = spawnSync('npm', ['run', '--silent', 'cli', '--', 'bootstrap', '--org', 'Acme', '--email', 'ops@acme.example', '--json'], {
        cwd: root,
        env,
        encoding: 'utf8',
      });
      expect(cli.status, cli.stderr).toBe(0);
      const boot = JSON.parse(cli.stdout);
      expect(Object.keys(boot).sort()).toEqual(['api_key', 'organization_id', 'user_id']);

      const again = JSON.parse(
        spawnSync('npm', ['run', '--silent', 'cli', '--', 'bootstrap', '--org', 'Acme', '--email', 'ops@acme.example', '--json'], {
          cwd: root,
          env,
          encoding: 'utf8',
        }).stdout,
      );
      expect(again.organization_id).toBe(boot.organization_id);
      expect(again.user_id).toBe(boot.user_id);
      expect(again.api_key).not.toBe(boot.api_key);

      const created = await fetch(`${base}/api/assistants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${boot.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Survivor' }),
      });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: number };
      await stop(first);

      const second = await startService(env);
      try {
        expect(second.output()).not.toMatch(/no organisation yet/);
        const read = await fetch(`${base}/api/assistants/${id}`, { headers: { authorization: `Bearer ${again.api_key}` } });
        expect(read.status).toBe(200);
        expect(((await read.json()) as { name: string }).name).toBe('Survivor');
      } finally {
        await stop(second);
      }
      if (asRoot) {
        // The database lives where the postgres user can reach it, and a file there says which DATA_DIR it serves.
        const link = await fs.readlink(path.join(dataDir, 'postgres'));
        expect(link.startsWith(`${STATE_ROOT}/`)).toBe(true);
        expect((await fs.readFile(path.join(path.dirname(link), 'DATA_DIR'), 'utf8')).trim()).toBe(await fs.realpath(dataDir));
        expect((await fs.stat(folder)).mode & 0o777).toBe(0o700);
      }
    } finally {
      await stop(first);
    }
  }, 400_000);

  it('refuses a bad bootstrap with a usage message and exit code 2', () => {
    const cli = spawnSync('npm', ['run', 'cli', '--', 'bootstrap', '--org', 'Acme', '--email', 'not-an-email'], { cwd: root, env, encoding: 'utf8' });
    expect(cli.status).toBe(2);
    expect(cli.stderr).toMatch(/valid email/);
    // Nothing on stdout but npm's banner: the refusal is on stderr.
    expect(cli.stdout.replace(/^\s*(> [^\n]*\n)+\n?/, '')).toBe('');
  });
});
