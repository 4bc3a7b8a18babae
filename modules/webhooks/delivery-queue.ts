import crypto from 'node:crypto';
import type { Db } from '../../prisma/client.js';
import { WEBHOOK_NOTIFY_CHANNEL } from './events.js';

// The SQL of the delivery job rows (status pending, paused while the endpoint is disabled, succeeded or failed). A due row is claimed with FOR UPDATE SKIP LOCKED, so concurrent workers never
// take the same row, and leased: its next_attempt_at moves to the lease expiry, so if the worker dies mid-attempt the
// row becomes due again by itself and the next claim logs the cut attempt as interrupted. Outcomes are written only
// by the holder of the lease token, so a worker that outlived its lease cannot overwrite a newer attempt's result.

export interface ClaimedDelivery {
  id: number;
  endpointId: number;
  /** The endpoint's organisation: its signing secrets are sealed for it. */
  organizationId: number;
  eventId: string;
  /** Number of this attempt in the log (1-based, counts every attempt ever started). */
  attempt: number;
  /** Attempts since the delivery was last queued, this one included: the position in the retry schedule. */
  attemptsSinceQueued: number;
  leaseToken: string;
  eventType: string;
  payload: unknown;
  eventCreatedAt: Date;
  url: string;
  /** As stored: sealed (or in the clear, written before secrets were sealed); opened by the attempt that signs. */
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

interface ClaimRow {
  id: number;
  endpoint_id: number;
  organization_id: number;
  event_id: string;
  attempts: number;
  attempts_since_queued: number;
  type: string;
  payload: unknown;
  event_created_at: Date;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
}

export const INTERRUPTED_ERROR = 'attempt interrupted: the delivering process stopped before recording a result';

/** Claims up to `limit` due deliveries of enabled endpoints, leasing each for `leaseMs`. */
export async function claimDeliveries(db: Db, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
  const token = crypto.randomUUID();
  const rows = await db.$queryRaw<ClaimRow[]>`
    WITH picked AS (
      SELECT d.id, d.lease_expires_at AS previous_lease, d.last_attempt_at AS previous_attempt_at
      FROM webhook_deliveries d
      JOIN webhook_endpoints w ON w.id = d.endpoint_id
      WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND w.enabled
      ORDER BY d.next_attempt_at, d.id
      LIMIT ${limit}
      FOR UPDATE OF d SKIP LOCKED
    ), claimed AS (
      UPDATE webhook_deliveries d
      SET attempts = d.attempts + 1,
          attempts_since_queued = d.attempts_since_queued + 1,
          lease_token = ${token},
          lease_expires_at = now() + ${leaseMs} * interval '1 millisecond',
          next_attempt_at = now() + ${leaseMs} * interval '1 millisecond',
          last_attempt_at = now(),
          updated_at = now()
      FROM picked, events e, webhook_endpoints w
      WHERE d.id = picked.id AND e.id = d.event_id AND w.id = d.endpoint_id
      RETURNING d.id, d.endpoint_id, d.event_id, d.attempts, d.attempts_since_queued, picked.previous_lease,
                picked.previous_attempt_at, e.type, e.payload, e.created_at AS event_created_at, w.url, w.secret,
                w.previous_secret, w.previous_secret_expires_at, w.organization_id
    ), interrupted AS (
      INSERT INTO webhook_delivery_attempts (delivery_id, endpoint_id, attempt, started_at, error, succeeded, next_retry_at)
      SELECT id, endpoint_id, attempts - 1, coalesce(previous_attempt_at, now()), ${INTERRUPTED_ERROR}, false, now()
      FROM claimed WHERE previous_lease IS NOT NULL
    )
    SELECT id, endpoint_id, event_id, attempts, attempts_since_queued, type, payload, event_created_at, url, secret,
           previous_secret, previous_secret_expires_at, organization_id
    FROM claimed`;
  return rows.map((r) => ({
    id: r.id,
    endpointId: r.endpoint_id,
    organizationId: r.organization_id,
    eventId: r.event_id,
    attempt: r.attempts,
    attemptsSinceQueued: r.attempts_since_queued,
    leaseToken: token,
    eventType: r.type,
    payload: r.payload,
    eventCreatedAt: r.event_created_at,
    url: r.url,
    secret: r.secret,
    previousSecret: r.previous_secret,
    previousSecretExpiresAt: r.previous_secret_expires_at,
  }));
}

export type Outcome =
  | { kind: 'succeeded'; status: number; durationMs: number }
  /** Failed; retried after `retryInMs`, or given up when it is null. */
  | { kind: 'failed'; status: number | null; error: string; durationMs: number; retryInMs: number | null }
  /** The receiver answered 410 Gone: the delivery stops and the endpoint is disabled. */
  | { kind: 'gone'; status: number; durationMs: number };

export const GONE_REASON = 'the receiver answered 410 Gone';

/**
 * Records attempts' outcomes on their delivery rows and in the log, in one statement for the whole batch (group
 * commit: under load one round trip serves many attempts). A row is written only if its worker still holds the lease;
 * returns the ids of the deliveries whose outcome was kept. The others passed to another worker, whose attempt counts.
 */
export async function recordOutcomes(db: Db, items: readonly { job: ClaimedDelivery; outcome: Outcome }[]): Promise<Set<number>> {
  if (items.length === 0) return new Set();
  const ids: number[] = [];
  const tokens: string[] = [];
  const finalStatuses: string[] = [];
  const retryInMs: (number | null)[] = [];
  const responseStatuses: (number | null)[] = [];
  const errors: (string | null)[] = [];
  const succeeded: boolean[] = [];
  const durations: number[] = [];
  const disable: boolean[] = [];
  for (const { job, outcome } of items) {
    const retry = outcome.kind === 'failed' ? outcome.retryInMs : null;
    ids.push(job.id);
    tokens.push(job.leaseToken);
    finalStatuses.push(outcome.kind === 'succeeded' ? 'succeeded' : retry === null ? 'failed' : 'pending');
    retryInMs.push(retry);
    responseStatuses.push(outcome.status);
    errors.push(outcome.kind === 'failed' ? outcome.error : outcome.kind === 'gone' ? GONE_REASON : null);
    succeeded.push(outcome.kind === 'succeeded');
    durations.push(Math.round(outcome.durationMs));
    disable.push(outcome.kind === 'gone');
  }
  const rows = await db.$queryRaw<{ id: number }[]>`
    WITH input AS (
      SELECT * FROM unnest(${ids}::int[], ${tokens}::text[], ${finalStatuses}::text[], ${retryInMs}::float8[],
                           ${responseStatuses}::int[], ${errors}::text[], ${succeeded}::boolean[], ${durations}::int[],
                           ${disable}::boolean[])
        AS t(id, token, final_status, retry_ms, response_status, error, succeeded, duration_ms, disable)
    ), done AS (
      UPDATE webhook_deliveries d
      SET status = i.final_status,
          next_attempt_at = CASE WHEN i.retry_ms IS NULL THEN d.next_attempt_at ELSE now() + i.retry_ms * interval '1 millisecond' END,
          lease_token = NULL,
          lease_expires_at = NULL,
          last_response_status = i.response_status,
          last_error = i.error,
          delivered_at = CASE WHEN i.succeeded THEN now() ELSE d.delivered_at END,
          updated_at = now()
      FROM input i
      WHERE d.id = i.id AND d.lease_token = i.token
      RETURNING d.id, d.endpoint_id, d.attempts, d.last_attempt_at, d.next_attempt_at, i.final_status, i.response_status,
                i.error, i.succeeded, i.duration_ms, i.disable
    ), logged AS (
      INSERT INTO webhook_delivery_attempts
        (delivery_id, endpoint_id, attempt, started_at, duration_ms, response_status, error, succeeded, next_retry_at)
      SELECT id, endpoint_id, attempts, last_attempt_at, duration_ms, response_status, error, succeeded,
             CASE WHEN final_status = 'pending' THEN next_attempt_at END
      FROM done
    ), disabled AS (
      UPDATE webhook_endpoints
      SET enabled = false, disabled_reason = ${GONE_REASON}, updated_at = now()
      WHERE id IN (SELECT endpoint_id FROM done WHERE disable)
    ), paused AS (
      UPDATE webhook_deliveries
      SET status = 'paused', updated_at = now()
      WHERE endpoint_id IN (SELECT endpoint_id FROM done WHERE disable) AND status = 'pending' AND lease_token IS NULL
    )
    SELECT id FROM done`;
  return new Set(rows.map((r) => r.id));
}

/**
 * Parks the queued deliveries of an endpoint being disabled (status `paused`), so claims stop scanning past them, or
 * queues them again when it is enabled. Attempts in flight finish first and are left to the claim's own check.
 */
export async function pauseDeliveries(db: Db, endpointId: number, paused: boolean): Promise<void> {
  if (paused) {
    await db.$executeRaw`
      UPDATE webhook_deliveries SET status = 'paused', updated_at = now()
      WHERE endpoint_id = ${endpointId} AND status = 'pending' AND lease_token IS NULL`;
  } else {
    await db.$queryRaw`
      WITH resumed AS (
        UPDATE webhook_deliveries SET status = 'pending', updated_at = now()
        WHERE endpoint_id = ${endpointId} AND status = 'paused'
        RETURNING 1
      )
      SELECT pg_notify(${WEBHOOK_NOTIFY_CHANNEL}, '')::text FROM (SELECT 1 WHERE EXISTS (SELECT 1 FROM resumed)) s`;
  }
}
