import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { observeFrameLateness } from '../../lib/metrics/index.js';
import { processCpuMs } from '../../lib/process-cpu.js';
import { LatenessWindow } from './lateness-window.js';

// How loaded a calls' process is, from what its callers would hear rather than from the machine alone: how late its
// audio frames leave (p95 over the last 10 s) and how busy its event loop is, where the calls' audio pacing, VAD and
// sessions all run. A process whose loop is busy 75 % of the time, or whose frames leave 30 ms late, is full: one
// more call makes every call on it worse. The machine's CPU counts too where the calls run in other processes (a
// LiveKit worker's job processes).

/**
 * At this load a process takes no new call: LiveKit passes a worker by (the framework's load threshold), and the
 * built-in transports refuse one on a process whose calls run in it.
 */
export const FULL_LOAD = 0.75;
/** A frame this late at p95 makes a process full (load 1): the caller hears gaps from here on. */
export const FULL_AT_LATE_MS = 40;
/** How often the loop's utilisation and the CPU are read. */
const SAMPLE_MS = 1_000;

/** The readings of one process: the module keeps the process's own (below); a test makes its own. */
export class ProcessLoad {
  readonly #lateness: LatenessWindow;
  readonly #sampler = new Sampler();

  constructor(lateness = new LatenessWindow()) {
    this.#lateness = lateness;
  }

  /** One of the assistant's frames left `lateMs` past its due time. */
  frameLeft(lateMs: number): void {
    this.#lateness.record(lateMs);
  }

  /** The load now; the first reading after start-up sees no history of the loop yet. */
  reading(): LoadReading {
    this.#sampler.start();
    const { ms } = this.#lateness.p95();
    const { eventLoop, machineCpu } = this.#sampler;
    return { load: clamp(Math.max(eventLoop, ms / FULL_AT_LATE_MS)), eventLoop, lateP95Ms: ms, machineCpu };
  }

  get machineCpu(): number {
    this.#sampler.start();
    return this.#sampler.machineCpu;
  }
}

export interface LoadReading {
  /** 0 (idle) to 1 (full): the highest of the parts below, each scaled to where it means full. */
  load: number;
  /** The event loop's busy share over the last seconds. */
  eventLoop: number;
  /** Frames' lateness at p95 over the last 10 s (ms); 0 when no audio played. */
  lateP95Ms: number;
  /** The machine's busy share of all its cores. */
  machineCpu: number;
}

class Sampler {
  #timer: NodeJS.Timeout | undefined;
  #elu: EventLoopUtilization = performance.eventLoopUtilization();
  #cpu = machineCpuTimes();
  eventLoop = 0;
  machineCpu = 0;

  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.#sample(), SAMPLE_MS);
    this.#timer.unref();
  }

  #sample(): void {
    const elu = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(elu, this.#elu).utilization;
    this.#elu = elu;
    // Smoothed over a few seconds: one long pass (a garbage collection) is not saturation.
    this.eventLoop = this.eventLoop * 0.5 + busy * 0.5;
    const cpu = machineCpuTimes();
    const total = cpu.total - this.#cpu.total;
    this.machineCpu = total > 0 ? (cpu.busy - this.#cpu.busy) / total : 0;
    this.#cpu = cpu;
  }
}

function machineCpuTimes(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const { times } of os.cpus()) {
    const all = times.user + times.nice + times.sys + times.irq + times.idle;
    total += all;
    busy += all - times.idle;
  }
  return { busy, total };
}

const own = new ProcessLoad();

/** One of the assistant's frames left `lateMs` past its due time: counted for the process's load and on the metrics. */
export function frameLeft(lateMs: number): void {
  own.frameLeft(lateMs);
  observeFrameLateness(lateMs);
}

/** This process's load now. */
export function processLoad(): LoadReading {
  return own.reading();
}

/**
 * A LiveKit worker's load: its calls run in job processes it forked, so it reads the machine's CPU and the busiest
 * job process's share of one core (a process whose loop has a core to itself and uses all of it is saturated, and
 * its calls' frames leave late), whichever is higher.
 */
export function workerLoad(): number {
  return clamp(Math.max(own.machineCpu, ...childCpuShares().values()));
}

/** Each child process's share of one core since it was last read at least half a second ago (Linux; empty elsewhere). */
export function childCpuShares(): Map<number, number> {
  return children.shares();
}

/** CPU shares of this process's children over the sampling interval, from /proc (0 where there is none). */
class ChildrenCpu {
  #last = new Map<number, { cpuMs: number; at: number }>();

  #shares = new Map<number, number>();

  shares(): Map<number, number> {
    let pids: number[];
    try {
      pids = readChildren(process.pid);
    } catch {
      return new Map();
    }
    const now = performance.now();
    const last = new Map<number, { cpuMs: number; at: number }>();
    const shares = new Map<number, number>();
    for (const pid of pids) {
      const cpuMs = processCpuMs(pid);
      if (cpuMs === undefined) continue;
      const before = this.#last.get(pid);
      // Read again only after half a second: the kernel counts in 10 ms ticks.
      if (before && now - before.at >= 500) {
        shares.set(pid, (cpuMs - before.cpuMs) / (now - before.at));
        last.set(pid, { cpuMs, at: now });
      } else {
        if (this.#shares.has(pid)) shares.set(pid, this.#shares.get(pid)!);
        last.set(pid, before ?? { cpuMs, at: now });
      }
    }
    this.#last = last;
    this.#shares = shares;
    return shares;
  }
}
const children = new ChildrenCpu();

function readChildren(pid: number): number[] {
  // The kernel lists each thread's children; a process's are those of its threads.
  return readdirSync(`/proc/${pid}/task`).flatMap((tid) => readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
}

const clamp = (x: number) => Math.min(Math.max(Number.isFinite(x) ? x : 0, 0), 1);
