import crypto from 'node:crypto';
import type { Db } from '../../prisma/client.js';

/** Event kinds delivered to webhooks; each payload is documented in docs/events.md (call payloads: modules/calls/events.ts). */
export const EVENT_TYPES = [
  'call.started',
  'call.completed',
  'call.failed',
  'call.transfer',
  'test_run.completed',
  'campaign.started',
  'campaign.paused',
  'campaign.completed',
] as const;
export type KnownEventType = (typeof EVENT_TYPES)[number];

/** Event kinds; each payload is documented in docs/events.md. */
export type EventType = KnownEventType | (string & {});

export interface RecordedEvent {
  id: string;
  type: EventType;
  organizationId: number;
  createdAt: Date;
}

/** The NOTIFY channel that wakes webhook delivery workers when an event queues deliveries. */
export const WEBHOOK_NOTIFY_CHANNEL = 'webhook_deliveries';

/**
 * Writes an event to the outbox. Call it with the same transaction as the state change the event reports, so the event
 * exists exactly when the change does. The id is stable across delivery attempts (receivers deduplicate on it).
 *
 * The same statement queues one webhook delivery per enabled endpoint of the organisation that subscribes to the
 * type, so the deliveries commit (or roll back) with the event, and notifies delivery workers, which Postgres does
 * only at commit.
 */
export async function recordEvent(db: Db, organizationId: number, type: EventType, payload: Record<string, unknown>): Promise<RecordedEvent> {
  const id = `evt_${crypto.randomBytes(12).toString('base64url')}`;
  const rows = await db.$queryRaw<{ created_at: Date; queued: number }[]>`
    WITH event AS (
      INSERT INTO events (id, organization_id, type, payload)
      VALUES (${id}, ${organizationId}, ${type}, ${JSON.stringify(payload)}::jsonb)
      RETURNING id, created_at
    ), queued AS (
      INSERT INTO webhook_deliveries (endpoint_id, event_id, next_attempt_at, created_at, updated_at)
      SELECT w.id, event.id, event.created_at, event.created_at, event.created_at
      FROM webhook_endpoints w, event
      WHERE w.organization_id = ${organizationId} AND w.enabled AND w.event_types ?| ARRAY[${type}::text, '*']
      RETURNING 1
    ), notified AS (
      SELECT pg_notify(${WEBHOOK_NOTIFY_CHANNEL}, '') WHERE EXISTS (SELECT 1 FROM queued)
    )
    SELECT event.created_at, (SELECT count(*)::int FROM queued) AS queued, (SELECT count(*)::int FROM notified) AS notified
    FROM event`;
  return { id, type, organizationId, createdAt: rows[0]!.created_at };
}
