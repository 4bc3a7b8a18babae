import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { until } from '../helpers/until.js';

// `npm start` (or another npm script) as an operator runs it, in its own process group like a terminal's job.

export const root = path.resolve(import.meta.dirname, '../..');

export interface NpmProcess {
  /** The npm process itself. */
  npm: ChildProcess;
  output(): string;
  /** Resolves with the exit code of npm (which is its script's). */
  exited: Promise<number | null>;
}

/** What the script itself printed: the output without npm's banner (`> name@version script` and the command). */
export function scriptOutput(running: NpmProcess): string {
  return running.output().replace(/^\s*(> [^\n]*\n)+\n?/, '');
}

export function runNpm(args: string[], env: NodeJS.ProcessEnv): NpmProcess {
  const npm = spawn('npm', args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  npm.stdout!.on('data', (c) => (output += c));
  npm.stderr!.on('data', (c) => (output += c));
  const exited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)));
  return { npm, output: () => output, exited };
}

/** An operator's environment for the service: the test runner's, without what npm exports to its children. */
export function serviceEnv(dataDir: string, port: number, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), DATABASE_URL: '', LOG_LEVEL: 'info', ...extra };
  delete env.npm_config_loglevel;
  for (const name of ['LIVEKIT_URL', 'LIVEKIT_API_KEY', 'LIVEKIT_API_SECRET']) if (!(name in extra)) delete env[name];
  return env;
}

export async function waitForOutput(running: NpmProcess, text: string | RegExp, timeoutMs = 120_000): Promise<void> {
  const found = () => (typeof text === 'string' ? running.output().includes(text) : text.test(running.output()));
  await until(
    () => {
      if (found()) return true;
      if (running.npm.exitCode !== null) throw new Error(`exited (${running.npm.exitCode}) before printing ${text}:\n${running.output().slice(-3000)}`);
      return false;
    },
    { timeoutMs, intervalMs: 100, message: () => `no ${text}:\n${running.output().slice(-3000)}` },
  );
}

/** `npm start` up to its "service started" line; the pid of its Node process is read from that line. */
export async function startService(env: NodeJS.ProcessEnv): Promise<NpmProcess & { pid: number }> {
  const running = runNpm(['start'], env);
  await waitForOutput(running, 'service started');
  const line = running
    .output()
    .split('\n')
    .find((l) => l.includes('"service started"'))!;
  return { ...running, pid: (JSON.parse(line) as { pid: number }).pid };
}

export async function waitForExit(running: NpmProcess, timeoutMs = 60_000): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still running after ${timeoutMs / 1000} s:\n${running.output().slice(-3000)}`)), timeoutMs);
  });
  return Promise.race([running.exited, timeout]).finally(() => clearTimeout(timer));
}

/** Ends what a failed test may have left: the whole process group. */
export function killGroup(running: NpmProcess | undefined): void {
  if (!running?.npm.pid) return;
  try {
    process.kill(-running.npm.pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

/** The pid of the Postgres server running on `DATA_DIR`'s cluster, or undefined when none runs. */
export function postmasterPid(dataDir: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
  return isAlive(pid) ? pid : undefined;
}

/** Whether `pid` runs (an exited process its parent has not reaped yet does not). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Waits until `pid` has exited: a server's shutdown takes a moment after its lock file is gone. */
export async function waitUntilGone(pid: number, timeoutMs = 60_000): Promise<void> {
  await until(() => !isAlive(pid), { timeoutMs, intervalMs: 100, message: `process ${pid} still runs` });
}

/** Stops a cluster a failed test left running (fast shutdown). */
export function stopLeftCluster(dataDir: string): void {
  const pid = postmasterPid(dataDir);
  if (pid !== undefined) process.kill(pid, 'SIGINT');
}
