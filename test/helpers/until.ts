import { wallClock } from './wall-clock.js';

export interface UntilOptions {
  /**
   * 30 s by default: a cap for a wait that will not end, not a budget. A database round trip or a worker's next poll
   * takes well under a second on an idle machine, and many times that on a 2-core machine kept busy by other work.
   */
  timeoutMs?: number;
  intervalMs?: number;
  /** What was awaited, for the failure; a function so that it can show the state at the deadline (a process's output). */
  message?: string | (() => string);
}

type Truthy<T> = Exclude<T, null | undefined | false | 0 | ''>;

/**
 * Polls `read` until it gives a truthy value, which it returns; fails once the timeout has passed. The timeout and the
 * polls are on the wall clock, in a test whose calls run on a scaled one too: a cap is about the machine, not the call. A `read` that
 * throws ends the wait with its error, which is how a wait gives up early (a process that exited).
 * `options` may be the timeout alone.
 */
export async function until<T>(read: () => T | Promise<T>, options: number | UntilOptions = {}): Promise<Truthy<T>> {
  const { timeoutMs = 30_000, intervalMs = 50, message } = typeof options === 'number' ? { timeoutMs: options } : options;
  const deadline = wallClock.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value as Truthy<T>;
    if (wallClock.now() > deadline) {
      const what = typeof message === 'function' ? message() : message;
      throw new Error(`condition not met in ${timeoutMs} ms${what ? `: ${what}` : ''}`);
    }
    await new Promise((resolve) => wallClock.setTimeout(resolve, intervalMs));
  }
}
