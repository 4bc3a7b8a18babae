import { foldPendingRollups } from '../../modules/analytics/index.js';
import type { PrismaClient } from '../../prisma/client.js';
import { until } from './until.js';

/**
 * Folds every pending rollup delta of the database into the rollups, as the API's folder does each second: for a test
 * that reads the rollup tables themselves. Another process's folder may hold the fold's lock for a moment (the pass
 * then folds nothing); it is tried until nothing is pending.
 */
export async function foldAllRollups(prisma: PrismaClient): Promise<void> {
  await until(async () => {
    await foldPendingRollups(prisma);
    return (await prisma.callRollupPending.count()) + (await prisma.callRollupHistogramPending.count()) === 0;
  });
}
