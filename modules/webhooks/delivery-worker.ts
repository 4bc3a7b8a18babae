import type { PrismaClient } from '../../prisma/client.js';
import { startJobLoop, type JobLoop } from '../../lib/jobs.js';
import { createSender, DELIVERY_TIMEOUT_MS, type Sender } from '../../lib/net/http-sender.js';
import type { ChangeFeed } from '../../lib/pg-listen.js';
import { WEBHOOK_NOTIFY_CHANNEL } from './events.js';
import { claimDeliveries, type ClaimedDelivery } from './delivery-queue.js';
import { createAttempt, silentLogger, type WebhookLogger } from './delivery-attempt.js';
import { createOutcomeWriter } from './outcome-writer.js';
import { DEFAULT_JITTER_RATIO, DEFAULT_RETRY_SCHEDULE_MS } from './retry-schedule.js';
import type { SecretBox } from '../../lib/secret-box.js';

export type { WebhookLogger } from './delivery-attempt.js';

export interface WebhookDeliveryOptions {
  /** Opens the endpoints' sealed signing secrets: the box of the API that sealed them (SECRETS_KEY). */
  secrets: SecretBox;
  /** The process's change feed, so a new event wakes the worker at once; without it the worker only polls. */
  changes?: ChangeFeed;
  /** Deliver to loopback, private and other non-public addresses (env WEBHOOK_ALLOW_PRIVATE_TARGETS=true). */
  allowPrivateTargets?: boolean;
  /** Attempts in flight at once in this process. */
  concurrency?: number;
  /** Longest wait between looks for due deliveries (retries come due without any notification). */
  pollIntervalMs?: number;
  /** Deadline of one HTTP attempt. */
  requestTimeoutMs?: number;
  /** How long a claimed delivery stays with this process; after it, another process may take the delivery over. */
  leaseMs?: number;
  /** Waits before each retry (index 0: after the first failure). */
  retryScheduleMs?: readonly number[];
  /** Spread of each retry wait, ±ratio. */
  jitterRatio?: number;
  /** How long stop() waits for attempts in flight before abandoning them to their leases. */
  stopTimeoutMs?: number;
  logger?: WebhookLogger;
}

export interface WebhookDeliveryWorker {
  /** Looks for due deliveries now instead of at the next poll. */
  wake(): void;
  /** Stops claiming, waits (bounded) for attempts in flight, and releases connections. Safe to call twice. */
  stop(): Promise<void>;
}

/** 32 attempts in flight per process: a fast receiver answers in ~5-50 ms, so 32 slots carry >600 events/s each. */
const DEFAULT_CONCURRENCY = 32;
/** 1 s: a retry comes due at most this late, and an idle process costs one indexed query a second. */
const DEFAULT_POLL_INTERVAL_MS = 1_000;
/**
 * The lease outlives the request deadline by 15 s, time to write the outcome even on a loaded database; a process
 * that died mid-attempt delays its deliveries by at most this long.
 */
const LEASE_MARGIN_MS = 15_000;
/** 5 s pause after a failed claim (database unreachable) so a down database is not hammered. */
const CLAIM_ERROR_PAUSE_MS = 5_000;
/**
 * 2 s for what is left after the stop deadline: abandoned attempts writing nothing more. It takes milliseconds on a
 * healthy database; on a hung one, shutdown must not hang with it.
 */
const ABANDON_GRACE_MS = 2_000;

/**
 * Starts delivering queued webhook deliveries from this process. Any number of processes may run it on the same
 * database: each claims its own rows. Returns a handle whose stop() ends it gracefully.
 */
export function startWebhookDelivery(prisma: PrismaClient, options: WebhookDeliveryOptions): WebhookDeliveryWorker {
  const log = options.logger ?? silentLogger;
  const requestTimeoutMs = options.requestTimeoutMs ?? DELIVERY_TIMEOUT_MS;
  const sender = createSender({ timeoutMs: requestTimeoutMs, allowPrivateTargets: options.allowPrivateTargets ?? false });
  const attempt = createAttempt({
    sender,
    writer: createOutcomeWriter(prisma),
    log,
    retryScheduleMs: options.retryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS,
    jitterRatio: options.jitterRatio ?? DEFAULT_JITTER_RATIO,
    secrets: options.secrets,
  });
  const slots = claimingSlots(prisma, {
    concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
    leaseMs: options.leaseMs ?? requestTimeoutMs + LEASE_MARGIN_MS,
    attempt,
  });
  const loop = startJobLoop({
    intervalMs: options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    errorPauseMs: CLAIM_ERROR_PAUSE_MS,
    pass: slots.fill,
    onSettled: slots.freed,
    onError: (err, l) => {
      // A claim cut short by the stop (its connection closing) is no news.
      if (!l.stopping) log.error({ err }, 'webhook deliveries not claimed');
    },
    // NOTIFY arrives when an event that queued deliveries commits.
    wakeOn: {
      feed: options.changes,
      channels: [WEBHOOK_NOTIFY_CHANNEL],
      onInterrupted: (err) => log.warn({ err }, 'webhook notifications interrupted; polling carries delivery until they are back'),
    },
  });
  let stopped: Promise<void> | undefined;
  return {
    wake: () => loop.wake(),
    stop: () => (stopped ??= stopDelivery({ loop, sender, log, stopTimeoutMs: options.stopTimeoutMs ?? requestTimeoutMs + 5_000 })),
  };
}

/**
 * The claiming side: each pass claims as many due deliveries as there are free slots and starts an attempt for each.
 * Under a backlog (a claim filled every free slot, or none was free), slots are refilled a quarter at a time: one claim
 * query per 8 attempts (at 32 slots) instead of one per attempt, which halves the database round trips per delivery.
 */
function claimingSlots(prisma: PrismaClient, settings: { concurrency: number; leaseMs: number; attempt: (job: ClaimedDelivery) => Promise<void> }) {
  const { concurrency, leaseMs, attempt } = settings;
  const refillBatch = Math.max(1, Math.floor(concurrency / 4));
  let saturated = false;
  return {
    async fill(loop: JobLoop): Promise<void> {
      const free = concurrency - loop.inFlight;
      if (free <= 0 || (saturated && free < refillBatch)) {
        saturated = true;
        return;
      }
      const claimed = await claimDeliveries(prisma, free, leaseMs);
      for (const job of claimed) loop.track(attempt(job));
      // A full batch means more may be due: look again as soon as a refill's worth of slots is free.
      saturated = claimed.length === free;
    },
    freed(loop: JobLoop): void {
      if (saturated && concurrency - loop.inFlight >= refillBatch) loop.wake();
    },
  };
}

/**
 * Stops claiming and waits for the claim under way and the attempts in flight, all within one deadline; attempts still
 * running then are abandoned through the sender (their leases expire and another process retries them). Then the
 * sender's connections are released.
 */
async function stopDelivery(parts: { loop: JobLoop; sender: Sender; log: WebhookLogger; stopTimeoutMs: number }): Promise<void> {
  const { loop, sender, log } = parts;
  if (!(await loop.stop(parts.stopTimeoutMs))) {
    log.warn({ inFlight: loop.inFlight }, 'webhook attempts abandoned at shutdown; their leases will expire and they will be retried');
    sender.abandonAll();
    await loop.stop(ABANDON_GRACE_MS);
  }
  sender.close();
}
