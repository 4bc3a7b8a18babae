import type { PrismaClient } from '../../prisma/client.js';
import { callEndedPayload, callStartedPayload, type RecordingEntry, type TranscriptEntry } from './events.js';
import { recordEvent } from '../webhooks/events.js';

// The call row through its life in the runtime: claimed when the pipeline starts (`in_progress`, `call.started`),
// finished exactly once (`completed` or `failed`, `call.completed`, and `call.failed` for a failure), each state change
// in one transaction with its event.

export type CallRow = NonNullable<Awaited<ReturnType<PrismaClient['call']['findUnique']>>>;

/** States a call can be in before its pipeline runs. */
const STARTABLE = ['queued', 'ringing', 'initiated'];

export class CallNotRunnableError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'CallNotRunnableError';
  }
}

export async function findCall(prisma: PrismaClient, key: { callId?: number | undefined; callSid?: string | undefined }): Promise<CallRow> {
  const call =
    key.callId !== undefined
      ? await prisma.call.findUnique({ where: { id: key.callId } })
      : key.callSid !== undefined
        ? await prisma.call.findUnique({ where: { callSid: key.callSid } })
        : null;
  if (!call) throw new CallNotRunnableError('call not found');
  return call;
}

/**
 * The contact's fields and custom fields for `{{contact.*}}`. Read with plain SQL so the runtime does not depend on
 * the contacts model's generated types; an absent table or row reads as no contact.
 */
export async function loadContactFields(prisma: PrismaClient, organizationId: number, contactId: number | null): Promise<Record<string, unknown> | null> {
  if (contactId === null) return null;
  try {
    const rows = await prisma.$queryRawUnsafe<Array<Record<string, unknown>>>(
      'SELECT * FROM "contacts" WHERE "id" = $1 AND "organization_id" = $2',
      contactId,
      organizationId,
    );
    const row = rows[0];
    if (!row) return null;
    const { id: _id, organization_id: _org, created_at: _c, updated_at: _u, ...fields } = row;
    return fields;
  } catch (error) {
    if ((error as { code?: string; meta?: { code?: string } }).meta?.code === '42P01' || String(error).includes('42P01')) return null;
    throw error;
  }
}

export async function markCallStarted(prisma: PrismaClient, call: CallRow, startedAt: Date): Promise<CallRow> {
  return prisma.$transaction(async (tx) => {
    const claimed = await tx.call.updateMany({ where: { id: call.id, status: { in: STARTABLE } }, data: { status: 'in_progress', startedAt, heartbeatAt: startedAt } });
    if (claimed.count === 0) throw new CallNotRunnableError(`call is ${call.status}`);
    const updated = await tx.call.findUniqueOrThrow({ where: { id: call.id } });
    await recordEvent(tx, updated.organizationId, 'call.started', { ...callStartedPayload(updated) });
    return updated;
  });
}

/** Renews the call's heartbeat: the process running it is alive. Answers whether the call is still in progress here. */
export async function touchCallHeartbeat(prisma: PrismaClient, callId: number, at: Date): Promise<boolean> {
  const touched = await prisma.call.updateMany({ where: { id: callId, status: 'in_progress' }, data: { heartbeatAt: at } });
  return touched.count > 0;
}

/**
 * Stores one transcript turn as soon as it is spoken, so a call whose process dies keeps what was said. The end of the
 * call writes every turn again; the (call, position) key makes each write land once.
 */
export async function appendCallTurn(prisma: PrismaClient, callId: number, position: number, turn: StoredTurn): Promise<void> {
  await prisma.callTurn.createMany({ data: [turnRow(callId, position, turn)], skipDuplicates: true });
}

function turnRow(callId: number, position: number, t: StoredTurn) {
  return {
    callId,
    position,
    role: t.role,
    text: t.text,
    startMs: t.start_ms,
    endMs: t.end_ms,
    interrupted: t.interrupted,
    metrics: (t.metrics ?? undefined) as object | undefined,
    toolCalls: (t.tool_calls ?? undefined) as object | undefined,
  };
}

export interface StoredTurn extends TranscriptEntry {
  metrics: Record<string, number> | null;
}

export interface StoredRecording extends RecordingEntry {
  storageKey: string;
}

export interface CallFinish {
  status: 'completed' | 'failed';
  endReason: string;
  endedAt: Date;
  summary: string | null;
  outcomes: Record<string, unknown> | null;
  analysisError: string | null;
  missingVariables: string[];
  metrics: Record<string, unknown> | null;
  turns: StoredTurn[];
  recordings: StoredRecording[];
}

/**
 * Ends the call once: a call that is no longer `in_progress` (already finished by another path) is left alone and
 * `false` comes back, so `call.completed` is never written twice.
 */
export async function finishCall(prisma: PrismaClient, call: CallRow, finish: CallFinish): Promise<boolean> {
  const startedAt = call.startedAt ?? finish.endedAt;
  const durationMs = Math.max(finish.endedAt.getTime() - startedAt.getTime(), 0);
  return prisma.$transaction(async (tx) => {
    const ended = await tx.call.updateMany({
      where: { id: call.id, status: 'in_progress' },
      data: {
        status: finish.status,
        endReason: finish.endReason,
        endedAt: finish.endedAt,
        durationMs,
        summary: finish.summary,
        outcomes: (finish.outcomes ?? undefined) as object | undefined,
        analysisError: finish.analysisError,
        missingVariables: finish.missingVariables,
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
        data: finish.recordings.map((r) => ({ callId: call.id, track: r.track, format: r.format, storageKey: r.storageKey, durationMs: r.duration_ms, sizeBytes: r.size_bytes })),
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
