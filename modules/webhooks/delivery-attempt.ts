import type { BaseLogger } from 'pino';
import { ABANDONED_ERROR, type Sender } from '../../lib/net/http-sender.js';
import type { ClaimedDelivery, Outcome } from './delivery-queue.js';
import type { OutcomeWriter } from './outcome-writer.js';
import { maxAttempts, retryDelayMs } from './retry-schedule.js';
import { secretContext, signedHeaders } from './signing.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { openedForm } from '../../lib/secrets.js';

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
  /** Opens the endpoints' signing secrets (SECRETS_KEY): a local AES-GCM open, no database round trip. */
  secrets: SecretBox;
}

/** Why an attempt sent nothing: a request we cannot sign must not go out unsigned. */
export const UNSIGNABLE_ERROR = 'signing secret does not open: this process has another SECRETS_KEY than the one that sealed it';

function bodyOf(job: ClaimedDelivery): string {
  return JSON.stringify({ id: job.eventId, type: job.eventType, timestamp: job.eventCreatedAt.toISOString(), data: job.payload });
}

/**
 * The secrets that sign now, opened: the current one, and the one it replaced while the overlap lasts. Opening is a
 * local AES-GCM open, about 13 µs a secret (as long as the HMAC of a 1.5 KB body), against an HTTP exchange of a
 * millisecond or more: no cache is needed, and the clear secrets live only for the attempt.
 */
function secretsOf(job: ClaimedDelivery, nowMs: number, box: SecretBox): string[] {
  const context = secretContext(job.organizationId);
  const previousValid = job.previousSecret !== null && job.previousSecretExpiresAt !== null && job.previousSecretExpiresAt.getTime() > nowMs;
  const stored = previousValid ? [job.secret, job.previousSecret!] : [job.secret];
  return stored.map((s) => openedForm(box, s, context)).filter((s) => s !== undefined);
}

/**
 * One attempt at a claimed delivery: the signed request, then its outcome written under the lease. The returned
 * function never rejects; whatever goes wrong is logged, and the lease brings the delivery back: at least once.
 */
export function createAttempt(settings: AttemptSettings): (job: ClaimedDelivery) => Promise<void> {
  const { sender, writer, log, retryScheduleMs, jitterRatio, secrets } = settings;
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
    const signing = secretsOf(job, nowMs, secrets);
    // Retried on the schedule like a refused request, so deliveries resume once the process has the right key.
    const result =
      signing.length === 0
        ? { status: null, error: UNSIGNABLE_ERROR, durationMs: 0 }
        : await sender.send(job.url, { ...signedHeaders(signing, job.eventId, Math.floor(nowMs / 1000), body) }, body);
    if (result.error === ABANDONED_ERROR) return; // the lease expires and another process retries it
    const outcome = outcomeOf(job, result.status, result.error, result.durationMs);
    const fields = {
      deliveryId: job.id,
      endpointId: job.endpointId,
      eventId: job.eventId,
      attempt: job.attempt,
      status: result.status,
      durationMs: result.durationMs,
    };
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
