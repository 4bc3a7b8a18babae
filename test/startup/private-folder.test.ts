import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../prisma/embedded-postgres.js';
import { STATE_ROOT } from '../../prisma/cluster-location.js';
import { killGroup, root, serviceEnv, startService, stopLeftCluster, waitForExit, type NpmProcess } from './service-process.js';

// The quick start as root in a private folder (a clone under /root, mode 0700): Postgres runs as the postgres system
// user, which cannot enter it. The service must start anyway, keep the data across restarts, and leave the folder as
// private as it found it.

const asRoot = process.getuid?.() === 0;

describe.skipIf(!asRoot)('npm start as root with DATA_DIR in a private folder (only root meets this)', () => {
  let privateFolder: string;
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let port: number;
  const started: NpmProcess[] = [];
  beforeAll(async () => {
    privateFolder = await fs.mkdtemp(path.join(os.tmpdir(), 'voice-private-'));
    await fs.chmod(privateFolder, 0o700);
    dataDir = path.join(privateFolder, 'data');
    port = await freePort();
    env = serviceEnv(dataDir, port);
  });
  afterAll(async () => {
    for (const running of started) killGroup(running);
    stopLeftCluster(dataDir);
    const target = await fs.readlink(path.join(dataDir, 'postgres')).catch(() => undefined);
    if (target?.startsWith(`${STATE_ROOT}/`)) await fs.rm(path.dirname(target), { recursive: true, force: true });
    await fs.rm(privateFolder, { recursive: true, force: true });
  });

  it('starts, keeps its data across a restart, and leaves the folder private', async () => {
    const first = await startService(env);
    started.push(first);
    expect(first.output()).toMatch(/no organisation yet/);
    const cli = spawnSync('npm', ['run', 'cli', '--', 'bootstrap', '--org', 'Acme', '--email', 'ops@acme.example', '--json'], {
      cwd: root,
      env,
      encoding: 'utf8',
    });
    expect(cli.status, cli.stderr).toBe(0);
    process.kill(first.npm.pid!, 'SIGTERM');
    expect(await waitForExit(first)).toBe(0);

    const second = await startService(env);
    started.push(second);
    expect(second.output()).not.toMatch(/no organisation yet/);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    process.kill(second.npm.pid!, 'SIGTERM');
    expect(await waitForExit(second)).toBe(0);

    // The database lives where the postgres user can reach it, and DATA_DIR says where.
    const link = await fs.readlink(path.join(dataDir, 'postgres'));
    expect(link.startsWith(`${STATE_ROOT}/`)).toBe(true);
    expect((await fs.readFile(path.join(path.dirname(link), 'DATA_DIR'), 'utf8')).trim()).toBe(await fs.realpath(dataDir));
    expect((await fs.stat(privateFolder)).mode & 0o777).toBe(0o700);
  }, 400_000);
});
