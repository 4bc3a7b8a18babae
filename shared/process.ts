/**
 * Duplicate signals arrive together when a process runs under npm: a terminal's Ctrl-C reaches the whole process
 * group and npm forwards its own copy. Repeats within this window are that echo, not an operator insisting.
 */
const SIGNAL_ECHO_WINDOW_MS = 2_000;

/**
 * Runs `stop` once on SIGINT or SIGTERM, then exits. A repeated signal after the echo window exits at once, for an
 * operator who does not want to wait for running calls to finish.
 */
export function onShutdown(stop: (signal: string) => Promise<void>, log: (message: string) => void = console.error): void {
  let firstSignalAt: number | undefined;
  const handler = (signal: NodeJS.Signals) => {
    if (firstSignalAt !== undefined) {
      if (Date.now() - firstSignalAt < SIGNAL_ECHO_WINDOW_MS) return;
      log(`received ${signal} again, exiting without waiting`);
      process.exit(1);
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
