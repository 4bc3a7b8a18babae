import { settledWithin } from './async.js';
import type { ChangeFeed } from './pg-listen.js';

// The one shape of background work in both processes: a loop of passes over durable rows (claim what is due, start
// it), run at start, then every interval or at once when woken, never two passes at a time. Work a pass starts may
// outlive it (a dial rings for 30 s, a webhook waits for its receiver); the loop tracks it so that stopping waits for
// it, within a bound. Rows are claimed in the database (FOR UPDATE SKIP LOCKED or compare-and-set), so any number of
// processes run the same loop on the same tables and each row is worked once. A loop is woken by its channels on the
// process's change feed, and work that holds a claimed row for long keeps its lease with `holdLease`.

export interface JobLoopOptions {
  /**
   * One pass. Resolves true when it stopped short of what is due (a batch limit, not an empty queue), so the loop goes
   * again at once instead of sleeping. A pass that throws is reported to `onError` and tried again after `errorPauseMs`.
   */
  pass: (loop: JobLoop) => Promise<boolean | void>;
  intervalMs: number;
  onError: (error: unknown, loop: JobLoop) => void;
  /**
   * The wait after a pass that threw (default `intervalMs`), so that a database that is down is not hammered. A wake
   * still cuts it short: news of work is also a sign the database is back.
   */
  errorPauseMs?: number;
  /**
   * Called each time tracked work settles, once it has left `inFlight`: a pass that stopped at a limit on work in
   * flight can `wake()` the loop when enough of it is free again.
   */
  onSettled?: (loop: JobLoop) => void;
  /** The waits between passes do not keep the process alive: for a sweep that matters only while something else runs. */
  unref?: boolean;
  /**
   * Channels whose notifications wake the loop, heard on the process's change feed: work queued by any process is
   * claimed at once instead of at the next interval. The loop is woken too when the feed is back after a drop (what
   * was queued meanwhile was not announced). Without a feed the interval alone finds the work.
   */
  wakeOn?: {
    feed: ChangeFeed | undefined;
    channels: readonly string[];
    /** The feed's connection was lost (polling carries the work until it is back). */
    onInterrupted?: (error: unknown) => void;
  };
}

export interface JobLoop {
  /** Runs a pass now, or right after the one under way: new work was just queued in this process. */
  wake(): void;
  /** Work a pass started that outlives it. stop() waits for it; it leaves the set when it settles. */
  track(work: Promise<unknown>): void;
  /** How much tracked work is still under way. */
  readonly inFlight: number;
  readonly stopping: boolean;
  /**
   * Runs no further pass and waits, up to `drainMs` (default: without bound), for the pass under way and then for the
   * tracked work. Resolves whether all of it settled: the caller decides what becomes of work that did not. Calling it
   * again waits again, with its own bound.
   */
  stop(drainMs?: number): Promise<boolean>;
}

export function startJobLoop(options: JobLoopOptions): JobLoop {
  const tracked = new Set<Promise<unknown>>();
  let stopping = false;
  let woken = false;
  let wakeSleeper: (() => void) | undefined;
  const subscriptions: (() => void)[] = [];

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      if (options.unref) timer.unref();
      function done() {
        clearTimeout(timer);
        wakeSleeper = undefined;
        resolve();
      }
      wakeSleeper = done;
    });

  const loop: JobLoop = {
    wake() {
      woken = true;
      wakeSleeper?.();
    },
    track(work) {
      const settled: Promise<void> = work.then(left, left);
      function left() {
        tracked.delete(settled);
        try {
          options.onSettled?.(loop);
        } catch (error) {
          options.onError(error, loop);
        }
      }
      tracked.add(settled);
    },
    get inFlight() {
      return tracked.size;
    },
    get stopping() {
      return stopping;
    },
    async stop(drainMs) {
      stopping = true;
      for (const unsubscribe of subscriptions.splice(0)) unsubscribe();
      wakeSleeper?.();
      // Work the pass under way starts is tracked before the pass ends, so it is in the set read after it.
      const all = running.then(() => Promise.all([...tracked]));
      if (drainMs === undefined) {
        await all;
        return true;
      }
      return settledWithin(all, drainMs);
    },
  };

  async function run(): Promise<void> {
    while (!stopping) {
      woken = false;
      let again = false;
      let failed = false;
      try {
        again = (await options.pass(loop)) === true;
      } catch (error) {
        failed = true;
        options.onError(error, loop);
      }
      if (stopping) break;
      // A wake that came during the pass may be for work the pass did not see: look again before sleeping.
      if (!again && !woken) await sleep(failed ? (options.errorPauseMs ?? options.intervalMs) : options.intervalMs);
    }
  }

  const running = run();
  const feed = options.wakeOn?.feed;
  if (feed && !stopping) {
    const wake = { onNotify: () => loop.wake(), onReset: () => loop.wake(), onError: options.wakeOn!.onInterrupted };
    for (const channel of options.wakeOn!.channels) subscriptions.push(feed.subscribe(channel, wake));
  }
  return loop;
}

export interface LeaseOptions {
  /** Extends the lease; answers false when the row is no longer this holder's (cancelled, or taken over). */
  renew: () => Promise<boolean | void>;
  everyMs: number;
  /** The row was lost: the work should stop, as whatever it writes now is refused. */
  onLost?: () => void;
  /** A renewal that failed (the database away): the next one tries again, and the lease lapses only if all fail. */
  onError: (error: unknown) => void;
}

export interface HeldLease {
  /** Renews no more; resolves once a renewal under way has settled, so that nothing renews the lease after it. */
  release(): Promise<void>;
}

/**
 * Keeps the lease of a claimed row while its work runs (a test run, a document's processing, a call's heartbeat):
 * renewed every `everyMs`, a renewal never overlapping the one before, so a slow database cannot pile them up.
 */
export function holdLease(options: LeaseOptions): HeldLease {
  let renewing: Promise<void> | undefined;
  let released = false;
  const timer = setInterval(() => {
    if (renewing || released) return;
    renewing = options
      .renew()
      .then(
        (held) => {
          if (held === false && !released) options.onLost?.();
        },
        (error: unknown) => {
          if (!released) options.onError(error);
        },
      )
      .finally(() => (renewing = undefined));
  }, options.everyMs);
  // The work holds the process up, not its lease.
  timer.unref();
  return {
    async release() {
      released = true;
      clearInterval(timer);
      await renewing;
    },
  };
}
