import { isDeepStrictEqual } from 'node:util';
import type { Db, PrismaClient } from '../../prisma/client.js';
import type { Campaign as CampaignRow } from '../../prisma/generated/client.js';
import { AppError, notFound, ValidationFailed, type ValidationDetail } from '../../lib/errors.js';
import { recordEvent } from '../webhooks/index.js';
import { campaignProgress } from './progress.js';
import type { CampaignOut, CampaignState, CampaignWriteIn } from './schemas.js';

// Campaigns as the API sees them: written whole (create, PUT), read with their progress, and moved between states
// only by the transitions here. Every read and write is filtered by the organisation.
//
//   draft ──start──▶ scheduled ─(start_at)─▶ running ◀──resume── paused
//                                              │  ──pause──────────▶ │
//                                              └──(nothing left, or end_at)──▶ completed
//   draft | scheduled | running | paused ──cancel──▶ cancelled

/** Where each request may move a campaign from, and to. */
const TRANSITIONS = {
  start: ['draft'],
  pause: ['scheduled', 'running'],
  resume: ['paused'],
  cancel: ['draft', 'scheduled', 'running', 'paused'],
} as const satisfies Record<string, readonly CampaignState[]>;
export type CampaignAction = keyof typeof TRANSITIONS;

/** A running campaign may change its schedule and pacing; what it calls, and with what, stays as started. */
const LIVE_EDITABLE = ['schedule', 'pacing'] as const;

function settingsOf(input: CampaignWriteIn) {
  return {
    name: input.name,
    assistantId: input.assistant_id,
    fromNumbers: input.from_numbers,
    numberRotation: input.number_rotation,
    schedule: input.schedule,
    pacing: input.pacing,
    retry: input.retry,
    voicemail: input.voicemail,
    circuitBreaker: input.circuit_breaker,
    variables: input.variables,
  };
}

/** The settings as written, from the row (the assistant may be gone since: null). */
function writtenOf(row: CampaignRow): Omit<CampaignWriteIn, 'assistant_id'> & { assistant_id: number | null } {
  return {
    name: row.name,
    assistant_id: row.assistantId,
    from_numbers: row.fromNumbers as string[],
    number_rotation: row.numberRotation as 'round_robin' | 'sticky',
    schedule: row.schedule as CampaignWriteIn['schedule'],
    pacing: row.pacing as CampaignWriteIn['pacing'],
    retry: row.retry as CampaignWriteIn['retry'],
    voicemail: row.voicemail as CampaignWriteIn['voicemail'],
    circuit_breaker: row.circuitBreaker as CampaignWriteIn['circuit_breaker'],
    variables: row.variables as Record<string, string>,
  };
}

export async function campaignToApi(db: Db, row: CampaignRow, now = new Date()): Promise<CampaignOut> {
  return {
    id: row.id,
    ...writtenOf(row),
    state: row.state as CampaignState,
    state_reason: row.stateReason,
    progress: await campaignProgress(db, row, now),
    started_at: row.startedAt?.toISOString() ?? null,
    completed_at: row.completedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The assistant and the calling numbers must be the organisation's own: another's read exactly like none. */
async function checkReferences(db: Db, organizationId: number, input: CampaignWriteIn): Promise<void> {
  const issues: ValidationDetail[] = [];
  const assistant = await db.assistant.findFirst({ where: { id: input.assistant_id, organizationId }, select: { id: true } });
  if (!assistant) issues.push({ loc: ['body', 'assistant_id'], msg: 'No such assistant', type: 'not_found' });
  const managed = new Set(
    (await db.phoneNumber.findMany({ where: { organizationId, number: { in: input.from_numbers } }, select: { number: true } })).map((n) => n.number),
  );
  input.from_numbers.forEach((number, i) => {
    if (!managed.has(number))
      issues.push({ loc: ['body', 'from_numbers', i], msg: "Value is not one of the organisation's managed numbers", type: 'not_managed_number' });
  });
  if (issues.length > 0) throw new ValidationFailed(issues);
}

export async function createCampaign(db: Db, organizationId: number, input: CampaignWriteIn): Promise<CampaignOut> {
  await checkReferences(db, organizationId, input);
  const row = await db.campaign.create({ data: { organizationId, ...settingsOf(input) } });
  return campaignToApi(db, row);
}

async function readRow(db: Db, organizationId: number, id: number): Promise<CampaignRow> {
  const row = await db.campaign.findFirst({ where: { id, organizationId } });
  if (!row) throw notFound('Campaign');
  return row;
}

export async function getCampaign(db: Db, organizationId: number, id: number, now = new Date()): Promise<CampaignOut> {
  return campaignToApi(db, await readRow(db, organizationId, id), now);
}

export async function listCampaigns(db: Db, organizationId: number, states: CampaignState[] | undefined, page: number, perPage: number) {
  const where = { organizationId, ...(states?.length ? { state: { in: states } } : {}) };
  const [rows, total] = await Promise.all([
    db.campaign.findMany({ where, orderBy: { id: 'desc' }, skip: (page - 1) * perPage, take: perPage }),
    db.campaign.count({ where }),
  ]);
  const now = new Date();
  return { data: await Promise.all(rows.map((row) => campaignToApi(db, row, now))), total };
}

function stateConflict(row: { id: number; state: string }, what: string): AppError {
  return new AppError('invalid_state', `Campaign ${row.id} is ${row.state}: it cannot ${what}`, { state: row.state });
}

/** Stored JSONB orders keys its own way: settings are compared as values. */
const same = (a: unknown, b: unknown) => isDeepStrictEqual(a, b);

/**
 * Replaces the campaign's settings. A draft, scheduled or paused campaign takes any change; a running one only new
 * schedule and pacing, which its dispatcher reads on its next tick, so they apply without a restart. A finished one
 * takes none.
 */
export async function replaceCampaign(db: PrismaClient, organizationId: number, id: number, input: CampaignWriteIn): Promise<CampaignOut> {
  const row = await readRow(db, organizationId, id);
  if (row.state === 'completed' || row.state === 'cancelled') throw stateConflict(row, 'be changed');
  await checkReferences(db, organizationId, input);
  const next = settingsOf(input);
  if (row.state === 'running') {
    const current = writtenOf(row);
    const frozen = (Object.keys(input) as Array<keyof CampaignWriteIn>).filter(
      (k) => !same(input[k], current[k]) && !(LIVE_EDITABLE as readonly string[]).includes(k),
    );
    if (frozen.length > 0) {
      throw new AppError('invalid_state', `Campaign ${row.id} is running: only its schedule and pacing can change while it runs; pause it to change the rest`, {
        state: row.state,
        fields: frozen,
      });
    }
  }
  // Compare-and-set on the state read: a campaign that moved meanwhile is read again by the client.
  const updated = await db.campaign.updateMany({ where: { id, organizationId, state: row.state }, data: next });
  if (updated.count === 0) throw stateConflict(await readRow(db, organizationId, id), 'be changed now');
  return getCampaign(db, organizationId, id);
}

export async function deleteCampaign(db: Db, organizationId: number, id: number): Promise<void> {
  const row = await readRow(db, organizationId, id);
  if (row.state !== 'draft') throw stateConflict(row, 'be deleted (only a draft can; cancel it instead)');
  const deleted = await db.campaign.deleteMany({ where: { id, organizationId, state: 'draft' } });
  if (deleted.count === 0) throw stateConflict(await readRow(db, organizationId, id), 'be deleted');
}

const VERB: Record<CampaignAction, string> = { start: 'be started', pause: 'be paused', resume: 'be resumed', cancel: 'be cancelled' };

/** Moves the campaign as asked, with its event in the same transaction; 409 naming the state it is in otherwise. */
export async function transitionCampaign(
  prisma: PrismaClient,
  organizationId: number,
  id: number,
  action: CampaignAction,
  now = new Date(),
): Promise<CampaignOut> {
  const row = await readRow(prisma, organizationId, id);
  if (!(TRANSITIONS[action] as readonly string[]).includes(row.state)) throw stateConflict(row, VERB[action]);
  if (action === 'start') {
    const contacts = await prisma.campaignContact.count({ where: { campaignId: id } });
    if (contacts === 0) throw new AppError('campaign_empty', `Campaign ${id} has no contacts: add some with POST /api/campaigns/${id}/contacts`);
    if (row.assistantId === null) throw new AppError('assistant_required', `Campaign ${id} has no assistant: its assistant was deleted; set another with PUT`);
  }
  const startAt = (row.schedule as { start_at: string | null }).start_at;
  const waits = startAt !== null && Date.parse(startAt) > now.getTime();
  const to: CampaignState = action === 'pause' ? 'paused' : action === 'cancel' ? 'cancelled' : waits ? 'scheduled' : 'running';
  await prisma.$transaction(async (tx) => {
    const moved = await tx.campaign.updateMany({
      where: { id, organizationId, state: row.state },
      data: {
        state: to,
        stateReason: null,
        ...(to === 'running' && row.startedAt === null ? { startedAt: now } : {}),
        ...(to === 'cancelled' ? { completedAt: now } : {}),
      },
    });
    if (moved.count === 0) throw stateConflict(await readRow(tx, organizationId, id), VERB[action]);
    if (to === 'cancelled') {
      // Calls under way finish; nobody else is called.
      await tx.campaignContact.updateMany({
        where: { campaignId: id, state: { in: ['pending', 'scheduled'] } },
        data: { state: 'skipped', nextAttemptAt: null },
      });
    }
    if (to === 'running') await recordEvent(tx, organizationId, 'campaign.started', { campaign_id: id, state: to, resumed: action === 'resume' });
    if (to === 'paused') await recordEvent(tx, organizationId, 'campaign.paused', { campaign_id: id, state: to, reason: 'requested' });
    if (to === 'cancelled') await recordEvent(tx, organizationId, 'campaign.completed', { campaign_id: id, state: to, reason: 'cancelled' });
  });
  return getCampaign(prisma, organizationId, id);
}
