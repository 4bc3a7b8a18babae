import crypto from 'node:crypto';
import type { Logger } from '../../lib/logger.js';
import type { Db, PrismaClient } from '../../prisma/client.js';
import type { Campaign as CampaignRow } from '../../prisma/generated/client.js';
import { startJobLoop } from '../../lib/jobs.js';
import { admitCalls, queueOutboundCall, TERMINAL } from '../calls/index.js';
import { recordEvent } from '../webhooks/index.js';
import { contactZones, nextOpening, type CallingWindow } from './calling-hours.js';
import { outcomeOf } from './progress.js';
import type { CampaignWriteIn, Outcome } from './schemas.js';

// Places the calls of running campaigns. Durable in Postgres, with no other moving part: any number of API processes
// run a tick every second or so, and each step is safe beside the others.
//
// - **Claim and queue are one transaction.** A contact that is due and inside its calling hours is moved to `dialling`
//   in the same transaction that queues its call (modules/calls/lifecycle.ts), so a process killed at any point either
//   did both or neither: the call is then dialled once by the outbound dialler, whichever process runs it.
// - **A campaign is paced under an advisory lock of its own** (tried, not waited for: a process that does not get it
//   leaves the campaign to the one that has it this tick), with everything counted from the database: its calls under
//   way, the calls it started in the last minute, and its organisation's calls under way against the organisation's
//   limit (`admitCall`) and the share of it campaigns may use.
// - **An attempt is settled from its call's final status**, looked for on every tick, so no callback or process has to
//   survive for a contact to move on: answered is done; busy, unanswered, voicemail and failed are retried after their
//   delay while the retry policy allows, else exhausted.
// - The circuit breaker, the schedule's start and end, and completion are decided on the same tick.

/** Namespace of the campaigns' advisory locks (their first key). */
const LOCK_NAMESPACE = 7_412;
/** Attempts settled per tick; the rest on the next. */
const SETTLE_BATCH = 500;
/** Contacts looked at per campaign per tick beyond its budget: some are outside their hours and only rescheduled. */
const LOOK_AHEAD = 4;

type Settings = Pick<CampaignWriteIn, 'schedule' | 'pacing' | 'retry' | 'voicemail' | 'circuit_breaker'>;
const settings = (row: CampaignRow): Settings => ({
  schedule: row.schedule as Settings['schedule'],
  pacing: row.pacing as Settings['pacing'],
  retry: row.retry as Settings['retry'],
  voicemail: row.voicemail as Settings['voicemail'],
  circuit_breaker: row.circuitBreaker as Settings['circuit_breaker'],
});

export interface TickReport {
  queued: number;
  settled: number;
}

/** Settles attempts whose call has ended: the contact is done, exhausted, or scheduled for its retry. Answers the campaigns touched. */
async function settleAttempts(prisma: PrismaClient, now: Date): Promise<{ count: number; campaigns: Set<number> }> {
  const ended = await prisma.$queryRaw<
    Array<{ campaign_id: number; contact_id: number; attempts: number; call_id: number; status: string; answered_by: string | null; retry: Settings['retry'] }>
  >`
    SELECT cc.campaign_id, cc.contact_id, cc.attempts, c.id AS call_id, c.status, c.answered_by, k.retry
    FROM campaign_contacts cc
    JOIN calls c ON c.id = cc.last_call_id
    JOIN campaigns k ON k.id = cc.campaign_id
    WHERE cc.state = 'dialling' AND c.status = ANY(${[...TERMINAL]}::text[])
    LIMIT ${SETTLE_BATCH}`;
  for (const row of ended) {
    const outcome = outcomeOf({ status: row.status, answeredBy: row.answered_by })!;
    const policy = outcome === 'answered' ? undefined : row.retry[outcome as Exclude<Outcome, 'answered'>];
    // A contact is called at most 1 + `attempts` times of the outcome its last call had.
    const retry = policy !== undefined && row.attempts - 1 < policy.attempts;
    const state = outcome === 'answered' ? 'done' : retry ? 'scheduled' : outcome === 'voicemail' ? 'done' : 'exhausted';
    await prisma.campaignContact.updateMany({
      where: { campaignId: row.campaign_id, contactId: row.contact_id, state: 'dialling', lastCallId: row.call_id },
      data: { state, lastOutcome: outcome, nextAttemptAt: retry ? new Date(now.getTime() + policy!.delay_minutes * 60_000) : null },
    });
  }
  return { count: ended.length, campaigns: new Set(ended.map((row) => row.campaign_id)) };
}

async function moveCampaign(db: Db, row: CampaignRow, from: string, to: string, reason: string | null, now: Date): Promise<boolean> {
  const moved = await db.campaign.updateMany({
    where: { id: row.id, state: from },
    data: {
      state: to,
      stateReason: reason,
      ...(to === 'running' && row.startedAt === null ? { startedAt: now } : {}),
      ...(to === 'completed' ? { completedAt: now } : {}),
    },
  });
  return moved.count > 0;
}

/** Starts scheduled campaigns whose start time has come. */
async function startDue(prisma: PrismaClient, now: Date): Promise<void> {
  const due = await prisma.campaign.findMany({ where: { state: 'scheduled' } });
  for (const row of due) {
    const startAt = settings(row).schedule.start_at;
    if (startAt !== null && Date.parse(startAt) > now.getTime()) continue;
    await prisma.$transaction(async (tx) => {
      if (await moveCampaign(tx, row, 'scheduled', 'running', null, now))
        await recordEvent(tx, row.organizationId, 'campaign.started', { campaign_id: row.id, state: 'running', resumed: false });
    });
  }
}

/** Ends a running campaign past its end date, or with nobody left to call; answers whether it ended. */
async function completeIfDone(prisma: PrismaClient, row: CampaignRow, now: Date): Promise<boolean> {
  const endAt = settings(row).schedule.end_at;
  const pastEnd = endAt !== null && Date.parse(endAt) <= now.getTime();
  if (!pastEnd) {
    // Whether anyone is left, not how many: one index entry read, however large the campaign.
    const left = await prisma.campaignContact.findFirst({
      where: { campaignId: row.id, state: { in: ['pending', 'scheduled', 'dialling'] } },
      select: { contactId: true },
    });
    if (left) return false;
  }
  return prisma.$transaction(async (tx) => {
    if (!(await moveCampaign(tx, row, 'running', 'completed', pastEnd ? 'end_at' : null, now))) return false;
    // Past its end date, nobody else is called; calls under way finish.
    if (pastEnd)
      await tx.campaignContact.updateMany({
        where: { campaignId: row.id, state: { in: ['pending', 'scheduled'] } },
        data: { state: 'skipped', nextAttemptAt: null },
      });
    await recordEvent(tx, row.organizationId, 'campaign.completed', {
      campaign_id: row.id,
      state: 'completed',
      reason: pastEnd ? 'end_at' : 'all_contacts_called',
    });
    return true;
  });
}

/** Pauses a campaign whose recent attempts mostly failed; answers whether it tripped. */
async function tripBreaker(prisma: PrismaClient, row: CampaignRow, now: Date): Promise<boolean> {
  const breaker = settings(row).circuit_breaker;
  if (!breaker.enabled) return false;
  // The latest attempts that have ended, read backwards along the (campaign, created_at) index.
  const recent = await prisma.call.findMany({
    where: { campaignId: row.id, organizationId: row.organizationId, endedAt: { not: null }, ...(row.startedAt ? { createdAt: { gte: row.startedAt } } : {}) },
    orderBy: { createdAt: 'desc' },
    take: breaker.min_attempts,
    select: { status: true },
  });
  if (recent.length < breaker.min_attempts) return false;
  const failures = recent.filter((c) => c.status === 'failed' || c.status === 'canceled').length;
  if (failures / recent.length < breaker.failure_ratio) return false;
  return prisma.$transaction(async (tx) => {
    if (!(await moveCampaign(tx, row, 'running', 'paused', 'circuit_breaker', now))) return false;
    await recordEvent(tx, row.organizationId, 'campaign.paused', {
      campaign_id: row.id,
      state: 'paused',
      reason: 'circuit_breaker',
      recent_attempts: recent.length,
      recent_failures: failures,
    });
    return true;
  });
}

/** The calling number of an attempt, among those still managed: the next in turn, or always the same one for a contact. */
function callingNumber(row: CampaignRow, numbers: readonly string[], contactId: number, turn: number): string {
  if (row.numberRotation === 'sticky') return numbers[crypto.createHash('sha1').update(String(contactId)).digest().readUInt32BE(0) % numbers.length]!;
  return numbers[turn % numbers.length]!;
}

/** Pauses a running campaign that cannot place calls any more, with the reason and its event. */
async function pauseFor(db: Db, row: CampaignRow, reason: string, now: Date): Promise<void> {
  if (await moveCampaign(db, row, 'running', 'paused', reason, now))
    await recordEvent(db, row.organizationId, 'campaign.paused', { campaign_id: row.id, state: 'paused', reason });
}

/** Queues the campaign's due contacts within its pacing; answers how many calls it queued. */
async function dialCampaign(prisma: PrismaClient, row: CampaignRow, now: Date, log: Logger): Promise<number> {
  const { schedule, pacing, voicemail } = settings(row);
  return prisma.$transaction(
    async (tx) => {
      const [{ locked }] = await tx.$queryRaw<[{ locked: boolean }]>`SELECT pg_try_advisory_xact_lock(${LOCK_NAMESPACE}::int, ${row.id}::int) AS locked`;
      if (!locked) return 0;
      // Read again under the lock: a pause or a PUT since the tick began applies now.
      const current = await tx.campaign.findUnique({ where: { id: row.id } });
      if (!current || current.state !== 'running') return 0;
      const org = await tx.organization.findUniqueOrThrow({ where: { id: row.organizationId }, select: { maxConcurrentCalls: true } });
      const [counts] = await tx.$queryRaw<[{ in_flight: number; last_minute: number; org_campaign_calls: number }]>`
        SELECT
          (SELECT count(*)::int FROM campaign_contacts WHERE campaign_id = ${row.id} AND state = 'dialling') AS in_flight,
          (SELECT count(*)::int FROM calls WHERE campaign_id = ${row.id} AND organization_id = ${row.organizationId} AND created_at > ${new Date(now.getTime() - 60_000)}) AS last_minute,
          (SELECT count(*)::int FROM calls WHERE organization_id = ${row.organizationId} AND campaign_id IS NOT NULL AND status IN ('queued', 'initiated', 'ringing', 'in_progress')) AS org_campaign_calls`;
      const live = settings(current);
      const share = Math.max(1, Math.floor(org.maxConcurrentCalls * live.pacing.org_share));
      let budget = Math.min(
        live.pacing.max_concurrent_calls - counts.in_flight,
        live.pacing.calls_per_minute - counts.last_minute,
        share - counts.org_campaign_calls,
      );
      if (budget <= 0) return 0;

      const due = await tx.$queryRaw<
        Array<{ contact_id: number; attempts: number; variables: Record<string, string>; phone_number: string | null; timezone: string | null }>
      >`
        SELECT cc.contact_id, cc.attempts, cc.variables, c.phone_number, c.timezone
        FROM campaign_contacts cc JOIN contacts c ON c.id = cc.contact_id
        WHERE cc.campaign_id = ${row.id} AND cc.state IN ('pending', 'scheduled') AND (cc.next_attempt_at IS NULL OR cc.next_attempt_at <= ${now})
        ORDER BY cc.next_attempt_at ASC NULLS FIRST, cc.contact_id
        LIMIT ${budget * LOOK_AHEAD}
        FOR UPDATE OF cc SKIP LOCKED`;
      const numbers = new Map(
        (
          await tx.phoneNumber.findMany({
            where: { organizationId: row.organizationId, number: { in: current.fromNumbers as string[] } },
            include: { connection: { select: { kind: true } } },
          })
        ).map((n) => [n.number, n]),
      );
      // Numbers deleted since the campaign was written drop out of the rotation; with none left, or no assistant,
      // nothing can be placed: the campaign pauses with the reason, for a person to fix and resume.
      const usable = (current.fromNumbers as string[]).filter((n) => numbers.has(n));
      if (current.assistantId === null || usable.length === 0) {
        await pauseFor(tx, current, current.assistantId === null ? 'assistant_deleted' : 'no_calling_number', now);
        return 0;
      }
      let queued = 0;
      let turn = current.dialCount;
      let admitted: number | undefined;
      for (const contact of due) {
        if (budget <= 0) break;
        const where = { campaignId: row.id, contactId: contact.contact_id };
        if (!contact.phone_number) {
          await tx.campaignContact.updateMany({ where, data: { state: 'skipped', nextAttemptAt: null } });
          continue;
        }
        const zones = await contactZones({ timezone: contact.timezone, phoneNumber: contact.phone_number }, live.schedule);
        const opening = nextOpening(now, zones, live.schedule.windows as CallingWindow[]);
        if (opening === null || opening.getTime() > now.getTime()) {
          // Outside the contact's hours: due again when they open (or never, with no window that ever opens).
          await tx.campaignContact.updateMany({
            where,
            data: opening === null ? { state: 'skipped', nextAttemptAt: null } : { state: 'scheduled', nextAttemptAt: opening },
          });
          continue;
        }
        const from = numbers.get(callingNumber(current, usable, contact.contact_id, turn))!;
        // The organisation's limit, counted once for the batch under its lock (held to the commit).
        admitted ??= await admitCalls(tx, row.organizationId, budget);
        if (admitted <= 0) break;
        admitted--;
        const carrier = from.connection.kind !== 'sip';
        const call = await queueOutboundCall(tx, {
          organizationId: row.organizationId,
          assistantId: current.assistantId!,
          contactId: contact.contact_id,
          phoneNumberId: from.id,
          fromNumber: from.number,
          toNumber: contact.phone_number,
          welcomeMessage: null,
          variables: { ...(current.variables as Record<string, string>), ...contact.variables },
          idempotencyKey: null,
          idempotencyHash: null,
          transport: carrier ? 'media_stream' : 'sip',
          detectVoicemail: voicemail.detect && carrier,
          campaignId: row.id,
          campaignAttempt: contact.attempts + 1,
          // On the tick's clock, which the per-minute pacing counts on.
          createdAt: now,
        });
        await tx.campaignContact.updateMany({ where, data: { state: 'dialling', attempts: { increment: 1 }, lastCallId: call.id, nextAttemptAt: null } });
        turn++;
        queued++;
        budget--;
      }
      if (queued > 0) await tx.campaign.update({ where: { id: row.id }, data: { dialCount: turn } });
      return queued;
    },
    { timeout: 30_000, maxWait: 10_000 },
  );
}

/** One pass over every campaign: settle, start, trip, complete, dial. `now` is the clock the schedule is read on. */
export async function campaignTick(prisma: PrismaClient, log: Logger, now = new Date()): Promise<TickReport> {
  const settled = await settleAttempts(prisma, now);
  await startDue(prisma, now);
  let queued = 0;
  for (const row of await prisma.campaign.findMany({ where: { state: 'running' }, orderBy: { id: 'asc' } })) {
    // The breaker looks again only when new outcomes came in.
    if ((settled.campaigns.has(row.id) && (await tripBreaker(prisma, row, now))) || (await completeIfDone(prisma, row, now))) continue;
    queued += await dialCampaign(prisma, row, now, log);
  }
  return { queued, settled: settled.count };
}

export interface CampaignDispatcher {
  wake(): void;
  stop(): Promise<void>;
}

export function startCampaignDispatcher(
  prisma: PrismaClient,
  options: { logger: Logger; intervalMs?: number | undefined; onQueued?: () => void },
): CampaignDispatcher {
  const log = options.logger;
  const loop = startJobLoop({
    intervalMs: options.intervalMs ?? 1000,
    unref: true,
    onError: (error) => log.warn({ err: error }, 'campaign tick failed; retrying'),
    pass: async () => {
      const report = await campaignTick(prisma, log);
      if (report.queued > 0) options.onQueued?.();
    },
  });
  return { wake: () => loop.wake(), stop: async () => void (await loop.stop(30_000)) };
}
