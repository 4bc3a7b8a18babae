import { readFileSync, realpathSync, rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../prisma/embedded-postgres.js';
import { migrate } from '../../prisma/migrate.js';

export const TEMPLATE_DATABASE = 'test_template';

const NON_DURABLE = ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off'];

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

interface RunCluster {
  url: string;
  stop(): Promise<void>;
}

/**
 * The run's cluster, shared by the projects of `vitest.config.ts`: vitest calls a global setup once per project, and
 * each starting a cluster of its own cost a second `initdb`, start and migration (seconds of CPU) on every run. Kept on
 * the process, since each project may load this file anew.
 */
const shared = globalThis as typeof globalThis & { __testPostgres?: { cluster: Promise<RunCluster>; users: number } };

/** Starts one embedded Postgres for the whole run and migrates a template database that tests clone. */
export default async function setup(project: TestProject) {
  shared.__testPostgres ??= { cluster: startRunCluster(), users: 0 };
  const entry = shared.__testPostgres;
  entry.users++;
  let cluster: RunCluster;
  try {
    cluster = await entry.cluster;
  } catch (error) {
    // A setup that throws gets no teardown: the next run starts afresh.
    if (--entry.users === 0) delete shared.__testPostgres;
    throw error;
  }
  project.provide('postgresUrl', cluster.url);
  return async () => {
    // The last project to finish stops it.
    if (--entry.users > 0) return;
    delete shared.__testPostgres;
    await cluster.stop();
  };
}

async function startRunCluster(): Promise<RunCluster> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'voice-test-pg-'));
  // vitest runs the teardown below only when the setup returned it and the run was let finish: a run ended by a signal
  // (Ctrl-C, `timeout`) or by the teardown timeout calls process.exit at once, and would leave the folder behind with
  // its Postgres running (pg_ctl detaches it, so it outlives us). On exit the cluster is stopped and removed there.
  const removeOnExit = () => removeClusterNow(dir);
  process.once('exit', removeOnExit);
  let cluster: EmbeddedDatabase | undefined;
  try {
    // mkdtemp makes a 0700 directory; Postgres runs as its own user when we are root and must reach inside.
    await fs.chmod(dir, 0o755);
    // A cluster thrown away at the end of the run needs no durability: no flush to disk at each commit, no full pages
    // in the WAL. Postgres's own advice for such clusters ("Non-Durable Settings"); the tests' results do not change.
    cluster = await startEmbeddedPostgres(dir, { persistent: false, settings: NON_DURABLE });
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${TEMPLATE_DATABASE}"`);
    await admin.end();
    const templateUrl = new URL(cluster.url);
    templateUrl.pathname = `/${TEMPLATE_DATABASE}`;
    await migrate(templateUrl.toString());
  } catch (error) {
    // A setup that throws gets no teardown.
    await cluster?.stop().catch(() => {});
    await fs.rm(dir, { recursive: true, force: true });
    process.off('exit', removeOnExit);
    throw error;
  }
  const started = cluster;
  return {
    url: started.url,
    async stop() {
      try {
        await started.stop();
      } finally {
        await fs.rm(dir, { recursive: true, force: true });
        process.off('exit', removeOnExit);
      }
    },
  };
}

/**
 * Stops the run's cluster at once and removes its files, synchronously, as a process that is exiting can: the
 * postmaster is sent SIGQUIT (immediate shutdown: the data is thrown away, there is nothing to checkpoint) and
 * awaited for up to 5 s.
 */
function removeClusterNow(dir: string): void {
  let cluster: string | undefined;
  try {
    // `dir/postgres`, or where it links to when the postgres user could not enter `dir` (prisma/cluster-location.ts).
    cluster = realpathSync(path.join(dir, 'postgres'));
    const pid = Number(readFileSync(path.join(cluster, 'postmaster.pid'), 'utf8').split('\n')[0]);
    // The lock file of a server that died may name a pid that is now another process's.
    if (Number.isInteger(pid) && pid > 0 && readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') {
      process.kill(pid, 'SIGQUIT');
      const deadline = Date.now() + 5_000;
      const nap = new Int32Array(new SharedArrayBuffer(4));
      while (isAlive(pid) && Date.now() < deadline) Atomics.wait(nap, 0, 0, 20);
    }
  } catch {
    // No cluster yet, or no server running it: only its files are left.
  }
  try {
    if (cluster) {
      rmSync(cluster, { recursive: true, force: true, maxRetries: 3 });
      rmSync(`${cluster}.users`, { recursive: true, force: true });
    }
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  } catch (error) {
    console.error(`could not remove the test database in ${dir}:`, error);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
