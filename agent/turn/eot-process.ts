import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DEFAULT_EOT_PROCESS_NICE } from '../../lib/config.js';
import { processCpuMs } from '../../lib/process-cpu.js';
import { observeEotInference } from '../../lib/metrics/index.js';

// The audio end-of-turn model in a child process at lower scheduling priority. One inference over its 1.2 s of audio
// takes 50 to 120 ms of CPU (measured here; more on a slower core), and the calls of a process tend to reach the end of
// a turn together. Run in the calls' own process, those inferences compete at equal priority with the 20 ms timers
// that pace every call's audio, and the audio comes out late: with 12 calls on one core, frames played up to 70 ms
// late (p99, docs/benchmarks.md). At lower priority the pacing runs first, and only the end-of-turn decision waits.
// Inside a LiveKit job the framework's own inference process does this work instead (agent/turn/combined-turn-detector.ts).

const ENTRY = fileURLToPath(new URL('./eot-process-entry.mjs', import.meta.url));
/**
 * Loading the model takes one to three seconds of CPU. Whether a starting process is getting anywhere is judged by the
 * CPU it has used, not by the clock: on a loaded machine it may need a minute of wall time for those seconds, and
 * killing it then only starts the same work again. One that has used 30 s of CPU without being ready is not going to
 * be; where the CPU time cannot be read (no /proc), 30 s of wall time stands in for it.
 */
const READY_CPU_MS = 30_000;
/** A process that is stopped or stuck makes no progress at all: the last resort, however the machine is loaded. */
const READY_WALL_CAP_MS = 600_000;
/** How often a starting process's progress is read. */
const READY_CHECK_MS = 1_000;
/**
 * The session stops waiting for a prediction after 1 s (the framework's prediction timeout) and commits without one; an
 * answer 5 s late is not coming, and its request must not stay pending (nor keep this process alive) for ever.
 */
const REQUEST_TIMEOUT_MS = 5_000;

type Pending = { resolve(value: unknown): void; reject(error: Error): void };

/** How the model's process runs: its nice value (EOT_PROCESS_NICE) and the level it logs at. */
export interface EotProcessSettings {
  nice: number;
  logLevel: string;
}

/** Until the process's configuration says otherwise (a call run without a worker: tests, benchmarks). */
const DEFAULT_SETTINGS: EotProcessSettings = { nice: DEFAULT_EOT_PROCESS_NICE, logLevel: 'warn' };
let settings = DEFAULT_SETTINGS;

/**
 * Sets how the model's process runs, from the configuration checked at start-up. There is one such process per calls'
 * process, so its settings are the process's; a runner already started keeps the ones it started with.
 */
export function configureEotProcess(next: EotProcessSettings): void {
  settings = next;
}

export interface InferenceExecutor {
  doInference(method: string, data: unknown): Promise<unknown>;
}

export interface EotRunnerProcess extends InferenceExecutor {
  /** The child's process id, once it runs. */
  readonly pid: number | undefined;
  /** Resolves once the model is loaded and the process's priority lowered. */
  readonly ready: Promise<void>;
}

class EotProcess implements EotRunnerProcess {
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, Pending>();
  readonly ready: Promise<void>;
  #nextId = 0;
  #exited = false;
  /** Requests waiting for the runner to start or to answer: while there are any, this process stays up for them. */
  #inFlight = 0;

  constructor(onExit: () => void, { nice, logLevel }: EotProcessSettings) {
    // The entry reads these two from its environment: checked values, put there by this process.
    const env = { ...process.env, EOT_PROCESS_NICE: String(nice), LOG_LEVEL: logLevel };
    this.#child = fork(ENTRY, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [], env });
    this.ready = new Promise<void>((resolve, reject) => {
      // A runner that will not start is stopped, so that the next request starts a new one instead of failing against
      // this one for as long as it lives.
      const started = Date.now();
      const check = setInterval(() => {
        const pid = this.#child.pid;
        const cpuMs = pid === undefined ? undefined : processCpuMs(pid);
        const waitedMs = Date.now() - started;
        if ((cpuMs ?? waitedMs) < READY_CPU_MS && waitedMs < READY_WALL_CAP_MS) return;
        clearInterval(check);
        reject(new Error('end-of-turn model process did not start'));
        this.#child.kill('SIGKILL');
      }, READY_CHECK_MS);
      check.unref();
      this.#child.once('message', () => {
        clearInterval(check);
        resolve();
      });
      this.#child.once('exit', () => {
        clearInterval(check);
        reject(new Error('end-of-turn model process exited while starting'));
      });
    });
    // Seen by every request through doInference; a runner that failed to start before anyone asked is no error yet.
    this.ready.catch(() => {});
    this.#child.on('message', (message: { id?: number; result?: unknown; error?: string }) => {
      if (message.id === undefined) return;
      const pending = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      if (message.error !== undefined) pending?.reject(new Error(message.error));
      else pending?.resolve(message.result);
    });
    this.#child.once('exit', () => {
      this.#exited = true;
      for (const pending of this.#pending.values()) pending.reject(new Error('end-of-turn model process exited'));
      this.#pending.clear();
      onExit();
    });
    // The calls' process may exit without closing this one: the child leaves when its channel closes.
    this.#child.unref();
    this.#child.channel?.unref();
  }

  async doInference(_method: string, data: unknown): Promise<unknown> {
    // A request in flight keeps this process alive for its answer; an idle runner does not.
    if (this.#inFlight++ === 0) this.#child.channel?.ref();
    try {
      await this.ready;
      if (this.#exited) throw new Error('end-of-turn model process exited');
      const id = this.#nextId++;
      const answer = await new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          this.#pending.delete(id);
          reject(new Error('end-of-turn model did not answer'));
        }, REQUEST_TIMEOUT_MS);
        const settle =
          <T>(done: (value: T) => void) =>
          (value: T) => {
            clearTimeout(timer);
            done(value);
          };
        this.#pending.set(id, { resolve: settle(resolve), reject: settle(reject) });
        this.#child.send({ id, data });
      });
      const took = (answer as { inferenceDurationMs?: unknown } | null)?.inferenceDurationMs;
      if (typeof took === 'number') observeEotInference(took);
      return answer;
    } finally {
      if (--this.#inFlight === 0) this.#child.channel?.unref();
    }
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  kill(): void {
    this.#child.kill();
  }
}

let shared: EotProcess | undefined;

/** The process's end-of-turn model runner, started on first use and again after it died. */
export function eotProcess(): EotRunnerProcess {
  if (!shared) {
    const started: EotProcess = new EotProcess(() => {
      if (shared === started) shared = undefined;
    }, settings);
    shared = started;
  }
  return shared;
}

/** Stops the runner (tests, shutdown); the next call starts a new one. */
export function stopEotProcess(): void {
  shared?.kill();
  shared = undefined;
}
