import type { Db, PrismaClient } from '../../prisma/client.js';
import type { RecordingEntry, TranscriptEntry } from './events.js';
import type { CallRow } from './lifecycle.js';
import type { ToolMessageKind, TurnDecision, TurnRetrieval } from './schemas.js';
import { IN_PROGRESS } from './statuses.js';

// What the runtime reads and writes on a call besides its status (which only lifecycle.ts moves): the call and its
// contact at the start, the heartbeat while it runs, each transcript turn as it is spoken.

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
 * the contacts model's generated types; a contact that is gone reads as no contact.
 */
export async function loadContactFields(prisma: Db, organizationId: number, contactId: number | null): Promise<Record<string, unknown> | null> {
  if (contactId === null) return null;
  const rows = await prisma.$queryRawUnsafe<Array<Record<string, unknown>>>(
    'SELECT * FROM "contacts" WHERE "id" = $1 AND "organization_id" = $2',
    contactId,
    organizationId,
  );
  const row = rows[0];
  if (!row) return null;
  const { id: _id, organization_id: _org, created_at: _c, updated_at: _u, ...fields } = row;
  return fields;
}

/** Renews the call's heartbeat: the process running it is alive. Answers whether the call is still in progress here. */
export async function touchCallHeartbeat(prisma: PrismaClient, callId: number, at: Date): Promise<boolean> {
  const touched = await prisma.call.updateMany({ where: { id: callId, status: IN_PROGRESS }, data: { heartbeatAt: at } });
  return touched.count > 0;
}

/**
 * Stores one transcript turn as soon as it is spoken, so a call whose process dies keeps what was said. The end of the
 * call writes every turn again; the (call, position) key makes each write land once.
 */
/**
 * Stores a turn at its position, or replaces the turn there: the rest of a turn the caller was cut off in makes the
 * part stored before it the whole turn.
 */
export async function appendCallTurn(prisma: PrismaClient, callId: number, position: number, turn: StoredTurn): Promise<void> {
  const row = turnRow(callId, position, turn);
  const { callId: _c, position: _p, ...update } = row;
  await prisma.callTurn.upsert({ where: { callId_position: { callId, position } }, create: row, update });
}

/** A transcript turn as its `call_turns` row; `position` is its place in the call. */
export function turnRow(callId: number, position: number, t: StoredTurn) {
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
    turnDecision: (t.turn_decision ?? undefined) as object | undefined,
    retrieval: (t.retrieval ?? undefined) as object | undefined,
    toolMessage: t.tool_message ?? null,
    language: t.language ?? null,
    // The latency stages again as columns: analytics computes percentiles over them without reading the JSON.
    endOfUtteranceDelayMs: t.metrics?.end_of_utterance_delay_ms ?? null,
    llmTtftMs: t.metrics?.llm_ttft_ms ?? null,
    ttsTtfbMs: t.metrics?.tts_ttfb_ms ?? null,
    e2eLatencyMs: t.metrics?.e2e_latency_ms ?? null,
  };
}

export interface StoredTurn extends TranscriptEntry {
  metrics: Record<string, number> | null;
  /** Assistant turns: why the caller's turn before it ended when it did. */
  turn_decision?: TurnDecision | null;
  /** Assistant turns: what the knowledge base gave the reply. */
  retrieval?: TurnRetrieval | null;
  /** Assistant turns that are a tool's spoken message, not a reply: which one. */
  tool_message?: ToolMessageKind | null;
}

export interface StoredRecording extends RecordingEntry {
  storageKey: string;
}
