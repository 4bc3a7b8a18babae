import pino from 'pino';
import pg from 'pg';
import { describe, expect } from 'vitest';
import { foldPendingRollups, runChartQuery, startRollupFolder } from '../../modules/analytics/index.js';
import { ChartQuery } from '../../modules/analytics/schemas.js';
import { bootstrap } from '../../modules/organizations/bootstrap.js';
import type { PrismaClient } from '../../prisma/client.js';
import { dbTest as it } from '../helpers/fixtures.js';
import { foldAllRollups } from '../helpers/rollups.js';
import { until } from '../helpers/until.js';

// Ended calls reach the charts' rollups behind a watermark: the transaction that ends a call only appends its deltas,
// and the folder moves every committed delta up to the highest it sees into the rollups, in batches, one folder at a
// time. Charts read the deltas not yet folded as well, so their figures are the same before and after each fold.

let orgs = 0;
async function organization(prisma: PrismaClient): Promise<number> {
  orgs += 1;
  return (await bootstrap(prisma, { organizationName: `Fold ${orgs}`, email: `fold${orgs}-${Date.now()}@example.com` })).organization_id;
}

/** A call that ends now (queued, then completed with `ms` of talk), as a call's end writes it. */
async function endedCall(prisma: PrismaClient, organizationId: number, ms: number, n: number) {
  const call = await prisma.call.create({
    data: {
      callSid: `CAfold${organizationId}x${n}`,
      organizationId,
      direction: 'inbound',
      status: 'in_progress',
      createdAt: new Date('2026-10-10T10:15:00Z'),
      startedAt: new Date('2026-10-10T10:15:01Z'),
    },
  });
  return prisma.call.update({ where: { id: call.id }, data: { status: 'completed', endReason: 'customer_hangup', durationMs: ms } });
}

const chart = (prisma: PrismaClient, organizationId: number, metric: 'minutes' | 'duration_seconds', aggregation?: 'p50') =>
  runChartQuery(
    prisma,
    organizationId,
    ChartQuery.parse({ period: { from: '2026-10-10', to: '2026-10-11' }, metric, ...(aggregation ? { aggregation } : {}) }),
  );

const pendingOf = async (prisma: PrismaClient, organizationId: number) => ({
  rollups: await prisma.callRollupPending.count({ where: { organizationId } }),
  histograms: await prisma.callRollupHistogramPending.count({ where: { organizationId } }),
});
const foldedCalls = async (prisma: PrismaClient, organizationId: number) =>
  (await prisma.callRollup.aggregate({ where: { organizationId }, _sum: { calls: true } }))._sum.calls ?? 0;

describe('the rollups behind a watermark', () => {
  it('take a call’s end as pending deltas, answer charts exactly before the fold, and hold them in the rollups after it', async ({ db }) => {
    const org = await organization(db.prisma);
    await endedCall(db.prisma, org, 60_000, 1);
    await endedCall(db.prisma, org, 120_000, 2);
    const pending = await pendingOf(db.prisma, org);
    expect(pending.rollups).toBe(2);
    expect(pending.histograms).toBeGreaterThanOrEqual(4);
    const before = {
      minutes: (await chart(db.prisma, org, 'minutes')).totals.value,
      p50: (await chart(db.prisma, org, 'duration_seconds', 'p50')).totals.value,
    };
    expect(before.minutes).toBe(3);

    await foldAllRollups(db.prisma);
    expect(await pendingOf(db.prisma, org)).toEqual({ rollups: 0, histograms: 0 });
    expect(await foldedCalls(db.prisma, org)).toBe(2);
    const after = {
      minutes: (await chart(db.prisma, org, 'minutes')).totals.value,
      p50: (await chart(db.prisma, org, 'duration_seconds', 'p50')).totals.value,
    };
    expect(after).toEqual(before);
  });

  it('fold at most a batch of each table per pass, oldest first, and the rest on the next', async ({ db }) => {
    const org = await organization(db.prisma);
    await foldAllRollups(db.prisma);
    for (let n = 1; n <= 3; n++) await endedCall(db.prisma, org, 30_000 * n, n);
    const total = (await chart(db.prisma, org, 'minutes')).totals.value;
    const folded = await until(() => foldPendingRollups(db.prisma, 2).then((moved) => moved !== null && moved));
    // Two rollup deltas and two histogram entries.
    expect(folded).toBe(4);
    expect((await pendingOf(db.prisma, org)).rollups).toBe(1);
    expect(await foldedCalls(db.prisma, org)).toBe(2);
    expect((await chart(db.prisma, org, 'minutes')).totals.value).toBe(total);
    await foldAllRollups(db.prisma);
    expect(await foldedCalls(db.prisma, org)).toBe(3);
    expect((await chart(db.prisma, org, 'minutes')).totals.value).toBe(total);
  });

  it('let one folder at a time work: another finds the lock taken and moves nothing', async ({ db }) => {
    const org = await organization(db.prisma);
    await endedCall(db.prisma, org, 45_000, 1);
    const other = new pg.Client({ connectionString: db.url });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query(`SELECT pg_advisory_xact_lock(hashtext('call_rollups_fold'))`);
      expect(await foldPendingRollups(db.prisma)).toBeNull();
      expect((await pendingOf(db.prisma, org)).rollups).toBe(1);
      await other.query('COMMIT');
    } finally {
      await other.end();
    }
    await foldAllRollups(db.prisma);
    expect(await foldedCalls(db.prisma, org)).toBe(1);
  });

  it('lose no call whose end commits after a later one was folded past it', async ({ db }) => {
    const org = await organization(db.prisma);
    const slow = await db.prisma.call.create({
      data: { callSid: `CAslow${org}`, organizationId: org, direction: 'inbound', status: 'in_progress', createdAt: new Date('2026-10-10T10:20:00Z') },
    });
    let commit!: () => void;
    const held = new Promise<void>((resolve) => (commit = resolve));
    let ended!: () => void;
    const appended = new Promise<void>((resolve) => (ended = resolve));
    // This call's end takes the lower sequence number and commits last.
    const slowEnd = db.prisma
      .$transaction(async (tx) => {
        await tx.call.update({ where: { id: slow.id }, data: { status: 'completed', endReason: 'customer_hangup', durationMs: 600_000 } });
        ended();
        await held;
      })
      .then(() => undefined);
    await appended;
    await endedCall(db.prisma, org, 60_000, 1);
    await foldAllRollupsVisible(db.prisma);
    expect(await foldedCalls(db.prisma, org)).toBe(1);
    commit();
    await slowEnd;
    expect((await chart(db.prisma, org, 'minutes')).totals.value).toBe(11);
    await foldAllRollups(db.prisma);
    expect(await foldedCalls(db.prisma, org)).toBe(2);
    expect((await chart(db.prisma, org, 'minutes')).totals.value).toBe(11);
  });

  it('drop the pending deltas of an organisation deleted with its calls', async ({ db }) => {
    const org = await organization(db.prisma);
    await endedCall(db.prisma, org, 60_000, 1);
    await db.prisma.organization.delete({ where: { id: org } });
    await foldAllRollups(db.prisma);
    expect(await db.prisma.callRollup.count({ where: { organizationId: org } })).toBe(0);
    expect(await db.prisma.callRollupHistogram.count({ where: { organizationId: org } })).toBe(0);
  });

  it('are folded by the running folder on its own, every interval', async ({ db }) => {
    const org = await organization(db.prisma);
    const folder = startRollupFolder(db.prisma, { logger: pino({ level: 'silent' }), intervalMs: 50 });
    try {
      await endedCall(db.prisma, org, 90_000, 1);
      await until(async () => (await foldedCalls(db.prisma, org)) === 1);
      expect(await pendingOf(db.prisma, org)).toEqual({ rollups: 0, histograms: 0 });
    } finally {
      await folder.stop();
    }
  });
});

/** Folds until a pass moves nothing: what is committed is folded, an uncommitted end stays pending. */
async function foldAllRollupsVisible(prisma: PrismaClient): Promise<void> {
  await until(async () => (await foldPendingRollups(prisma)) === 0);
}
