import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

// The service as a new user runs it: `npm start`'s own entry point (API, dashboard and agent worker in one process on
// an embedded Postgres), in a data folder of its own and on a port the system picks, its log read line by line.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** A first start creates the embedded database: about 10 s here, a minute on a loaded machine. */
const START_CAP_MS = 180_000;

export interface RunningService {
  url: string;
  /** Log lines the service wrote at warn or above whose message contains `text`. */
  warnings(text: string): number;
  /** Runs the operator CLI against the same database, answering its JSON. */
  cli(args: string[]): unknown;
  stop(): Promise<void>;
}

export async function startService(dataDir: string): Promise<RunningService> {
  // BENCH_SERVICE_LOG names a file that receives the service's whole log (BENCH_LOG_LEVEL, default info).
  // The bench's LLM listens on 127.0.0.1, allowed as an operator allows a local LLM server.
  const env = { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info', VENDOR_PRIVATE_HOSTS: '127.0.0.1' };
  const logFile = process.env.BENCH_SERVICE_LOG ? createWriteStream(process.env.BENCH_SERVICE_LOG, { flags: 'a' }) : undefined;
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const warned: string[] = [];
  let url: string | undefined;
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the service did not start within 3 minutes')), START_CAP_MS);
    const read = (line: string) => {
      logFile?.write(`${line}\n`);
      let entry: { level?: number; msg?: string; url?: string };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        if (/warn|slower/i.test(line)) warned.push(line);
        return;
      }
      if ((entry.level ?? 0) >= 40) warned.push(entry.msg ?? line);
      if (entry.msg === 'service started' && entry.url) {
        clearTimeout(timer);
        url = entry.url;
        resolve(entry.url);
      }
    };
    createInterface({ input: child.stdout! }).on('line', read);
    createInterface({ input: child.stderr! }).on('line', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!url) reject(new Error(`the service exited with ${code} before it started`));
    });
  });
  await ready;
  return {
    url: url!,
    warnings: (text) => warned.filter((w) => w.includes(text)).length,
    cli: (args) => {
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'api/cli.ts', ...args, '--json'], { cwd: ROOT, env, encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`cli ${args[0]} failed: ${run.stderr}`);
      return JSON.parse(run.stdout) as unknown;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const force = setTimeout(() => child.kill('SIGKILL'), 60_000);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
