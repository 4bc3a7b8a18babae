import crypto from 'node:crypto';
import type { Db, Prisma, PrismaClient } from '../../prisma/client.js';
import type { Call } from '../../prisma/generated/client.js';
import { normalizePhone } from '../../lib/phone.js';
import { recordEvent } from '../webhooks/index.js';
import { callEndedPayload, callStartedPayload } from './events.js';
import type { CollectedValuesRecord } from './schemas.js';
import type { PrivacyMode } from './privacy.js';
import { IN_PROGRESS, NOT_STARTED, type FinishedEnd, type UnstartedEnd } from './statuses.js';
import { CallNotRunnableError, turnRow, type StoredRecording, type StoredTurn } from './store.js';
import { callUsage, countTurns, priceUsage, usageColumns, NO_MODEL_USAGE, type ModelUsage } from './usage.js';
import { loadPriceOverrides } from './price-table.js';
import { currentTraceParent } from '../../lib/tracing/index.js';

// Where a call changes state. Every call row is created here and every status change is made here, each a
// compare-and-set on the statuses it moves from: processes racing for one call (two sweeps, a sweep and a dialler, a
// hang-up and a recovery) move it once, and a call in a terminal status is never moved again. The event that goes with
// a change (`call.started`, `call.completed`, `call.failed`) is written in the change's transaction.
//
//   queueOutboundCall       new row → queued
//   openWebCall             new row → queued
//   openInboundCall         new row → ringing
//   claimNextOutboundCall   queued → initiated
//   requeueUnsentDial       initiated → queued (the carrier never received the dial)
//   markCallRinging         initiated → ringing
//   markCallStarted         queued | initiated | ringing → in_progress
//   endUnstartedCall        queued | initiated | ringing → failed | busy | no_answer | voicemail | canceled
//   finishCall              in_progress → completed | failed

export type CallRow = Call;

/** A call's public id: `CA` and 32 hex digits, the shape carriers use for theirs, unguessable. */
export function newCallSid(): string {
  return `CA${crypto.randomBytes(16).toString('hex')}`;
}

/** The LiveKit room a call runs in, named after the call, so the room of any call can be found from its sid. */
export function roomOfCall(callSid: string): string {
  return `call-${callSid}`;
}

export interface OutboundCallRequest {
  organizationId: number;
  assistantId: number;
  contactId: number | null;
  phoneNumberId: number;
  fromNumber: string;
  toNumber: string;
  welcomeMessage: string | null;
  variables: Record<string, string>;
  idempotencyKey: string | null;
  idempotencyHash: string | null;
}

/** What dials an outbound call: LiveKit SIP (`sip`), or a carrier's REST API with its Media Streams (`media_stream`). */
export type OutboundTransport = 'sip' | 'media_stream';

/** An outbound call, queued for the dialler of any API process (modules/telephony/dialler.ts). */
export async function queueOutboundCall(
  prisma: Db,
  request: OutboundCallRequest & { transport?: OutboundTransport; detectVoicemail?: boolean; campaignId?: number; campaignAttempt?: number; createdAt?: Date },
): Promise<CallRow> {
  return prisma.call.create({
    data: { callSid: newCallSid(), transport: 'sip', ...request, direction: 'outbound', status: 'queued', traceParent: currentTraceParent() },
  });
}

export interface WebCallRequest {
  organizationId: number;
  assistantId: number;
  /** `web`: a LiveKit room the browser joins with a token; `browser`: the built-in call page. */
  transport: 'web' | 'browser';
  welcomeMessage: string | null;
  variables: Record<string, string>;
  /** Runs the assistant's draft, when it has one, instead of its current version: a test call from the builder. */
  assistantDraft?: boolean;
  /** The website widget key whose button started the call (modules/widgets/). */
  widgetKeyId?: number;
}

/**
 * A call from a browser, queued until the browser joins it; a LiveKit web call is named its room at once. A
 * transaction may pass its client: a widget's call is created under the lock its concurrency count was taken under.
 */
export async function openWebCall(prisma: Db, request: WebCallRequest): Promise<CallRow> {
  const callSid = newCallSid();
  const livekitRoom = request.transport === 'web' ? roomOfCall(callSid) : null;
  return prisma.call.create({ data: { callSid, ...request, livekitRoom, direction: 'inbound', status: 'queued', traceParent: currentTraceParent() } });
}

export interface InboundCallRequest {
  /** The managed number called, as the carrier gives it. */
  toNumber: string;
  /** The caller's number; withheld numbers arrive empty or as "anonymous". */
  fromNumber: string | null;
  transport: 'sip' | 'media_stream';
  providerCallSid?: string | null;
  livekitRoom?: string | null;
}

export type InboundCallResult = { call: CallRow } | { rejected: 'unknown_number' | 'no_assistant' };

/**
 * An inbound call, whatever carried it (LiveKit SIP, a carrier's Media Streams), ringing until its conversation starts:
 * the managed number it arrived on names the organisation and the assistant, the caller becomes a contact.
 */
export async function openInboundCall(prisma: PrismaClient, request: InboundCallRequest): Promise<InboundCallResult> {
  const to = normalizePhone(request.toNumber, 'US')?.e164 ?? request.toNumber;
  const number = await prisma.phoneNumber.findUnique({ where: { number: to }, include: { organization: { select: { defaultRegion: true } } } });
  if (!number) return { rejected: 'unknown_number' };
  if (number.assistantId === null) return { rejected: 'no_assistant' };

  const caller = await recordCaller(prisma, number.organizationId, number.organization.defaultRegion, request.fromNumber);
  const call = await prisma.call.create({
    data: {
      callSid: newCallSid(),
      organizationId: number.organizationId,
      assistantId: number.assistantId,
      contactId: caller?.contactId ?? null,
      phoneNumberId: number.id,
      direction: 'inbound',
      transport: request.transport,
      status: 'ringing',
      fromNumber: caller?.phone ?? request.fromNumber ?? null,
      toNumber: number.number,
      providerCallSid: request.providerCallSid ?? null,
      livekitRoom: request.livekitRoom ?? null,
      traceParent: currentTraceParent(),
    },
  });
  return { call };
}

/**
 * The organisation's contact for an inbound caller, created on the number's first call (spec behaviour 4: a call
 * creates the person, a sync only adds their name) and marked seen on every call; null when the number is withheld or
 * is no number. A national number is read in `region`, the organisation's, as its contacts are. `seenAt` defaults to
 * the database's clock.
 */
export async function recordCaller(
  db: Db,
  organizationId: number,
  region: string,
  callerNumber: string | null,
  seenAt?: Date,
): Promise<{ contactId: number; phone: string } | null> {
  const phone = callerNumber ? normalizePhone(callerNumber, region)?.e164 : undefined;
  if (!phone) return null;
  // One statement on the (organization_id, phone_number) unique index: calls from a new number at once make one
  // contact. Racing calls commit in any order, and GREATEST keeps `last_seen_at` from going back to the earlier one.
  const rows = await db.$queryRaw<{ id: number }[]>`
    INSERT INTO contacts (organization_id, phone_number, source, custom_fields, last_seen_at, created_at, updated_at)
    VALUES (${organizationId}, ${phone}, 'inbound_call', '{}'::jsonb, COALESCE(${seenAt ?? null}::timestamptz, now()), now(), now())
    ON CONFLICT (organization_id, phone_number) DO UPDATE SET last_seen_at = GREATEST(contacts.last_seen_at, EXCLUDED.last_seen_at)
    RETURNING id`;
  return { contactId: rows[0]!.id, phone };
}

/**
 * A limit on how fast some queued calls may be dialled, kept by another capability (a campaign's calls per minute,
 * modules/campaigns/dial-pacing.ts). The claim asks it inside its own transaction.
 */
export interface DialGate {
  /** The keys (campaign ids) at their limit now: their calls are passed over, so others behind them are not held up. */
  full(tx: Db): Promise<number[]>;
  /** Whether one more call of this key may be dialled now; holds the key's lock to the end of the transaction. */
  admit(tx: Db, campaignId: number): Promise<boolean>;
}

/**
 * Queued calls looked at per claim, oldest first: enough to get past those other diallers are claiming at the same
 * moment, and those of a campaign that filled up since `full` was read.
 */
const CLAIM_CANDIDATES = 16;

export async function claimNextOutboundCall(prisma: PrismaClient, transports: readonly OutboundTransport[] = ['sip'], gate?: DialGate): Promise<number | null> {
  if (transports.length === 0) return null;
  return prisma.$transaction(async (tx) => {
    const full = gate ? await gate.full(tx) : [];
    const candidates = await tx.$queryRaw<{ id: number; call_sid: string; transport: string; campaign_id: number | null }[]>`
      SELECT id, call_sid, transport, campaign_id FROM calls
      WHERE status = 'queued' AND direction = 'outbound' AND transport = ANY(${[...transports]}::text[])
        AND (campaign_id IS NULL OR NOT (campaign_id = ANY(${full}::int[])))
      ORDER BY id LIMIT ${CLAIM_CANDIDATES}`;
    for (const next of candidates) {
      // One row locked at a time, skipped when another dialler holds it: claimers at the same moment each get their own.
      const [locked] = await tx.$queryRaw<{ id: number }[]>`SELECT id FROM calls WHERE id = ${next.id} AND status = 'queued' FOR UPDATE SKIP LOCKED`;
      if (!locked) continue;
      if (gate && next.campaign_id !== null && !(await gate.admit(tx, next.campaign_id))) continue;
      // A LiveKit dial runs in a room named after the call; a carrier's call has no room.
      const room = next.transport === 'sip' ? roomOfCall(next.call_sid) : null;
      // One statement; the claim is stamped on the database's clock read now (not at the transaction's start), which
      // is what a gate counts claims on.
      await tx.$executeRaw`
        UPDATE calls SET status = 'initiated', dial_requested_at = NULL, livekit_room = COALESCE(${room}::text, livekit_room),
          dial_claimed_at = clock_timestamp(), updated_at = now()
        WHERE id = ${next.id} AND status = 'queued'`;
      return next.id;
    }
    return null;
  });
}

/**
 * A claimed dial the carrier never received goes back to the queue (`initiated` → `queued`), for any dialler to send
 * again; false when the call had moved on, or the carrier has its id. `guard` narrows it as the caller saw the call.
 */
export async function requeueUnsentDial(prisma: PrismaClient, callId: number, guard: Prisma.CallWhereInput = {}): Promise<boolean> {
  const moved = await prisma.call.updateMany({
    where: { AND: [guard, { id: callId, status: 'initiated', providerCallSid: null }] },
    data: { status: 'queued', dialRequestedAt: null },
  });
  return moved.count > 0;
}

/** The dial rings the callee (`initiated` → `ringing`); false when the call had moved on. */
export async function markCallRinging(prisma: PrismaClient, callId: number): Promise<boolean> {
  const moved = await prisma.call.updateMany({ where: { id: callId, status: 'initiated' }, data: { status: 'ringing' } });
  return moved.count > 0;
}

/** The conversation starts (any status before the start → `in_progress`, `call.started`); throws if it cannot. */
export async function markCallStarted(
  prisma: PrismaClient,
  call: CallRow,
  startedAt: Date,
  /** The version of its assistant the call runs, and whether it is the draft made on that version. */
  assistant?: { version: number; draft: boolean } | null,
  /** The privacy mode the call runs under (privacy.ts), recorded so its readers know what was kept. */
  privacyMode?: PrivacyMode,
): Promise<CallRow> {
  return prisma.$transaction(async (tx) => {
    const claimed = await tx.call.updateMany({
      where: { id: call.id, status: { in: [...NOT_STARTED] } },
      data: {
        status: IN_PROGRESS,
        startedAt,
        heartbeatAt: startedAt,
        ...(assistant && { assistantVersion: assistant.version, assistantDraft: assistant.draft }),
        ...(privacyMode && { privacyMode }),
      },
    });
    if (claimed.count === 0) throw new CallNotRunnableError(`call is ${call.status}`);
    const updated = await tx.call.findUniqueOrThrow({ where: { id: call.id } });
    await recordEvent(tx, updated.organizationId, 'call.started', { ...callStartedPayload(updated) });
    return updated;
  });
}

/**
 * Ends a call whose conversation never started: the callee was busy or did not answer, dialling failed, the dial was
 * lost with its process, or nothing ever connected to the call (unstarted.ts). It writes `call.completed` (and
 * `call.failed` for a failure), the events a finished conversation writes. Answers false when the call had already
 * moved on (it started, or another path ended it): nothing is written. `guard` narrows the compare-and-set further: a
 * sweep passes the condition that made the call stale, so a call that moved on in between (a dialler claimed it) is
 * left alone.
 */
export async function endUnstartedCall(
  prisma: PrismaClient,
  callId: number,
  status: UnstartedEnd,
  endReason: string,
  at = new Date(),
  guard: Prisma.CallWhereInput = {},
): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    const ended = await tx.call.updateMany({
      where: { AND: [guard, { id: callId, status: { in: [...NOT_STARTED] } }] },
      data: { status, endReason, endedAt: at, durationMs: 0 },
    });
    if (ended.count === 0) return false;
    const call = await tx.call.findUniqueOrThrow({ where: { id: callId } });
    const payload = callEndedPayload(call, [], []);
    await recordEvent(tx, call.organizationId, 'call.completed', { ...payload });
    if (status === 'failed') await recordEvent(tx, call.organizationId, 'call.failed', { ...payload });
    return true;
  });
}

export interface CallFinish {
  status: FinishedEnd;
  endReason: string;
  endedAt: Date;
  summary: string | null;
  outcomes: Record<string, unknown> | null;
  analysisError: string | null;
  missingVariables: string[];
  /** By playbook name: the values saved and the required ones missing (modules/playbooks/collect.ts). */
  collectedValues?: CollectedValuesRecord | null;
  metrics: Record<string, unknown> | null;
  turns: StoredTurn[];
  recordings: StoredRecording[];
  /** What the call's models used (agent/call/usage.ts); none when nobody metered them (a recovered call). */
  modelUsage?: ModelUsage;
}

/**
 * Ends a conversation once (`in_progress` → `completed` or `failed`), with its record, turns, recordings and
 * `call.completed` (and `call.failed` for a failure). A call no longer `in_progress` (another path finished it) is
 * left alone and false comes back, so `call.completed` is never written twice.
 */
export async function finishCall(prisma: PrismaClient, call: CallRow, finish: CallFinish): Promise<boolean> {
  const startedAt = call.startedAt ?? finish.endedAt;
  const durationMs = Math.max(finish.endedAt.getTime() - startedAt.getTime(), 0);
  // Priced with the organisation's table as it stands when the call ends; a later change leaves this cost alone.
  const usage = callUsage(finish.modelUsage ?? NO_MODEL_USAGE, durationMs, call.transport);
  const cost = priceUsage(usage, await loadPriceOverrides(prisma, call.organizationId));
  return prisma.$transaction(async (tx) => {
    const ended = await tx.call.updateMany({
      where: { id: call.id, status: IN_PROGRESS },
      data: {
        ...usageColumns(usage, cost, countTurns(finish.turns)),
        status: finish.status,
        endReason: finish.endReason,
        endedAt: finish.endedAt,
        durationMs,
        summary: finish.summary,
        outcomes: (finish.outcomes ?? undefined) as object | undefined,
        analysisError: finish.analysisError,
        missingVariables: finish.missingVariables,
        collectedValues: (finish.collectedValues ?? undefined) as object | undefined,
        metrics: (finish.metrics ?? undefined) as object | undefined,
      },
    });
    if (ended.count === 0) return false;
    if (finish.turns.length > 0) {
      // Turns stored while the call ran are already there; the rest (a write that failed mid-call) land now.
      await tx.callTurn.createMany({ data: finish.turns.map((t, position) => turnRow(call.id, position, t)), skipDuplicates: true });
    }
    if (finish.recordings.length > 0) {
      await tx.callRecording.createMany({
        data: finish.recordings.map((r) => ({
          callId: call.id,
          track: r.track,
          format: r.format,
          storageKey: r.storageKey,
          durationMs: r.duration_ms,
          sizeBytes: r.size_bytes,
        })),
      });
    }
    const updated = await tx.call.findUniqueOrThrow({ where: { id: call.id } });
    const payload = callEndedPayload(
      updated,
      finish.turns.map(({ metrics: _m, ...entry }) => entry),
      finish.recordings.map(({ storageKey: _k, ...entry }) => entry),
    );
    await recordEvent(tx, updated.organizationId, 'call.completed', { ...payload });
    if (finish.status === 'failed') await recordEvent(tx, updated.organizationId, 'call.failed', { ...payload });
    return true;
  });
}
