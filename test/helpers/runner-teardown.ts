import { rm } from 'node:fs/promises';

/**
 * Ends a file's local call runner and removes its data folder once `close` (the API and fakes it used) has run: a call
 * a failed test left running ends first and finishes writing there, so the folder is gone for good. The folder goes
 * even when closing fails.
 */
export async function endRunnerAndRemoveData(
  runner: { drain(timeoutMs: number): Promise<unknown> } | undefined,
  dataDir: string | undefined,
  close: () => Promise<unknown>,
): Promise<void> {
  try {
    await runner?.drain(0);
    await close();
  } finally {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }
}
