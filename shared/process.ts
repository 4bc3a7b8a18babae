/**
 * Runs `stop` once on SIGINT or SIGTERM, then exits. A second signal while stopping exits at once, for an operator
 * who does not want to wait.
 */
export function onShutdown(stop: (signal: string) => Promise<void>, log: (message: string) => void = console.error): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
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
