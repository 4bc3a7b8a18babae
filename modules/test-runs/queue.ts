import crypto from 'node:crypto';
import type { Db, PrismaClient } from '../../prisma/client.js';
import type { Prisma } from '../../prisma/generated/client.js';
import { recordEvent } from '../webhooks/index.js';
import { testRunEventPayload } from './events.js';
import type { RepetitionOut, TestRunCreateIn, TotalsOut } from './schemas.js';

// Test runs as durable jobs. A queued run is claimed by one agent worker with FOR UPDATE SKIP LOCKED and leased: the
// worker renews the lease while it runs, and every write it makes is fenced by the lease token, so a worker that
// stopped renewing (killed, hung, cut off from the database) cannot overwrite what the worker that took the run over
// writes. A run whose lease ran out is claimed again, up to MAX_ATTEMPTS times; then it fails with the reason.

/** NOTIFY channel that wakes the workers when a run is queued. */
export const TEST_RUN_NOTIFY_CHANNEL = 'test_runs';
/** NOTIFY channel that tells the worker running a run (payload: its id) that it was cancelled. */
export const TEST_RUN_CANCEL_CHANNEL = 'test_run_cancelled';
/**
 * A run is taken up at most 3 times: a worker that dies twice on the same run is more likely killed by the run (its
 * memory, its tools) than by chance, and a third try settles it.
 */
export const MAX_ATTEMPTS = 3;
export const EXHAUSTED_ERROR = `the run was interrupted ${MAX_ATTEMPTS} times (its worker stopped before finishing it)`;

export interface ClaimedRun {
  id: number;
  organizationId: number;
  assistantId: number | null;
  playbookId: number | null;
  request: TestRunCreateIn;
  /** Repetitions a previous holder finished: the run resumes after them. */
  results: RepetitionOut[];
  attempt: number;
  leaseToken: string;
}

interface ClaimRow {
  id: number;
  organization_id: number;
  assistant_id: number | null;
  playbook_id: number | null;
  request: unknown;
  results: unknown;
  attempts: number;
}

/**
 * Claims a run that is queued, or running under a lease that ran out, and leases it for `leaseMs`. Organisations take
 * turns: the run picked is the oldest of the organisations with the fewest runs under way, so one that queued a hundred
 * runs does not hold every worker while another's single run waits behind them.
 */
export async function claimTestRun(db: Db, leaseMs: number): Promise<ClaimedRun | null> {
  const token = crypto.randomUUID();
  const rows = await db.$queryRaw<ClaimRow[]>`
    WITH picked AS (
      SELECT t.id FROM test_runs t
      WHERE t.status = 'queued' OR (t.status = 'running' AND t.lease_expires_at < now() AND t.attempts < ${MAX_ATTEMPTS})
      ORDER BY (SELECT count(*) FROM test_runs r WHERE r.organization_id = t.organization_id AND r.status = 'running' AND r.lease_expires_at >= now()),
               t.created_at, t.id
      LIMIT 1
      FOR UPDATE OF t SKIP LOCKED
    )
    UPDATE test_runs t
    SET status = 'running',
        attempts = t.attempts + 1,
        lease_token = ${token},
        lease_expires_at = now() + ${leaseMs} * interval '1 millisecond',
        started_at = coalesce(t.started_at, now()),
        updated_at = now()
    FROM picked
    WHERE t.id = picked.id
    RETURNING t.id, t.organization_id, t.assistant_id, t.playbook_id, t.request, t.results, t.attempts`;
  const row = rows[0];
  if (!row) return null;
  return {
    id: row.id,
    organizationId: row.organization_id,
    assistantId: row.assistant_id,
    playbookId: row.playbook_id,
    request: row.request as TestRunCreateIn,
    results: (row.results ?? []) as RepetitionOut[],
    attempt: row.attempts,
    leaseToken: token,
  };
}

/** Extends the lease; false when the run is no longer this holder's (cancelled, or taken over after the lease ran out). */
export async function renewLease(db: Db, run: Pick<ClaimedRun, 'id' | 'leaseToken'>, leaseMs: number): Promise<boolean> {
  const count = await db.$executeRaw`
    UPDATE test_runs SET lease_expires_at = now() + ${leaseMs} * interval '1 millisecond', updated_at = now()
    WHERE id = ${run.id} AND lease_token = ${run.leaseToken} AND status = 'running'`;
  return count === 1;
}

/** Stores the repetitions finished so far, so the run's progress shows and a take-over resumes after them. */
export async function saveProgress(db: Db, run: Pick<ClaimedRun, 'id' | 'leaseToken'>, results: RepetitionOut[]): Promise<boolean> {
  const count = await db.$executeRaw`
    UPDATE test_runs SET results = ${JSON.stringify(results)}::jsonb, updated_at = now()
    WHERE id = ${run.id} AND lease_token = ${run.leaseToken} AND status = 'running'`;
  return count === 1;
}

export type RunOutcome =
  | { status: 'completed'; results: RepetitionOut[]; passRate: number; totals: TotalsOut }
  | { status: 'failed'; results: RepetitionOut[]; error: string; totals: TotalsOut | null };

/**
 * Writes the run's end and its `test_run.completed` event in one transaction, only while this holder has the run:
 * false when it was cancelled or taken over meanwhile (nothing is written then).
 */
export async function finishTestRun(
  prisma: PrismaClient,
  run: Pick<ClaimedRun, 'id' | 'leaseToken' | 'organizationId'>,
  outcome: RunOutcome,
): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    const { count } = await tx.testRun.updateMany({
      where: { id: run.id, leaseToken: run.leaseToken, status: 'running' },
      data: {
        status: outcome.status,
        results: outcome.results as unknown as Prisma.InputJsonValue,
        passRate: outcome.status === 'completed' ? outcome.passRate : null,
        usage: (outcome.totals ?? undefined) as unknown as Prisma.InputJsonValue | undefined,
        error: outcome.status === 'failed' ? outcome.error : null,
        completedAt: new Date(),
        leaseToken: null,
        leaseExpiresAt: null,
      },
    });
    if (count !== 1) return false;
    const row = await tx.testRun.findUniqueOrThrow({ where: { id: run.id } });
    await recordEvent(tx, run.organizationId, 'test_run.completed', testRunEventPayload(row));
    return true;
  });
}

/**
 * Fails the runs whose lease ran out after their last allowed attempt, each with its event; answers how many. Runs in
 * every worker's pass: whichever sees such a run first settles it.
 */
export async function failExhaustedRuns(prisma: PrismaClient): Promise<number> {
  return prisma.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ id: number; organization_id: number }[]>`
      WITH picked AS (
        SELECT id FROM test_runs
        WHERE status = 'running' AND lease_expires_at < now() AND attempts >= ${MAX_ATTEMPTS}
        LIMIT 20
        FOR UPDATE SKIP LOCKED
      )
      UPDATE test_runs t
      SET status = 'failed', error = ${EXHAUSTED_ERROR}, completed_at = now(), lease_token = NULL, lease_expires_at = NULL, updated_at = now()
      FROM picked WHERE t.id = picked.id
      RETURNING t.id, t.organization_id`;
    for (const row of rows) {
      const run = await tx.testRun.findUniqueOrThrow({ where: { id: row.id } });
      await recordEvent(tx, row.organization_id, 'test_run.completed', testRunEventPayload(run));
    }
    return rows.length;
  });
}

/**
 * Hands a run back to the queue from a worker that is stopping (not dying): another worker takes it at once and
 * resumes after the repetitions stored, and the interrupted attempt is not counted against the run.
 */
export async function releaseTestRun(db: Db, run: Pick<ClaimedRun, 'id' | 'leaseToken'>): Promise<boolean> {
  const count = await db.$executeRaw`
    UPDATE test_runs
    SET status = 'queued', attempts = greatest(attempts - 1, 0), lease_token = NULL, lease_expires_at = NULL, updated_at = now()
    WHERE id = ${run.id} AND lease_token = ${run.leaseToken} AND status = 'running'`;
  if (count === 1) await db.$executeRaw`SELECT pg_notify(${TEST_RUN_NOTIFY_CHANNEL}, ${String(run.id)})`;
  return count === 1;
}
