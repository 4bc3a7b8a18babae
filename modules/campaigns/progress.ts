import type { Db } from '../../prisma/client.js';
import type { Campaign as CampaignRow } from '../../prisma/generated/client.js';
import type { CampaignProgressOut, Outcome } from './schemas.js';

// A campaign's progress, counted from its rows: contacts by state (a contact being called is `dialling` until its call
// is answered, then `in_call`), attempts by outcome, when the next window opens, and an estimate of the end at the
// pace of the last hour. Three indexed aggregate queries, whatever the campaign's size.

/** How an attempt ended, from its call's final status and the carrier's answering-machine verdict. */
export function outcomeOf(call: { status: string; answeredBy: string | null }): Outcome | null {
  switch (call.status) {
    case 'completed':
      return call.answeredBy?.startsWith('machine') || call.answeredBy === 'fax' ? 'voicemail' : 'answered';
    case 'voicemail':
      return 'voicemail';
    case 'busy':
      return 'busy';
    case 'no_answer':
      return 'no_answer';
    case 'failed':
    case 'canceled':
      return 'failed';
    default:
      return null;
  }
}

export async function campaignProgress(db: Db, campaign: CampaignRow, now: Date): Promise<CampaignProgressOut> {
  const [states, calls, recent] = await Promise.all([
    db.$queryRaw<Array<{ state: string; answered: boolean; n: number; next: Date | null }>>`
      SELECT cc.state, COALESCE(c.status = 'in_progress', false) AS answered, count(*)::int AS n, min(cc.next_attempt_at) AS next
      FROM campaign_contacts cc LEFT JOIN calls c ON c.id = cc.last_call_id AND cc.state = 'dialling'
      WHERE cc.campaign_id = ${campaign.id}
      GROUP BY 1, 2`,
    db.$queryRaw<Array<{ status: string; answered_by: string | null; n: number }>>`
      SELECT status, answered_by, count(*)::int AS n FROM calls WHERE campaign_id = ${campaign.id} AND organization_id = ${campaign.organizationId} GROUP BY 1, 2`,
    db.$queryRaw<Array<{ status: string; n: number }>>`
      SELECT status, count(*)::int AS n FROM (
        SELECT status FROM calls
        WHERE campaign_id = ${campaign.id} AND organization_id = ${campaign.organizationId} AND ended_at IS NOT NULL
        ORDER BY created_at DESC LIMIT ${(campaign.circuitBreaker as { min_attempts: number }).min_attempts}
      ) r GROUP BY 1`,
  ]);
  const contacts = { total: 0, pending: 0, scheduled: 0, dialling: 0, in_call: 0, done: 0, exhausted: 0, skipped: 0 };
  let nextWindow: Date | null = null;
  for (const row of states) {
    const key = row.state === 'dialling' && row.answered ? 'in_call' : (row.state as keyof typeof contacts);
    if (key in contacts) contacts[key] += row.n;
    contacts.total += row.n;
    if (row.state === 'scheduled' && row.next && (!nextWindow || row.next < nextWindow)) nextWindow = row.next;
  }
  const outcomes: Record<Outcome, number> = { answered: 0, voicemail: 0, no_answer: 0, busy: 0, failed: 0 };
  let attempts = 0;
  for (const row of calls) {
    attempts += row.n;
    const outcome = outcomeOf({ status: row.status, answeredBy: row.answered_by });
    if (outcome) outcomes[outcome] += row.n;
  }
  const recentAttempts = recent.reduce((sum, r) => sum + r.n, 0);
  const recentFailures = recent.filter((r) => r.status === 'failed' || r.status === 'canceled').reduce((sum, r) => sum + r.n, 0);

  // The pace of the last hour: attempts that ended in it, against what remains (each contact left needs one at least).
  const remaining = contacts.pending + contacts.scheduled + contacts.dialling + contacts.in_call;
  let eta: string | null = null;
  if (remaining > 0 && campaign.state === 'running') {
    const [{ n: lastHour } = { n: 0 }] = await db.$queryRaw<Array<{ n: number }>>`
      SELECT count(*)::int AS n FROM calls WHERE campaign_id = ${campaign.id} AND organization_id = ${campaign.organizationId} AND ended_at > ${new Date(now.getTime() - 3_600_000)}`;
    if (lastHour > 0) eta = new Date(now.getTime() + (remaining / lastHour) * 3_600_000).toISOString();
  }
  return {
    contacts,
    outcomes,
    attempts,
    calls_in_flight: contacts.dialling + contacts.in_call,
    next_window_opens_at: nextWindow && nextWindow > now ? nextWindow.toISOString() : nextWindow ? now.toISOString() : null,
    estimated_completion_at: eta,
    circuit_breaker: {
      state: campaign.stateReason === 'circuit_breaker' && campaign.state === 'paused' ? 'open' : 'closed',
      recent_attempts: recentAttempts,
      recent_failures: recentFailures,
    },
  };
}
