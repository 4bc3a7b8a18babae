import crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Db } from '../../prisma/client.js';

// A warm transfer's consultation with the person called, shared by two processes that need not be one: the call's
// process creates the row, has the carrier call the person, and waits; the API process that receives the carrier's
// callbacks about that call (answered, a key pressed, a machine, the call over) moves the row's state and NOTIFYs this
// channel in the same statement. Every API process listens (api/app.ts) and hands the change to the calls it runs
// through this process-wide bus; the waiting call reads the row again, so a notification lost while the LISTEN
// connection was down costs nothing but the wait until it is back (onReset reads every waiting row). A slow poll
// besides covers a process that runs without the change feed, and a notification that never came.

export const WARM_TRANSFER_CHANNEL = 'warm_transfer_changed';

/** Where the consultation is: still open, or how it ended. */
export type WarmTransferState = 'dialing' | 'answered' | WarmTransferOutcome;
export type WarmTransferOutcome = 'accepted' | 'declined' | 'no_answer' | 'busy' | 'voicemail' | 'failed' | 'canceled';

export const OPEN_WARM_TRANSFER_STATES: readonly WarmTransferState[] = ['dialing', 'answered'];

export interface WarmTransferRow {
  id: number;
  token: string;
  callId: number;
  consultCallSid: string | null;
  state: WarmTransferState;
  answeredBy: string | null;
}

const bus = new EventEmitter();
bus.setMaxListeners(0);

/** How often a waiting consultation reads its row without being told: a person takes seconds to answer and press. */
const POLL_MS = 2_000;
const RESET = 'reset';

/** Opens the consultation of one call; its token names it in the carrier's callbacks and its conference. */
export async function openWarmTransfer(db: Db, callId: number): Promise<WarmTransferRow> {
  const row = await db.warmTransfer.create({ data: { callId, token: crypto.randomBytes(16).toString('hex') } });
  return row as WarmTransferRow;
}

export async function setConsultCallSid(db: Db, id: number, consultCallSid: string): Promise<void> {
  await db.warmTransfer.update({ where: { id }, data: { consultCallSid } });
}

export async function findWarmTransfer(db: Db, token: string): Promise<WarmTransferRow | null> {
  return (await db.warmTransfer.findUnique({ where: { token } })) as WarmTransferRow | null;
}

/**
 * Moves an open consultation to `state` and tells every process; false when it was already over (the first word on
 * it stands: a key pressed after the call was given up on changes nothing). `answered` only follows `dialing`.
 */
export async function moveWarmTransfer(db: Db, token: string, state: WarmTransferState, answeredBy?: string): Promise<boolean> {
  const from = state === 'answered' ? ['dialing'] : [...OPEN_WARM_TRANSFER_STATES];
  const changed = await db.$executeRaw`
    WITH moved AS (
      UPDATE warm_transfers SET state = ${state}, answered_by = COALESCE(${answeredBy ?? null}, answered_by), updated_at = now()
      WHERE token = ${token} AND state = ANY(${from}::text[]) RETURNING token)
    SELECT pg_notify(${WARM_TRANSFER_CHANNEL}, token) FROM moved`;
  return changed > 0;
}

/** A notification from the channel (a consultation's token), for the calls this process runs. */
export function emitWarmTransfer(payload: string): void {
  if (/^[0-9a-f]{32}$/.test(payload)) bus.emit(payload);
}

/** The LISTEN connection dropped or is back: whoever waits reads its row again. */
export function resetWarmTransfers(): void {
  bus.emit(RESET);
}

/**
 * Waits until the consultation `token` is over, reading its row whenever it may have changed. Answers its outcome,
 * or undefined when `signal` aborts first (the caller hung up, or the wait was given up).
 */
export function awaitWarmTransferOutcome(db: Db, token: string, signal: AbortSignal): Promise<WarmTransferRow | undefined> {
  return new Promise((resolve) => {
    let done = false;
    let reading = false;
    let again = false;
    const finish = (row: WarmTransferRow | undefined) => {
      if (done) return;
      done = true;
      clearInterval(poll);
      bus.off(token, check);
      bus.off(RESET, check);
      signal.removeEventListener('abort', aborted);
      resolve(row);
    };
    const aborted = () => finish(undefined);
    // One read at a time; a change heard during a read is read again after it.
    function check(): void {
      if (done) return;
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      findWarmTransfer(db, token)
        .then((row) => {
          if (row && !OPEN_WARM_TRANSFER_STATES.includes(row.state)) finish(row);
        })
        .catch(() => {})
        .finally(() => {
          reading = false;
          if (again) {
            again = false;
            check();
          }
        });
    }
    const poll = setInterval(check, POLL_MS);
    if (signal.aborted) return finish(undefined);
    signal.addEventListener('abort', aborted, { once: true });
    bus.on(token, check);
    bus.on(RESET, check);
    check();
  });
}
