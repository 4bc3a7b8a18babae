import { EventEmitter } from 'node:events';
import type { Db } from '../../prisma/client.js';

// The carrier's answering-machine verdict reaches the call it is about, in whichever API process runs that call: the
// process that receives the carrier's callback stores it on the call and NOTIFYs this channel in the same statement;
// every API process listens (api/app.ts) and hands it to the calls it runs, through this process-wide bus.

export const ANSWERED_BY_CHANNEL = 'call_answered_by';

const bus = new EventEmitter();
bus.setMaxListeners(0);

/** Stores the verdict and tells every process; false when the call already had it. */
export async function recordAnsweredBy(db: Db, callId: number, answeredBy: string): Promise<boolean> {
  const changed = await db.$executeRaw`
    WITH moved AS (UPDATE calls SET answered_by = ${answeredBy}, updated_at = now() WHERE id = ${callId} AND answered_by IS DISTINCT FROM ${answeredBy} RETURNING id)
    SELECT pg_notify(${ANSWERED_BY_CHANNEL}, ${`${callId}:${answeredBy}`}) FROM moved`;
  return changed > 0;
}

/** A notification from the channel, `<call id>:<verdict>`, for the calls this process runs. */
export function emitAnsweredBy(payload: string): void {
  const [id, answeredBy] = payload.split(':');
  if (id && answeredBy && /^\d+$/.test(id)) bus.emit(id, answeredBy);
}

/** Hears the verdicts of one call; answers a function that stops hearing them. */
export function onAnsweredBy(callId: number, listener: (answeredBy: string) => void): () => void {
  bus.on(String(callId), listener);
  return () => void bus.off(String(callId), listener);
}
