import type { Db } from '../../prisma/client.js';
import { recordOutcomes, type ClaimedDelivery, type Outcome } from './delivery-queue.js';

export interface OutcomeWriter {
  /**
   * Records one attempt's outcome; resolves whether it was kept (the lease was still this worker's and the endpoint
   * still exists), rejects when the write failed.
   */
  record(job: ClaimedDelivery, outcome: Outcome): Promise<boolean>;
}

interface Pending {
  job: ClaimedDelivery;
  outcome: Outcome;
  resolve: (kept: boolean) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit of attempts' outcomes: one write at a time, and the outcomes that finish while it is under way wait for
 * the next, which takes them all in one statement. Under load one round trip serves many attempts; when idle an outcome
 * is written at once.
 */
export function createOutcomeWriter(db: Db): OutcomeWriter {
  let batch: Pending[] = [];
  let writing = false;

  async function flush(): Promise<void> {
    writing = true;
    while (batch.length > 0) {
      const items = batch;
      batch = [];
      try {
        const kept = await recordOutcomes(db, items);
        for (const item of items) item.resolve(kept.has(item.job.id));
      } catch (err) {
        for (const item of items) item.reject(err);
      }
    }
    writing = false;
  }

  return {
    record(job, outcome) {
      return new Promise((resolve, reject) => {
        batch.push({ job, outcome, resolve, reject });
        if (!writing) void flush();
      });
    },
  };
}
