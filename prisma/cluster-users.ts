import crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { StartupError } from '../lib/startup.js';

// The processes using one embedded cluster: every process that opens it (services, the CLI, the test suite) writes a
// record here, and the one that leaves last stops the cluster. A record names its process by pid AND the process's
// start time, so a pid the kernel has since given to another process does not keep a dead user alive.

export interface ProcessIdentity {
  pid: number;
  /** Clock ticks after boot at which the process started (Linux /proc); undefined where that cannot be read. */
  startTime?: string | undefined;
}

/** The start time of a process from /proc/<pid>/stat (field 22), or undefined when it cannot be read. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19];
  } catch {
    return undefined;
  }
}

export function currentProcess(): ProcessIdentity {
  return { pid: process.pid, startTime: processStartTime(process.pid) };
}

/** Whether the process a record names still runs: the same pid, started at the same moment. */
export function isRunning(identity: ProcessIdentity): boolean {
  try {
    process.kill(identity.pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (identity.startTime === undefined) return true;
  const now = processStartTime(identity.pid);
  return now === undefined || now === identity.startTime;
}

interface UserRecord extends ProcessIdentity {
  /** What the process is, for an operator reading the folder. */
  command: string;
}

/** The users of the cluster whose data is in `clusterDir`, recorded in `<clusterDir>.users/`. */
export class ClusterUsers {
  readonly folder: string;
  private readonly lockName: string;
  private record: string | undefined;

  constructor(clusterDir: string) {
    this.folder = `${clusterDir}.users`;
    // An abstract Unix socket (Linux): binding it is atomic and exclusive, and the kernel releases it when its
    // process dies, however it dies, so a crash while starting or stopping the cluster never leaves a stale lock.
    this.lockName = `\0voice-assistant-platform/postgres/${crypto.createHash('sha256').update(clusterDir).digest('hex')}`;
  }

  /**
   * Runs `work` while no other process starts or stops this cluster. `timeoutMs` bounds the wait for another
   * process's start (a start after a crash may replay WAL for up to 60 s) or stop.
   */
  async withLock<T>(work: () => Promise<T>, timeoutMs: number): Promise<T> {
    const server = net.createServer();
    server.unref();
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const error = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
        server.once('error', resolve);
        server.listen(this.lockName, () => {
          server.off('error', resolve);
          resolve(undefined);
        });
      });
      if (!error) break;
      if (error.code !== 'EADDRINUSE') throw error;
      if (Date.now() > deadline) {
        throw new StartupError(
          `another process kept the embedded database in ${path.dirname(this.folder)} busy starting or stopping for ${timeoutMs / 1000} s: try again`,
        );
      }
      await delay(50);
    }
    try {
      return await work();
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  /** Other processes that use the cluster now; records of processes that are gone are deleted. Call under the lock. */
  async others(): Promise<UserRecord[]> {
    const names = await fs.readdir(this.folder).catch(() => [] as string[]);
    const live: UserRecord[] = [];
    for (const name of names) {
      if (!name.endsWith('.json') || name === this.record) continue;
      const file = path.join(this.folder, name);
      let user: UserRecord;
      try {
        user = JSON.parse(await fs.readFile(file, 'utf8')) as UserRecord;
      } catch {
        continue; // removed meanwhile by its owner
      }
      if (isRunning(user)) live.push(user);
      else await fs.rm(file, { force: true });
    }
    return live;
  }

  /** Records this process as a user. Call under the lock. */
  async add(): Promise<void> {
    await fs.mkdir(this.folder, { recursive: true });
    // One record per open, not per process: a process may open the same cluster twice and close each on its own.
    this.record = `${process.pid}-${crypto.randomBytes(4).toString('hex')}.json`;
    const user: UserRecord = {
      ...currentProcess(),
      command: process.argv
        .slice(1)
        .map((a) => path.basename(a))
        .join(' '),
    };
    await fs.writeFile(path.join(this.folder, this.record), `${JSON.stringify(user)}\n`);
  }

  /** Deletes this process's record. Safe without the lock: a deletion is atomic, and others only read records. */
  async remove(): Promise<void> {
    if (!this.record) return;
    const record = this.record;
    this.record = undefined;
    await fs.rm(path.join(this.folder, record), { force: true });
  }
}
