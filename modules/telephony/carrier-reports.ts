import type { Logger } from '../../lib/logger.js';
import { startJobLoop } from '../../lib/jobs.js';
import { backoffMs, growingSchedule } from '../../lib/backoff.js';
import type { PrismaClient } from '../../prisma/client.js';
import { applyCarrierReport } from './carrier-calls.js';
import type { CarrierCallReport } from './carriers/carrier.js';

// A carrier sends each status callback once and does not retry one we fail to answer. So a callback is written to
// `carrier_reports` in one insert and acknowledged; applying it to the call (a transaction that ends the call, writes
// its events, frees its campaign slot) happens after, at once in the process that stored it, and again from this queue
// in any process should that fail or that process die. Applying is idempotent (the lifecycle's compare-and-set), so a
// report applied twice changes nothing the second time.

/** A stored report waits this long for the process that stored it before any process's queue takes it. */
const FIRST_RETRY_S = 5;
/**
 * After a failed application: 5 s, doubling to at most 5 minutes apart; a report that keeps failing is still tried,
 * and says so in the log.
 */
const RETRY_SCHEDULE_MS = growingSchedule(FIRST_RETRY_S * 1000, 2, 300_000, 8);
/** A claimed report is left to its claimer this long; should that process die mid-application, another takes it after. */
const CLAIM_LEASE_S = 60;
/** Reports applied per pass of the queue before it goes again. */
const BATCH = 50;

interface StoredReport {
  providerCallSid: string;
  state: CarrierCallReport['state'];
  answeredBy?: string;
  sipCode?: number;
  createdAt?: string;
}

function stored(report: CarrierCallReport): StoredReport {
  return {
    providerCallSid: report.providerCallSid,
    state: report.state,
    ...(report.answeredBy !== undefined ? { answeredBy: report.answeredBy } : {}),
    ...(report.sipCode !== undefined ? { sipCode: report.sipCode } : {}),
    ...(report.createdAt !== undefined ? { createdAt: report.createdAt.toISOString() } : {}),
  };
}

function reportOf(row: StoredReport): CarrierCallReport {
  return { ...row, createdAt: row.createdAt === undefined ? undefined : new Date(row.createdAt) };
}

/** Writes the report for its call; once this resolves, the carrier may be told it was received. */
export async function storeCarrierReport(prisma: PrismaClient, callId: number, report: CarrierCallReport): Promise<number> {
  const rows = await prisma.$queryRaw<{ id: number }[]>`
    INSERT INTO carrier_reports (call_id, report, next_attempt_at)
    VALUES (${callId}, ${JSON.stringify(stored(report))}::jsonb, now() + make_interval(secs => ${FIRST_RETRY_S}))
    RETURNING id`;
  return rows[0]!.id;
}

/** Applies one stored report to its call as the call is now, then deletes it. */
async function apply(prisma: PrismaClient, id: number, callId: number, report: StoredReport): Promise<void> {
  const call = await prisma.call.findUnique({ where: { id: callId } });
  if (call) await applyCarrierReport(prisma, call, reportOf(report));
  await prisma.carrierReport.deleteMany({ where: { id } });
}

/** Applies the report just stored, in the process that stored it; on failure the queue has it (`startCarrierReportQueue`). */
export async function applyStoredReport(prisma: PrismaClient, id: number, callId: number, report: CarrierCallReport): Promise<void> {
  await apply(prisma, id, callId, stored(report));
}

/**
 * One pass of the queue: claims the reports due (the claim pushes each one's next attempt back, so another process
 * does not take it while this one applies it) and applies them in the order they arrived. Resolves true when it
 * stopped at its batch, with more due.
 */
export async function applyDueReports(prisma: PrismaClient, log: Pick<Logger, 'warn' | 'error'>): Promise<boolean> {
  const claimed = await prisma.$queryRaw<{ id: number; call_id: number; report: StoredReport; attempts: number }[]>`
    UPDATE carrier_reports r
    SET attempts = r.attempts + 1,
        next_attempt_at = now() + make_interval(secs => ${CLAIM_LEASE_S})
    WHERE r.id IN (SELECT id FROM carrier_reports WHERE next_attempt_at <= now() ORDER BY id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
    RETURNING r.id, r.call_id, r.report, r.attempts`;
  for (const row of claimed.sort((a, b) => a.id - b.id)) {
    try {
      await apply(prisma, row.id, row.call_id, row.report);
    } catch (error) {
      // Call ids and states only: a report carries no caller data, but its call's row is the customer's.
      const fields = { callId: row.call_id, state: row.report.state, attempts: row.attempts, err: error };
      const retryMs = backoffMs(RETRY_SCHEDULE_MS, row.attempts, { afterLast: 'repeat_last' })!;
      await prisma.carrierReport.updateMany({ where: { id: row.id }, data: { nextAttemptAt: new Date(Date.now() + retryMs) } }).catch(() => {});
      if (row.attempts >= 10) log.error(fields, 'carrier report still not applied; retrying');
      else log.warn(fields, 'carrier report not applied; retrying');
    }
  }
  return claimed.length === BATCH;
}

export interface CarrierReportQueue {
  stop(): Promise<void>;
}

/** Every API process runs the queue: the rows are claimed, so processes share them. */
export function startCarrierReportQueue(prisma: PrismaClient, options: { logger: Logger; intervalMs?: number }): CarrierReportQueue {
  const log = options.logger;
  const loop = startJobLoop({
    intervalMs: options.intervalMs ?? 1000,
    unref: true,
    onError: (error) => log.warn({ err: error }, 'carrier reports not read; retrying'),
    pass: () => applyDueReports(prisma, log),
  });
  return { stop: async () => void (await loop.stop(10_000)) };
}
