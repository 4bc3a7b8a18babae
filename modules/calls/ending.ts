import type { Prisma, PrismaClient } from '../../prisma/client.js';
import { callEndedPayload } from './events.js';
import { recordEvent } from '../webhooks/events.js';

// Ends a call whose conversation never started: the callee was busy or did not answer, dialling failed, the dial was
// lost with its process, or nothing ever connected to the call (modules/calls/unstarted.ts). Every call placed through the API ends with `call.completed` (and `call.failed` for
// a failure), the same events a finished conversation writes, in the same transaction as the state change.

/** Statuses of a call before its conversation starts. */
export const NOT_STARTED = ['queued', 'initiated', 'ringing'];

export type UnstartedEnd = 'busy' | 'no_answer' | 'failed' | 'canceled' | 'voicemail';

/**
 * Answers false when the call had already moved on (it started, or another path ended it): nothing is written. `guard`
 * narrows the compare-and-set further: a sweep passes the condition that made the call stale, so a call that moved on
 * in between (a dialler claimed it) is left alone.
 */
export async function endUnstartedCall(
  prisma: PrismaClient,
  callId: number,
  status: UnstartedEnd,
  endReason: string,
  at = new Date(),
  guard: Prisma.CallWhereInput = {},
): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    const ended = await tx.call.updateMany({ where: { AND: [guard, { id: callId, status: { in: NOT_STARTED } }] }, data: { status, endReason, endedAt: at, durationMs: 0 } });
    if (ended.count === 0) return false;
    const call = await tx.call.findUniqueOrThrow({ where: { id: callId } });
    const payload = callEndedPayload(call, [], []);
    await recordEvent(tx, call.organizationId, 'call.completed', { ...payload });
    if (status === 'failed') await recordEvent(tx, call.organizationId, 'call.failed', { ...payload });
    return true;
  });
}
