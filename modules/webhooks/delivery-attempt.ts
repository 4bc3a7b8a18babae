import type { BaseLogger } from 'pino';
import { ABANDONED_ERROR, type Sender } from '../../lib/net/http-sender.js';
import type { ClaimedDelivery, Outcome } from './delivery-queue.js';
import type { OutcomeWriter } from './outcome-writer.js';
import { maxAttempts, retryDelayMs } from './retry-schedule.js';
import { signedHeaders } from './signing.js';

/**
 * What delivery logs through: the process's pino logger (the API passes a child of `app.log`). Errors go in the `err`
 * field, which pino serialises with their stack.
 */
export type WebhookLogger = Pick<BaseLogger, 'info' | 'warn' | 'error'>;

export const silentLogger: WebhookLogger = { info() {}, warn() {}, error() {} };

export interface AttemptSettings {
  sender: Sender;
  writer: OutcomeWriter;
  log: WebhookLogger;
  /** Waits before each retry (index 0: after the first failure). */
  retryScheduleMs: readonly number[];
  /** Spread of each retry wait, ±ratio. */
  jitterRatio: number;
}

function bodyOf(job: ClaimedDelivery): string {
  return JSON.stringify({ id: job.eventId, type: job.eventType, timestamp: job.eventCreatedAt.toISOString(), data: job.payload });
}

function secretsOf(job: ClaimedDelivery, nowMs: number): string[] {
  const previousValid = job.previousSecret !== null && job.previousSecretExpiresAt !== null && job.previousSecretExpiresAt.getTime() > nowMs;
  return previousValid ? [job.secret, job.previousSecret!] : [job.secret];
}

/**
 * One attempt at a claimed delivery: the signed request, then its outcome written under the lease. The returned
 * function never rejects; whatever goes wrong is logged, and the lease brings the delivery back: at least once.
 */
export function createAttempt(settings: AttemptSettings): (job: ClaimedDelivery) => Promise<void> {
  const { sender, writer, log, retryScheduleMs, jitterRatio } = settings;
  const attemptLimit = maxAttempts(retryScheduleMs);

  function outcomeOf(job: ClaimedDelivery, status: number | null, error: string | null, durationMs: number): Outcome {
    if (status !== null && status >= 200 && status < 300) return { kind: 'succeeded', status, durationMs };
    if (status === 410) return { kind: 'gone', status, durationMs };
    const retryInMs = job.attemptsSinceQueued >= attemptLimit ? null : retryDelayMs(job.attemptsSinceQueued, retryScheduleMs, jitterRatio);
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
      const kept = await writer.record(job, outcome);
      if (!kept) log.warn(fields, 'webhook attempt outcome discarded: the lease passed to another worker or the endpoint was deleted');
      else if (outcome.kind === 'gone') log.warn(fields, 'webhook endpoint disabled: receiver answered 410');
      else if (outcome.kind === 'failed' && outcome.retryInMs === null) log.warn({ ...fields, error: outcome.error }, 'webhook delivery gave up');
      else if (outcome.kind === 'failed') log.info({ ...fields, error: outcome.error, retryInMs: outcome.retryInMs }, 'webhook attempt failed');
    } catch (err) {
      // The lease expires and the delivery is attempted again: at least once.
      log.error({ ...fields, err }, 'webhook attempt outcome not recorded');
    }
  }

  return (job) => attempt(job).catch((err: unknown) => log.error({ deliveryId: job.id, err }, 'webhook attempt crashed'));
}
