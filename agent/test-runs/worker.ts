import { log } from '@livekit/agents';
import type { PrismaClient } from '../../prisma/client.js';
import { holdLease, startJobLoop } from '../../lib/jobs.js';
import type { ChangeFeed } from '../../lib/pg-listen.js';
import {
  claimTestRun,
  failExhaustedRuns,
  finishTestRun,
  releaseTestRun,
  renewLease,
  saveProgress,
  TEST_RUN_CANCEL_CHANNEL,
  TEST_RUN_NOTIFY_CHANNEL,
  type ClaimedRun,
  type RunOutcome,
} from '../../modules/test-runs/index.js';
import { Stopped } from './conversation.js';
import { executeTestRun, totalsOf, type TestRunDeps } from './run-test.js';

// The test-run job of an agent worker, in LiveKit and local mode alike: a job loop (lib/jobs.ts) that claims queued
// runs, runs them in this process (text only: no audio, no job process), and writes their end. NOTIFY wakes it when a
// run is queued and stops a run that is cancelled; the poll is the safety net, and the way an expired lease is found.

export interface TestRunWorkerOptions extends Omit<TestRunDeps, 'prisma'> {
  /** The process's change feed: a queued run is claimed at once, a cancelled one stopped; without it the worker polls. */
  changes?: ChangeFeed;
  /** Runs at once in this process (default 2): each is mostly waiting on its model. */
  concurrency?: number;
  /** How long a claimed run stays this worker's without a renewal (default 30 s). */
  leaseMs?: number;
  /** How often the queue is looked at without a notification (default 5 s). */
  pollIntervalMs?: number;
}

export interface TestRunWorker {
  wake(): void;
  /** Stops claiming, stops the runs under way and hands them back to the queue for another worker. Safe twice. */
  stop(): Promise<void>;
}

/**
 * Two runs at a time per worker: a run is a conversation with a model, seconds per turn, and a worker's first job is
 * its calls; more runs queue and are taken by other workers or as these finish.
 */
const DEFAULT_CONCURRENCY = 2;
/**
 * 30 s lease, renewed every 10 s: a worker that died leaves its run to another within 30 s, and two missed renewals
 * (a database blip) do not lose it.
 */
export const DEFAULT_LEASE_MS = 30_000;
/** 5 s poll: a run queued while the LISTEN connection was down starts within 5 s; an idle worker costs a query per 5 s. */
const DEFAULT_POLL_INTERVAL_MS = 5_000;
/** 5 s after a failed claim (database unreachable). */
const ERROR_PAUSE_MS = 5_000;
/** Stopping waits this long for runs to notice they were stopped and close their sessions (2 s each at most). */
const STOP_TIMEOUT_MS = 5_000;

export function startTestRunWorker(prisma: PrismaClient, options: TestRunWorkerOptions): TestRunWorker {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const running = new Map<number, AbortController>();
  let stopping = false;
  const logger = () => log().child({ component: 'test-runs' });

  async function execute(run: ClaimedRun, controller: AbortController): Promise<void> {
    const fields = { testRunId: run.id, attempt: run.attempt };
    const lease = holdLease({
      renew: () => renewLease(prisma, run, leaseMs),
      everyMs: Math.max(leaseMs / 3, 50),
      onLost: () => controller.abort(),
      onError: (err) => logger().warn({ ...fields, err }, 'test run lease not renewed'),
    });
    // Sessions close in the background (half a second each); the run's work ends when they have.
    const closing: Promise<unknown>[] = [];
    try {
      let outcome: RunOutcome;
      try {
        outcome = await executeTestRun({ ...options, prisma }, run, controller.signal, (results) => saveProgress(prisma, run, results), {
          onSessionClosing: (closed) => closing.push(closed),
        });
      } catch (error) {
        if (controller.signal.aborted || error instanceof Stopped) {
          if (stopping)
            await releaseTestRun(prisma, run).catch((err: unknown) => logger().warn({ ...fields, err }, 'test run not handed back; its lease will lapse'));
          return;
        }
        // A fault of ours, not of the assistant's: recorded as the run's failure rather than retried for ever.
        logger().error({ ...fields, err: error }, 'test run failed');
        outcome = {
          status: 'failed',
          results: run.results,
          error: `the run stopped on an internal error: ${error instanceof Error ? error.message : String(error)}`,
          totals: totalsOf(run.results),
        };
      }
      if (controller.signal.aborted) {
        if (stopping)
          await releaseTestRun(prisma, run).catch((err: unknown) => logger().warn({ ...fields, err }, 'test run not handed back; its lease will lapse'));
        return;
      }
      const kept = await finishTestRun(prisma, run, outcome);
      logger().info({ ...fields, status: outcome.status, kept }, 'test run finished');
    } finally {
      await lease.release();
      running.delete(run.id);
      await Promise.all(closing);
    }
  }

  const loop = startJobLoop({
    intervalMs: options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    errorPauseMs: ERROR_PAUSE_MS,
    pass: async (l) => {
      await failExhaustedRuns(prisma);
      while (!l.stopping && l.inFlight < concurrency) {
        const run = await claimTestRun(prisma, leaseMs);
        if (!run) return;
        // Claimed as the worker began to stop: straight back to the queue.
        if (stopping) {
          await releaseTestRun(prisma, run);
          return;
        }
        const controller = new AbortController();
        running.set(run.id, controller);
        l.track(execute(run, controller));
      }
    },
    // A run finished: there is room for the next one.
    onSettled: (l) => l.wake(),
    onError: (err, l) => {
      if (!l.stopping) logger().error({ err }, 'test runs not claimed');
    },
    wakeOn: {
      feed: options.changes,
      channels: [TEST_RUN_NOTIFY_CHANNEL],
      onInterrupted: (err) => logger().warn({ err }, 'test run notifications interrupted; polling carries the queue until they are back'),
    },
  });
  // A cancelled run is stopped at once; one whose notification was lost stops at its next write, refused by the fence.
  const hearCancels = options.changes?.subscribe(TEST_RUN_CANCEL_CHANNEL, { onNotify: (payload) => running.get(Number(payload))?.abort(), onReset: () => {} });
  let stopped: Promise<void> | undefined;
  return {
    wake: () => loop.wake(),
    stop: () =>
      (stopped ??= (async () => {
        stopping = true;
        const drained = loop.stop(STOP_TIMEOUT_MS);
        for (const controller of running.values()) controller.abort();
        await drained;
        hearCancels?.();
      })()),
  };
}
