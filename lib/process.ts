/**
 * Duplicate signals arrive together when a process runs under npm: a terminal's Ctrl-C reaches the whole process
 * group and npm forwards its own copy. Repeats within this window are that echo, not an operator insisting.
 */
const SIGNAL_ECHO_WINDOW_MS = 2_000;

/**
 * Bounds the cleanup of a repeated signal: the embedded database's forced stop takes up to 12 s (2 s for another
 * process's start or stop, 5 s in fast mode, 5 s in immediate mode).
 */
const FORCED_STOP_TIMEOUT_MS = 15_000;

export interface ShutdownOptions {
  /**
   * Runs on a repeated signal before the process exits at once: what must not outlive the process (the embedded
   * database it started) and cannot wait for running calls.
   */
  force?: () => Promise<void>;
  log?: (message: string) => void;
}

/**
 * Runs `stop` once on SIGINT or SIGTERM, then exits. A repeated signal after the echo window runs `force` and exits,
 * for an operator who does not want to wait for running calls to finish; one more exits at once.
 */
export function onShutdown(stop: (signal: string) => Promise<void>, optionsOrLog: ShutdownOptions | ((message: string) => void) = {}): void {
  const options = typeof optionsOrLog === 'function' ? { log: optionsOrLog } : optionsOrLog;
  const log = options.log ?? console.error;
  let firstSignalAt: number | undefined;
  let forcedAt: number | undefined;
  const handler = (signal: NodeJS.Signals) => {
    if (firstSignalAt !== undefined) {
      if (Date.now() - (forcedAt ?? firstSignalAt) < SIGNAL_ECHO_WINDOW_MS) return;
      if (forcedAt !== undefined || !options.force) {
        log(`received ${signal} again, exiting at once`);
        process.exit(1);
      }
      forcedAt = Date.now();
      log(`received ${signal} again, stopping the database and exiting without waiting for calls`);
      const timer = setTimeout(() => process.exit(1), FORCED_STOP_TIMEOUT_MS);
      options.force().then(
        () => process.exit(1),
        (error: unknown) => {
          clearTimeout(timer);
          log(`forced stop failed: ${error instanceof Error ? error.message : String(error)}`);
          process.exit(1);
        },
      );
      return;
    }
    firstSignalAt = Date.now();
    log(`received ${signal}, shutting down`);
    stop(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        log(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

/** What a process opens first and closes last: its database (prisma/database.ts). */
export interface ClosedLast {
  close(): Promise<void>;
  /** Leaves at once, for a process that exits on a repeated signal (the embedded cluster stops if this was its last user). */
  closeNow?(): Promise<void>;
}

/**
 * The shutdown of a process entry: on a signal, `stop` (what runs on the database: calls, the API) and then the
 * database being opened, whether or not it opened, then `closed`; on a repeated signal, the database is left at once.
 */
export function onShutdownClosingLast(opening: Promise<ClosedLast>, stop: () => Promise<void>, closed?: () => void): void {
  const settled = <T>(promise: Promise<T>) =>
    promise.then(
      () => undefined,
      () => undefined,
    );
  onShutdown(
    async () => {
      await stop();
      await settled(opening.then((db) => db.close()));
      closed?.();
    },
    { force: () => settled(opening.then((db) => db.closeNow?.())) },
  );
}

/**
 * Keeps a process that runs calls alive through a rejected promise nobody awaited. The speech framework reports a
 * vendor's failed synthesis both on its `error` event (which the call acts on: fallback, or an apology and a `failed`
 * end) and as a rejection of an internal promise; Node's default would end the process, and every other call with it.
 */
export function survivePromiseLeaks(log: (message: string) => void = console.error): void {
  process.on('unhandledRejection', (reason) => {
    log(`unawaited rejection (process kept running): ${reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason)}`);
  });
}
