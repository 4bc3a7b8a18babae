import type { Logger } from '../../lib/logger.js';
import { startJobLoop } from '../../lib/jobs.js';
import type { PrismaClient } from '../../prisma/client.js';

// The folder of the rollups (migration `call_rollups_folded`): the transaction that ends a call appends its deltas to
// two pending tables, and this moves them into `call_rollups` and `call_rollup_histograms` in batches, summed by row,
// so that no call's end waits on the hour's shared rows. Every API process runs it; the database's advisory lock lets
// one fold at a time, and the others find the work done. Charts read the pending deltas too, so they are exact
// whatever the lag; the lag only decides how many deltas each chart adds up itself (docs/analytics.md).

/** Deltas moved per table in one transaction: a pass that leaves more goes again at once. */
export const FOLD_BATCH = 5_000;
/** Every second: the lag between a call's end and its fold, when the folder keeps up. */
export const FOLD_INTERVAL_MS = 1_000;

/**
 * One fold: moves up to `batch` of each table's committed deltas, oldest first, into the rollups. Returns how many it
 * moved, or null when another process was folding at that moment.
 */
export async function foldPendingRollups(prisma: PrismaClient, batch = FOLD_BATCH): Promise<number | null> {
  const [row] = await prisma.$queryRaw<[{ folded: number }]>`SELECT call_rollups_fold(${batch}::int) AS folded`;
  return row.folded < 0 ? null : row.folded;
}

export interface RollupFolder {
  stop(): Promise<void>;
}

/** Folds every `intervalMs`, and again at once while a pass filled its batch. */
export function startRollupFolder(prisma: PrismaClient, options: { logger: Logger; intervalMs?: number; batch?: number }): RollupFolder {
  const batch = options.batch ?? FOLD_BATCH;
  const loop = startJobLoop({
    intervalMs: options.intervalMs ?? FOLD_INTERVAL_MS,
    unref: true,
    onError: (error, l) => {
      if (!l.stopping) options.logger.warn({ err: error }, 'rollups not folded; the next pass tries again');
    },
    // A full batch in either table means more are waiting: go again without the interval.
    pass: async () => ((await foldPendingRollups(prisma, batch)) ?? 0) >= batch,
  });
  return { stop: async () => void (await loop.stop(10_000)) };
}
