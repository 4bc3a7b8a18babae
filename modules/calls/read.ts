import type { Db } from '../../prisma/client.js';
import type { Prisma } from '../../prisma/client.js';
import { notFound } from '../../lib/errors.js';
import { privacyModeOf } from './privacy.js';
import type { CallFilters, CallStartLookupResult, CollectedValuesRecord, ToolMessageKind, TurnDecision, TurnRetrieval } from './schemas.js';
import type { CallRow } from './lifecycle.js';
import type { CallCost, CallUsage } from './usage-schemas.js';

// Reading calls back. Every query is filtered by the organisation: another organisation's call is "not found".

type RecordingRow = { track: string; format: string; durationMs: number; sizeBytes: number };

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** The call record as the API returns it (docs/calls.md). */
export function callRecord(call: CallRow, recordings: RecordingRow[] = []) {
  const base = `/api/calls/${call.callSid}`;
  return {
    call_sid: call.callSid,
    status: call.status as never,
    direction: call.direction as never,
    transport: call.transport as never,
    from_number: call.fromNumber,
    to_number: call.toNumber,
    assistant_id: call.assistantId,
    contact_id: call.contactId,
    phone_number_id: call.phoneNumberId,
    campaign_id: call.campaignId,
    widget_key_id: call.widgetKeyId,
    provider_call_sid: call.providerCallSid,
    welcome_message: call.welcomeMessage,
    variables: (call.variables ?? {}) as Record<string, unknown>,
    created_at: call.createdAt.toISOString(),
    started_at: iso(call.startedAt),
    ended_at: iso(call.endedAt),
    duration_seconds: call.durationMs === null ? null : call.durationMs / 1000,
    end_reason: call.endReason,
    answered_by: call.answeredBy,
    summary: call.summary,
    outcomes: (call.outcomes as Record<string, unknown> | null) ?? null,
    collected_values: (call.collectedValues as CollectedValuesRecord | null) ?? null,
    analysis_error: call.analysisError,
    missing_variables: (call.missingVariables as string[] | null) ?? [],
    call_start_lookup: (call.callStartLookup as CallStartLookupResult | null) ?? null,
    assistant_version: call.assistantVersion,
    assistant_draft: call.assistantDraft,
    privacy_mode: call.privacyMode === null ? null : privacyModeOf(call.privacyMode),
    latency: (call.metrics as Record<string, unknown> | null) ?? null,
    usage: (call.usage as CallUsage | null) ?? null,
    cost: (call.cost as CallCost | null) ?? null,
    recordings: recordings.map((r) => ({
      track: r.track as never,
      format: r.format as never,
      duration_seconds: r.durationMs / 1000,
      size_bytes: r.sizeBytes,
      url: `${base}/recordings/${r.track}`,
    })),
    transcript_url: `${base}/transcript`,
  };
}

/** One condition per filter (AND); the values of a repeated filter are alternatives (OR). */
export function callWhere(organizationId: number, f: CallFilters): Prisma.CallWhereInput {
  const and: Prisma.CallWhereInput[] = [];
  const anyOf = <T>(values: T[] | undefined, one: (v: T) => Prisma.CallWhereInput) => {
    if (values && values.length > 0) and.push({ OR: values.map(one) });
  };
  anyOf(f.status, (v) => ({ status: v }));
  anyOf(f.direction, (v) => ({ direction: v }));
  anyOf(f.transport, (v) => ({ transport: v }));
  anyOf(f.assistant_id, (v) => ({ assistantId: v }));
  anyOf(f.contact_id, (v) => ({ contactId: v }));
  anyOf(f.campaign_id, (v) => ({ campaignId: v }));
  anyOf(f.widget_key_id, (v) => ({ widgetKeyId: v }));
  anyOf(f.phone_number, (v) => ({ OR: [{ fromNumber: v }, { toNumber: v }] }));
  anyOf(f.created_after, (v) => ({ createdAt: { gte: v } }));
  anyOf(f.created_before, (v) => ({ createdAt: { lt: v } }));
  return { organizationId, AND: and };
}

export async function listCalls(db: Db, organizationId: number, filters: CallFilters, page: number, perPage: number) {
  const where = callWhere(organizationId, filters);
  const [rows, total] = await Promise.all([
    db.call.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip: (page - 1) * perPage,
      take: perPage,
      include: { recordings: { orderBy: { id: 'asc' } } },
    }),
    db.call.count({ where }),
  ]);
  return { data: rows.map((r) => callRecord(r, r.recordings)), total };
}

async function findCall(db: Db, organizationId: number, callSid: string) {
  const call = await db.call.findFirst({ where: { organizationId, callSid }, include: { recordings: { orderBy: { id: 'asc' } } } });
  if (!call) throw notFound('Call');
  return call;
}

export async function getCall(db: Db, organizationId: number, callSid: string) {
  const call = await findCall(db, organizationId, callSid);
  return callRecord(call, call.recordings);
}

export async function getTranscript(db: Db, organizationId: number, callSid: string) {
  const call = await findCall(db, organizationId, callSid);
  const turns = await db.callTurn.findMany({ where: { callId: call.id }, orderBy: { position: 'asc' } });
  return turns.map((t) => ({
    role: t.role as 'user' | 'assistant',
    text: t.text,
    start_ms: t.startMs,
    end_ms: t.endMs,
    interrupted: t.interrupted,
    metrics: (t.metrics as Record<string, number> | null) ?? null,
    tool_calls: (t.toolCalls as unknown[] | null) ?? null,
    turn_decision: (t.turnDecision as TurnDecision | null) ?? null,
    retrieval: (t.retrieval as TurnRetrieval | null) ?? null,
    tool_message: (t.toolMessage as ToolMessageKind | null) ?? null,
    language: t.language,
  }));
}

export async function findRecording(db: Db, organizationId: number, callSid: string, track: string) {
  const call = await findCall(db, organizationId, callSid);
  const recording = call.recordings.find((r) => r.track === track);
  if (!recording) throw notFound('Recording');
  return recording;
}
