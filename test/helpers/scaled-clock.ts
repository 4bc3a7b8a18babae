import { createRequire, syncBuiltinESMExports } from 'node:module';
import { afterEach, beforeEach } from 'vitest';
import { wallClock } from './wall-clock.js';

// A clock that runs `factor` times faster than the wall clock, for the whole process while it is on: Date, performance
// .now() and every timer (global, `node:timers` and `node:timers/promises`) run on it. A call's audio is paced by those
// timers and dated by that clock, on both sides (the scripted caller and the assistant's paced output) and in the
// speech framework, so a call scripted with 10 s of audio plays in 10 s of its own time and 10/factor s of the test's.
//
// What stays on the wall clock is what happens outside the process's timers: the database's now(), child processes,
// native inference. Seen from the call, that work simply takes `factor` times longer, as it would on a slower or busier
// machine, which the call tests already tolerate (they pass beside a CPU hog). Timers set while the clock is scaled
// stay real timers, so one that outlives it (a job loop's next poll) still fires, only sooner.

const require = createRequire(import.meta.url);
const timers = require('node:timers') as typeof import('node:timers');
const timersPromises = require('node:timers/promises') as typeof import('node:timers/promises');

const RealDate = Date;
const real = {
  dateNow: wallClock.now,
  performanceNow: wallClock.performanceNow,
  setTimeout: wallClock.setTimeout,
  setInterval: wallClock.setInterval,
  timersSetTimeout: timers.setTimeout,
  timersSetInterval: timers.setInterval,
  promisesSetTimeout: timersPromises.setTimeout,
};

/**
 * How many times faster than the wall clock the call tests run their calls. CALL_CLOCK_SCALE=1 plays every call in
 * real time (to compare, or to listen).
 */
export const CALL_CLOCK_SCALE = Number(process.env.CALL_CLOCK_SCALE ?? 3);

let active: { factor: number; wallStart: number; perfStart: number } | undefined;

function scaledNow(): number {
  if (!active) return real.dateNow();
  return Math.round(active.wallStart + (real.dateNow() - active.wallStart) * active.factor);
}

function scaledDelay(ms: unknown): number {
  const n = Number(ms);
  if (!active || !Number.isFinite(n) || n <= 0) return n;
  return n / active.factor;
}

class ScaledDate extends RealDate {
  constructor(...args: unknown[]) {
    if (args.length === 0) super(scaledNow());
    else super(...(args as [string]));
  }
  static override now(): number {
    return scaledNow();
  }
  // Dates made before the clock was scaled are dates too.
  static override [Symbol.hasInstance](value: unknown): boolean {
    return value instanceof RealDate;
  }
}

function scaledTimeout(fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) {
  return real.setTimeout(fn, scaledDelay(ms), ...args);
}
function scaledInterval(fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) {
  return real.setInterval(fn, scaledDelay(ms), ...args);
}
function scaledPromiseTimeout(ms?: number, value?: unknown, options?: unknown) {
  return real.promisesSetTimeout(scaledDelay(ms), value, options as never);
}

/**
 * Runs the process's clock `factor` times faster until the returned function is called. Inside a test that already
 * runs on a scaled clock, it changes nothing and its restore is the outer one's business.
 */
export function scaleClock(factor: number): () => void {
  if (active) return () => undefined;
  if (!(factor >= 1)) throw new Error(`a clock runs at least at the wall clock's pace, not ${factor}x`);
  active = { factor, wallStart: real.dateNow(), perfStart: real.performanceNow() };
  const perf = active.perfStart;
  globalThis.Date = ScaledDate as DateConstructor;
  performance.now = () => (active ? perf + (real.performanceNow() - perf) * active.factor : real.performanceNow());
  globalThis.setTimeout = scaledTimeout as typeof setTimeout;
  globalThis.setInterval = scaledInterval as typeof setInterval;
  timers.setTimeout = scaledTimeout as typeof setTimeout;
  timers.setInterval = scaledInterval as typeof setInterval;
  timersPromises.setTimeout = scaledPromiseTimeout as typeof timersPromises.setTimeout;
  syncBuiltinESMExports();
  return () => {
    if (!active) return;
    active = undefined;
    globalThis.Date = RealDate;
    performance.now = real.performanceNow;
    globalThis.setTimeout = real.setTimeout;
    globalThis.setInterval = real.setInterval;
    timers.setTimeout = real.timersSetTimeout;
    timers.setInterval = real.timersSetInterval;
    timersPromises.setTimeout = real.promisesSetTimeout;
    syncBuiltinESMExports();
  };
}

/** Every test of the file (or describe block) runs on a clock `factor` times faster; its hooks on the wall clock. */
export function scaledClockInEachTest(factor = CALL_CLOCK_SCALE): void {
  let restore: (() => void) | undefined;
  beforeEach(() => {
    if (factor > 1) restore = scaleClock(factor);
  });
  afterEach(() => {
    restore?.();
    restore = undefined;
  });
}
