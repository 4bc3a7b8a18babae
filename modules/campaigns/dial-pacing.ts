import type { Db } from '../../prisma/client.js';
import type { DialGate } from '../calls/index.js';

// A campaign's `calls_per_minute` held where the dial leaves the service. The dispatcher paces what it queues, but
// queued calls wait for a dialler slot, and several processes dial: calls queued over two minutes can go out in one.
// So the dialler's claim counts the campaign's dials claimed in the last 60 s on the database's clock, under a lock of
// the campaign's held to the claim's commit: two processes claiming for one campaign take turns, and any 60 s window
// holds at most `calls_per_minute` dials.

/** Advisory-lock namespace of a campaign's dial claims (the dispatcher's own lock is 7412; the organisation's 7411). */
const DIAL_LOCK_NAMESPACE = 7_413;

export const campaignDialPacing: DialGate = {
  async full(tx: Db): Promise<number[]> {
    const rows = await tx.$queryRaw<{ id: number }[]>`
      SELECT k.id FROM campaigns k
      WHERE EXISTS (SELECT 1 FROM calls q WHERE q.campaign_id = k.id AND q.status = 'queued')
        AND (SELECT count(*) FROM calls d WHERE d.campaign_id = k.id AND d.dial_claimed_at > clock_timestamp() - interval '60 seconds')
            >= (k.pacing->>'calls_per_minute')::int`;
    return rows.map((r) => r.id);
  },

  async admit(tx: Db, campaignId: number): Promise<boolean> {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${DIAL_LOCK_NAMESPACE}::int, ${campaignId}::int)`;
    // Counted after the lock: every claim committed before it is seen, on the clock as it is now.
    const [row] = await tx.$queryRaw<{ admitted: boolean }[]>`
      SELECT (SELECT count(*) FROM calls WHERE campaign_id = ${campaignId} AND dial_claimed_at > clock_timestamp() - interval '60 seconds')
             < COALESCE((SELECT (pacing->>'calls_per_minute')::int FROM campaigns WHERE id = ${campaignId}), 2147483647) AS admitted`;
    return row?.admitted ?? true;
  },
};
