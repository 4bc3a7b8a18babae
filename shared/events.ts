import crypto from 'node:crypto';
import type { Db } from '../prisma/client.js';

/** Event kinds; each payload is documented in docs/events.md. */
export type EventType = 'call.completed' | (string & {});

export interface RecordedEvent {
  id: string;
  type: EventType;
  organizationId: number;
  createdAt: Date;
}

/**
 * Writes an event to the outbox. Call it with the same transaction as the state change the event reports, so the event
 * exists exactly when the change does. The id is stable across delivery attempts (receivers deduplicate on it).
 */
export async function recordEvent(db: Db, organizationId: number, type: EventType, payload: Record<string, unknown>): Promise<RecordedEvent> {
  const id = `evt_${crypto.randomBytes(12).toString('base64url')}`;
  const row = await db.event.create({ data: { id, organizationId, type, payload: payload as object } });
  return { id, type, organizationId, createdAt: row.createdAt };
}
