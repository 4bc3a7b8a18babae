import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { StartupError } from '../lib/startup.js';

// Postgres refuses to run as root, so as root the embedded cluster runs as the `postgres` system user, which must be
// able to enter the folders that hold its programs and its data. A project cloned under /root (mode 0700), or a
// DATA_DIR in any private folder, is out of its reach. Rather than open the operator's folders to it, the programs
// and the data then live in a folder of their own that it can reach, under /var/lib (kept across reboots, unlike
// /tmp), and DATA_DIR/postgres is a symbolic link to the data.

/** Where the cluster and programs live when the postgres user cannot reach DATA_DIR or the project. */
export const STATE_ROOT = '/var/lib/voice-assistant-platform';

export interface RunAs {
  uid?: number | undefined;
  gid?: number | undefined;
}

/** Whether `user` can enter `dir`: every folder on the way must let it search. Checked as that user, ACLs included. */
export function canEnter(dir: string, user: RunAs): boolean {
  if (user.uid === undefined) return true;
  const result = spawnSync('/bin/sh', ['-c', 'cd -- "$1"', 'sh', dir], { uid: user.uid, gid: user.gid, stdio: 'ignore' });
  return result.status === 0;
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

/**
 * The folder of the cluster of `dataDir`: `dataDir/postgres`, or, when the postgres user cannot enter `dataDir`, a
 * folder under `stateRoot` that `dataDir/postgres` links to. The same `dataDir` finds the same cluster on every start.
 */
export async function clusterDirectory(givenDataDir: string, user: RunAs, stateRoot = STATE_ROOT): Promise<string> {
  await fs.mkdir(givenDataDir, { recursive: true });
  // The real path: processes that name one folder by two paths (a symbolic link) share one cluster, lock and users.
  const dataDir = await fs.realpath(givenDataDir);
  const link = path.join(dataDir, 'postgres');
  const stat = await fs.lstat(link).catch(() => undefined);
  if (stat?.isSymbolicLink()) {
    const target = path.resolve(dataDir, await fs.readlink(link));
    // A missing cluster in a folder that exists is one a first start failed to create: it is created again. A missing
    // folder is data lost or moved, and a new empty database would hide that.
    if (!(await exists(path.dirname(target)))) {
      throw new StartupError(`${link} links to ${target}, whose folder does not exist: restore it, or remove the link to start with an empty database`);
    }
    return target;
  }
  if (stat && !stat.isDirectory()) throw new StartupError(`${link} is not a folder: move it away so the embedded database can live there`);
  if (canEnter(dataDir, user)) return link;
  if (stat && (await exists(path.join(link, 'PG_VERSION')))) {
    throw new StartupError(
      `the database in ${link} is out of reach of the postgres system user, which runs it when the service runs as root, because a folder above it is private: move ${link} to a folder it can enter and link ${link} to it, or set DATABASE_URL`,
    );
  }
  if (stat) await fs.rm(link, { recursive: true, force: true }); // an empty cluster folder from a start that failed
  const home = path.join(stateRoot, crypto.createHash('sha256').update(dataDir).digest('hex').slice(0, 16));
  await makeReachableFolder(home, user);
  // For an operator who finds this folder: whose database it is.
  await fs.writeFile(path.join(home, 'DATA_DIR'), `${dataDir}\n`);
  const target = path.join(home, 'postgres');
  await fs.symlink(target, link);
  return target;
}

async function makeReachableFolder(folder: string, user: RunAs): Promise<void> {
  try {
    await fs.mkdir(folder, { recursive: true, mode: 0o755 });
  } catch (error) {
    throw new StartupError(
      `the postgres system user cannot enter the data folder, and ${folder} cannot be created for it (${(error as NodeJS.ErrnoException).code}): set DATA_DIR to a folder it can enter, or set DATABASE_URL`,
    );
  }
  if (!canEnter(folder, user)) {
    throw new StartupError(`the postgres system user can enter neither the data folder nor ${folder}: let it enter one of them, or set DATABASE_URL`);
  }
}

export interface Binaries {
  initdb: string;
  pg_ctl: string;
}

/**
 * The Postgres programs as `user` can run them: those in node_modules, or a copy under `stateRoot` made once per
 * version when the project itself is in a private folder (the programs find their libraries next to themselves).
 */
export async function reachableBinaries(installed: Binaries, user: RunAs, stateRoot = STATE_ROOT): Promise<Binaries> {
  const bin = path.dirname(installed.pg_ctl);
  if (canEnter(bin, user)) return installed;
  const native = path.dirname(bin);
  const { name, version } = JSON.parse(await fs.readFile(path.join(native, '..', 'package.json'), 'utf8')) as { name: string; version: string };
  const copy = path.join(stateRoot, 'programs', `${path.basename(name)}-${version}`);
  const at = (folder: string): Binaries => ({ initdb: path.join(folder, 'bin', 'initdb'), pg_ctl: path.join(folder, 'bin', 'pg_ctl') });
  if (!(await exists(at(copy).pg_ctl))) {
    await makeReachableFolder(path.dirname(copy), user);
    // Copied aside and renamed into place, so a process that stops half way never leaves a partial copy in use.
    const partial = `${copy}.partial-${process.pid}`;
    await fs.rm(partial, { recursive: true, force: true });
    await fs.cp(native, partial, { recursive: true, verbatimSymlinks: true });
    await fs.rename(partial, copy).catch(async (error: NodeJS.ErrnoException) => {
      await fs.rm(partial, { recursive: true, force: true });
      // Another process put its copy in place first.
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    });
  }
  return at(copy);
}
