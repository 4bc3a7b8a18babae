import type { Db } from '../../prisma/client.js';
import { AppError } from '../../lib/errors.js';
import { IN_PROGRESS, NOT_STARTED } from './statuses.js';

// An organisation's ceiling on simultaneous calls: every call not yet ended counts, inbound, outbound and web
// together, from queued to in progress, counted in the database so that every API process agrees. A new outbound
// call is admitted under a transaction-scoped advisory lock of the organisation, so two requests racing for the last
// slot cannot both take it. Inbound calls count but are not refused here: a caller ringing in is answered.
// docs/telephony.md, "Concurrency".

/** Namespace of the advisory lock (its first key), so it never meets another lock of the service. */
const LOCK_NAMESPACE = 7_411;

export const ACTIVE_STATUSES = [...NOT_STARTED, IN_PROGRESS] as const;

export async function activeCalls(db: Db, organizationId: number): Promise<number> {
  return db.call.count({ where: { organizationId, status: { in: [...ACTIVE_STATUSES] } } });
}

/**
 * Admits one more call of the organisation, or throws `concurrency_limit` (429) naming the limit and the calls under
 * way. Call it in the transaction that creates the call: the lock is held until it commits.
 */
export async function admitCall(tx: Db, organizationId: number): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${LOCK_NAMESPACE}::int, ${organizationId}::int)`;
  const org = await tx.organization.findUniqueOrThrow({ where: { id: organizationId }, select: { maxConcurrentCalls: true } });
  const active = await activeCalls(tx, organizationId);
  if (active >= org.maxConcurrentCalls) {
    throw new AppError(
      'concurrency_limit',
      `The organisation has ${active} calls under way and may have ${org.maxConcurrentCalls} at once: try again when one ends, or raise max_concurrent_calls in the organisation settings`,
      { limit: org.maxConcurrentCalls, active },
    );
  }
}

/**
 * How many of `wanted` new calls the organisation may take now, under the same lock as `admitCall`: a dispatcher that
 * queues a batch in one transaction counts once instead of once per call. The lock is held until the transaction ends.
 */
export async function admitCalls(tx: Db, organizationId: number, wanted: number): Promise<number> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${LOCK_NAMESPACE}::int, ${organizationId}::int)`;
  const org = await tx.organization.findUniqueOrThrow({ where: { id: organizationId }, select: { maxConcurrentCalls: true } });
  return Math.max(0, Math.min(wanted, org.maxConcurrentCalls - (await activeCalls(tx, organizationId))));
}
