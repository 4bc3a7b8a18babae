import type { PrismaClient } from '../../prisma/client.js';
import type { RecordingStorage } from '../../media/recording/storage.js';
import { startJobLoop, type JobLoop } from '../../lib/jobs.js';
import type { Logger } from '../../lib/logger.js';
import { expireCallData, RETENTION_BATCH } from '../calls/index.js';

// The retention job: each organisation's recordings and transcripts deleted once its windows
// (`recording_retention_days`, `transcript_retention_days`) have passed since the call ended. Any number of processes
// may run it: each call is claimed by the state it is in (its `*_deleted_at` still unset), in a transaction of its own.

const DAY_MS = 86_400_000;
/** An hour between passes: a window is counted in days, so a deletion is never more than an hour late. */
export const RETENTION_INTERVAL_MS = 3_600_000;

/** Deletes what is past every organisation's windows at `now`; answers how many calls were handled. */
export async function applyRetention(prisma: PrismaClient, storage: RecordingStorage, now: Date): Promise<number> {
  const organizations = await prisma.organization.findMany({
    where: { OR: [{ recordingRetentionDays: { not: null } }, { transcriptRetentionDays: { not: null } }] },
    select: { id: true, recordingRetentionDays: true, transcriptRetentionDays: true },
  });
  const before = (days: number | null) => (days === null ? null : new Date(now.getTime() - days * DAY_MS));
  let handled = 0;
  for (const org of organizations) {
    const expiry = {
      organizationId: org.id,
      recordingsEndedBefore: before(org.recordingRetentionDays),
      transcriptsEndedBefore: before(org.transcriptRetentionDays),
    };
    for (let batch = RETENTION_BATCH; batch === RETENTION_BATCH;) {
      batch = await expireCallData(prisma, storage, expiry, now);
      handled += batch;
    }
  }
  return handled;
}

export function startRetentionJob(prisma: PrismaClient, storage: RecordingStorage, options: { logger: Logger; intervalMs?: number }): JobLoop {
  return startJobLoop({
    intervalMs: options.intervalMs ?? RETENTION_INTERVAL_MS,
    unref: true,
    pass: async () => {
      const handled = await applyRetention(prisma, storage, new Date());
      if (handled > 0) options.logger.info({ calls: handled }, 'recordings and transcripts past their retention deleted');
    },
    onError: (err, loop) => {
      if (!loop.stopping) options.logger.warn({ err }, 'retention pass failed; the next one tries again');
    },
  });
}
