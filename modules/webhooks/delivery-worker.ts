import pg from 'pg';
import type { PrismaClient } from '../../prisma/client.js';
import { WEBHOOK_NOTIFY_CHANNEL } from './events.js';
import { claimDeliveries, recordOutcomes, type ClaimedDelivery, type Outcome } from './delivery-queue.js';
import { ABANDONED_ERROR, createSender, DELIVERY_TIMEOUT_MS, type Sender } from '../../lib/net/http-sender.js';
import { DEFAULT_JITTER_RATIO, DEFAULT_RETRY_SCHEDULE_MS, maxAttempts, retryDelayMs } from './retry-schedule.js';
import { signedHeaders } from './signing.js';

/** What the worker logs through: pino's (object, message) signature. */
export interface WebhookLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface WebhookDeliveryOptions {
  /** Connection string for LISTEN, so a new event wakes the worker at once; without it the worker only polls. */
  databaseUrl?: string;
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
/** 5 s between attempts to re-open a lost LISTEN connection; polling carries delivery in the meantime. */
const LISTEN_RECONNECT_MS = 5_000;
/** 5 s to open the LISTEN connection: a local or same-region Postgres answers in milliseconds. */
const LISTEN_CONNECT_TIMEOUT_MS = 5_000;
/** 5 s pause after a failed claim (database unreachable) so a down database is not hammered. */
const CLAIM_ERROR_PAUSE_MS = 5_000;

/**
 * 2 s for what is left after the stop deadline: abandoned attempts writing nothing more, the LISTEN connection saying
 * goodbye. Both take milliseconds on a healthy database; on a hung one, shutdown must not hang with it.
 */
const ABANDON_GRACE_MS = 2_000;

/** Whether `promise` settled within `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, ms));
  });
  const result = await Promise.race([promise.then(() => true as const, () => true as const), timedOut]);
  clearTimeout(timer);
  return result;
}

const silentLogger: WebhookLogger = { info() {}, warn() {}, error() {} };

function bodyOf(job: ClaimedDelivery): string {
  return JSON.stringify({ id: job.eventId, type: job.eventType, timestamp: job.eventCreatedAt.toISOString(), data: job.payload });
}

function secretsOf(job: ClaimedDelivery, nowMs: number): string[] {
  const previousValid = job.previousSecret !== null && job.previousSecretExpiresAt !== null && job.previousSecretExpiresAt.getTime() > nowMs;
  return previousValid ? [job.secret, job.previousSecret!] : [job.secret];
}

/**
 * Starts delivering queued webhook deliveries from this process. Any number of processes may run it on the same
 * database: each claims its own rows. Returns a handle whose stop() ends it gracefully.
 */
export function startWebhookDelivery(prisma: PrismaClient, options: WebhookDeliveryOptions = {}): WebhookDeliveryWorker {
  const log = options.logger ?? silentLogger;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const requestTimeoutMs = options.requestTimeoutMs ?? DELIVERY_TIMEOUT_MS;
  const leaseMs = options.leaseMs ?? requestTimeoutMs + LEASE_MARGIN_MS;
  const schedule = options.retryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS;
  const jitterRatio = options.jitterRatio ?? DEFAULT_JITTER_RATIO;
  const stopTimeoutMs = options.stopTimeoutMs ?? requestTimeoutMs + 5_000;
  const attemptLimit = maxAttempts(schedule);
  // Under a backlog, slots are refilled a quarter at a time: one claim query per 8 attempts (at 32 slots) instead of
  // one per attempt, which halves the database round trips per delivery.
  const refillBatch = Math.max(1, Math.floor(concurrency / 4));
  const sender: Sender = createSender({ timeoutMs: requestTimeoutMs, allowPrivateTargets: options.allowPrivateTargets ?? false });
  const inFlight = new Set<Promise<void>>();

  let stopping = false;
  let wakeUp: (() => void) | null = null;
  let pendingWake = false;
  let saturated = false;

  function wake(): void {
    pendingWake = true;
    wakeUp?.();
  }

  function sleep(ms: number): Promise<void> {
    if (pendingWake || stopping) {
      pendingWake = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = null;
        pendingWake = false;
        resolve();
      }
      wakeUp = done;
    });
  }

  function outcomeOf(job: ClaimedDelivery, status: number | null, error: string | null, durationMs: number): Outcome {
    if (status !== null && status >= 200 && status < 300) return { kind: 'succeeded', status, durationMs };
    if (status === 410) return { kind: 'gone', status, durationMs };
    const retryInMs = job.attemptsSinceQueued >= attemptLimit ? null : retryDelayMs(job.attemptsSinceQueued, schedule, jitterRatio);
    return { kind: 'failed', status, error: error ?? `unexpected response status ${status}`, durationMs, retryInMs };
  }

  async function attempt(job: ClaimedDelivery): Promise<void> {
    const body = bodyOf(job);
    const nowMs = Date.now();
    const headers = signedHeaders(secretsOf(job, nowMs), job.eventId, Math.floor(nowMs / 1000), body);
    const result = await sender.send(job.url, { ...headers }, body);
    if (result.error === ABANDONED_ERROR) return; // the lease expires and another process retries it
    const outcome = outcomeOf(job, result.status, result.error, result.durationMs);
    const fields = { deliveryId: job.id, endpointId: job.endpointId, eventId: job.eventId, attempt: job.attempt, status: result.status, durationMs: result.durationMs };
    try {
      const kept = await record(job, outcome);
      if (!kept) log.warn(fields, 'webhook attempt outcome discarded: the lease passed to another worker or the endpoint was deleted');
      else if (outcome.kind === 'gone') log.warn(fields, 'webhook endpoint disabled: receiver answered 410');
      else if (outcome.kind === 'failed' && outcome.retryInMs === null) log.warn({ ...fields, error: outcome.error }, 'webhook delivery gave up');
      else if (outcome.kind === 'failed') log.info({ ...fields, error: outcome.error, retryInMs: outcome.retryInMs }, 'webhook attempt failed');
    } catch (err) {
      // The lease expires and the delivery is attempted again: at least once.
      log.error({ ...fields, err }, 'webhook attempt outcome not recorded');
    }
  }

  // Outcomes finishing while a write is under way wait for the next write, which takes them all in one statement.
  let batch: { job: ClaimedDelivery; outcome: Outcome; resolve: (kept: boolean) => void; reject: (err: unknown) => void }[] = [];
  let writing = false;
  function record(job: ClaimedDelivery, outcome: Outcome): Promise<boolean> {
    return new Promise((resolve, reject) => {
      batch.push({ job, outcome, resolve, reject });
      if (!writing) void flush();
    });
  }
  async function flush(): Promise<void> {
    writing = true;
    while (batch.length > 0) {
      const items = batch;
      batch = [];
      try {
        const kept = await recordOutcomes(prisma, items);
        for (const item of items) item.resolve(kept.has(item.job.id));
      } catch (err) {
        for (const item of items) item.reject(err);
      }
    }
    writing = false;
  }

  function launch(job: ClaimedDelivery): void {
    const running = attempt(job)
      .catch((err: unknown) => log.error({ deliveryId: job.id, err }, 'webhook attempt crashed'))
      .finally(() => {
        inFlight.delete(running);
        if (saturated && concurrency - inFlight.size >= refillBatch) wake();
      });
    inFlight.add(running);
  }

  async function loop(): Promise<void> {
    while (!stopping) {
      const free = concurrency - inFlight.size;
      if (free <= 0 || (saturated && free < refillBatch)) {
        saturated = true;
        await sleep(pollIntervalMs);
        continue;
      }
      let claimed: ClaimedDelivery[];
      try {
        claimed = await claimDeliveries(prisma, free, leaseMs);
      } catch (err) {
        if (stopping) break;
        log.error({ err }, 'webhook deliveries not claimed');
        await sleep(CLAIM_ERROR_PAUSE_MS);
        continue;
      }
      for (const job of claimed) launch(job);
      saturated = claimed.length === free;
      // A full batch means more may be due: look again as soon as a slot frees; otherwise wait for news or the poll.
      await sleep(pollIntervalMs);
    }
  }

  // LISTEN on a dedicated connection: NOTIFY arrives when an event that queued deliveries commits.
  let listener: pg.Client | null = null;
  let reconnectTimer: NodeJS.Timeout | null = null;
  async function listen(): Promise<void> {
    if (!options.databaseUrl || stopping) return;
    const client = new pg.Client({ connectionString: options.databaseUrl, connectionTimeoutMillis: LISTEN_CONNECT_TIMEOUT_MS });
    let lost = false;
    const retry = () => {
      if (lost) return;
      lost = true;
      if (listener === client) listener = null;
      client.end().catch(() => {});
      if (!stopping && !reconnectTimer) {
        reconnectTimer = setTimeout(() => {
          reconnectTimer = null;
          void listen();
        }, LISTEN_RECONNECT_MS);
        reconnectTimer.unref();
      }
    };
    client.on('error', (err) => {
      log.warn({ err }, 'webhook notification connection lost');
      retry();
    });
    client.on('end', () => {
      if (!stopping) retry();
    });
    client.on('notification', () => wake());
    try {
      await client.connect();
      await client.query(`LISTEN ${WEBHOOK_NOTIFY_CHANNEL}`);
      if (stopping) {
        await client.end();
        return;
      }
      listener = client;
      wake(); // anything queued while not listening
    } catch (err) {
      log.warn({ err }, 'webhook notification connection not opened');
      retry();
    }
  }

  const listening = listen();
  const running = loop();
  let stopped: Promise<void> | null = null;

  return {
    wake,
    stop() {
      stopped ??= (async () => {
        stopping = true;
        wakeUp?.();
        if (reconnectTimer) clearTimeout(reconnectTimer);
        // One deadline for the whole stop: the loop's last claim, the LISTEN connection and the attempts in flight.
        const deadline = Date.now() + stopTimeoutMs;
        const settled = await within(Promise.all([running, listening]).then(() => Promise.allSettled([...inFlight])), deadline - Date.now());
        if (!settled) {
          log.warn({ inFlight: inFlight.size }, 'webhook attempts abandoned at shutdown; their leases will expire and they will be retried');
          sender.abandonAll();
          await within(Promise.allSettled([...inFlight]), ABANDON_GRACE_MS);
        }
        sender.close();
        const closing = listener;
        listener = null;
        if (closing) await within(closing.end().catch(() => {}), ABANDON_GRACE_MS);
      })();
      return stopped;
    },
  };
}
