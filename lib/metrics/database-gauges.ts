import { Gauge } from 'prom-client';
import { registry } from './registry.js';

// What waits in the database, read when the endpoint is scraped: the work every process shares, so each process reports
// the same figures (a dashboard takes the max across instances, not the sum). One query per scrape.

/** The database the queues are read from: the process's Prisma client fits (lib/ does not import prisma/). */
export interface QueueDatabase {
  $queryRawUnsafe<T = unknown>(query: string): PromiseLike<T>;
}

interface Queues {
  prisma: QueueDatabase;
}

let source: Queues | undefined;

const webhookBacklog = new Gauge({
  name: 'voice_webhook_backlog',
  help: 'Webhook deliveries owed (pending, due now or later).',
  registers: [registry],
  collect: () => readQueues(),
});
const webhookOldest = new Gauge({
  name: 'voice_webhook_oldest_pending_age_seconds',
  help: 'Age of the oldest webhook delivery still owed; 0 when none is.',
  registers: [registry],
  collect: () => readQueues(),
});
const jobsQueued = new Gauge({
  name: 'voice_jobs_queued',
  help: 'Background work queued in the database, by kind: webhook deliveries, documents to process, test runs, campaign contacts to dial, calls to dial.',
  labelNames: ['kind'] as const,
  registers: [registry],
  collect: () => readQueues(),
});
const rollupLag = new Gauge({
  name: 'voice_rollup_fold_lag_seconds',
  help: "Age of the oldest ended call's rollup delta not yet folded into the charts' rollups; 0 when none waits.",
  registers: [registry],
  collect: () => readQueues(),
});
const collectErrors = new Gauge({
  name: 'voice_metrics_database_up',
  help: '1 when the last scrape read the queues from the database, 0 when it could not.',
  registers: [registry],
  collect: () => readQueues(),
});

/** Reports the database's queues on this process's endpoint (the last database opened wins). */
export function reportDatabaseQueues(prisma: QueueDatabase): () => void {
  const mine = { prisma };
  source = mine;
  return () => {
    if (source === mine) source = undefined;
  };
}

let reading: Promise<void> | undefined;

/**
 * One read of the queues for every gauge of a scrape: the registry collects its metrics at once, and each gauge must
 * wait for the same read instead of reporting what the previous scrape found.
 */
function readQueues(): Promise<void> {
  reading ??= collectOnce().finally(() => (reading = undefined));
  return reading;
}

/** Every queue in one statement: one round trip per scrape. A constant: nothing of a request reaches it. */
const QUEUES_SQL = `SELECT
  (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending') AS webhooks,
  (SELECT extract(epoch FROM now() - min(created_at))::float8 FROM webhook_deliveries WHERE status = 'pending') AS oldest_s,
  (SELECT count(*) FROM documents WHERE status IN ('pending', 'processing')) AS documents,
  (SELECT count(*) FROM test_runs WHERE status IN ('queued', 'running')) AS test_runs,
  (SELECT count(*) FROM campaign_contacts WHERE state = 'pending') AS contacts,
  (SELECT count(*) FROM calls WHERE status = 'queued') AS calls,
  (SELECT count(*) FROM call_rollup_pending) AS rollup_deltas,
  (SELECT extract(epoch FROM now() - min(queued_at))::float8 FROM call_rollup_pending) AS rollup_lag_s`;

type Row = {
  webhooks: bigint;
  oldest_s: number | null;
  documents: bigint;
  test_runs: bigint;
  contacts: bigint;
  calls: bigint;
  rollup_deltas: bigint;
  rollup_lag_s: number | null;
};

async function collectOnce(): Promise<void> {
  if (!source) return;
  try {
    const [row] = await source.prisma.$queryRawUnsafe<Row[]>(QUEUES_SQL);
    if (!row) return;
    webhookBacklog.set(Number(row.webhooks));
    webhookOldest.set(row.oldest_s ?? 0);
    jobsQueued.set({ kind: 'webhook_delivery' }, Number(row.webhooks));
    jobsQueued.set({ kind: 'document' }, Number(row.documents));
    jobsQueued.set({ kind: 'test_run' }, Number(row.test_runs));
    jobsQueued.set({ kind: 'campaign_contact' }, Number(row.contacts));
    jobsQueued.set({ kind: 'outbound_call' }, Number(row.calls));
    jobsQueued.set({ kind: 'rollup_delta' }, Number(row.rollup_deltas));
    rollupLag.set(Math.max(row.rollup_lag_s ?? 0, 0));
    collectErrors.set(1);
  } catch {
    collectErrors.set(0);
  }
}
