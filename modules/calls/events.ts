// Payloads of the call lifecycle events (`call.started`, `call.completed`, `call.failed`), built in one place so the
// runtime and anything that re-emits them agree on the shape documented in docs/events.md.

import type { CollectedValuesRecord } from './schemas.js';
import type { CallCost, CallUsage } from './usage-schemas.js';

export type TranscriptRole = 'user' | 'assistant';

export interface TranscriptEntry {
  role: TranscriptRole;
  text: string;
  /** Milliseconds from the start of the call. */
  start_ms: number;
  end_ms: number;
  interrupted: boolean;
  /** Assistant turns: the tools called before this reply, in order. */
  tool_calls?: ToolCallEntry[];
  /** The language the turn was spoken in (BCP 47), when known. */
  language?: string | null;
}

/** One tool call made during a call, with its result. */
export interface ToolCallEntry {
  name: string;
  /** The arguments as the model sent them: an object, or the raw text when they were not valid JSON. */
  arguments: unknown;
  /** What the tool returned (or its error message), as a value. */
  output: unknown;
  is_error: boolean;
  /** Milliseconds from the start of the call when the model called it. */
  at_ms: number;
  /** HTTP tools: the answer's status (null when none came), and how long the request took. */
  http_status?: number | null;
  duration_ms?: number;
  /** Set when the caller took the turn while it ran: it was aborted and its result never reached the model. */
  cancelled?: true;
}

export interface RecordingEntry {
  track: 'user' | 'assistant' | 'mixed';
  format: 'mp3' | 'wav';
  path?: string;
  duration_ms: number;
  size_bytes: number;
}

export interface CallIdentity {
  callSid: string;
  status: string;
  direction: string;
  assistantId: number | null;
  contactId: number | null;
  fromNumber: string | null;
  toNumber: string | null;
  startedAt: Date | null;
}

export interface CallStartedPayload {
  call_sid: string;
  status: string;
  direction: string;
  assistant_id: number | null;
  contact_id: number | null;
  from_number: string | null;
  to_number: string | null;
  started_at: string | null;
}

export interface CallEndedPayload extends CallStartedPayload {
  ended_at: string | null;
  duration_seconds: number | null;
  end_reason: string | null;
  /** Who answered an outbound call, as the carrier's answering-machine detection says; null when not asked for. */
  answered_by: string | null;
  summary: string | null;
  outcomes: Record<string, unknown> | null;
  /** By playbook name: the values its playbooks collected and the required ones missing (docs/playbooks.md). */
  collected_values: CollectedValuesRecord | null;
  transcript: TranscriptEntry[];
  recordings: RecordingEntry[];
  /** What the call used, by vendor and model (docs/analytics.md); null for a call that never started. */
  usage: CallUsage | null;
  /** Its cost from the organisation's price table, by component; null for a call that never started. */
  cost: CallCost | null;
}

export function callStartedPayload(call: CallIdentity): CallStartedPayload {
  return {
    call_sid: call.callSid,
    status: call.status,
    direction: call.direction,
    assistant_id: call.assistantId,
    contact_id: call.contactId,
    from_number: call.fromNumber,
    to_number: call.toNumber,
    started_at: call.startedAt?.toISOString() ?? null,
  };
}

export function callEndedPayload(
  call: CallIdentity & {
    endedAt: Date | null;
    durationMs: number | null;
    endReason: string | null;
    summary: string | null;
    outcomes: unknown;
    collectedValues?: unknown;
    answeredBy?: string | null;
    usage?: unknown;
    cost?: unknown;
  },
  transcript: TranscriptEntry[],
  recordings: RecordingEntry[],
): CallEndedPayload {
  return {
    ...callStartedPayload(call),
    ended_at: call.endedAt?.toISOString() ?? null,
    // Seconds, as the public API writes durations; three decimals keep the millisecond.
    duration_seconds: call.durationMs === null ? null : Math.round(call.durationMs) / 1000,
    end_reason: call.endReason,
    answered_by: call.answeredBy ?? null,
    summary: call.summary,
    outcomes: (call.outcomes as Record<string, unknown> | null) ?? null,
    collected_values: (call.collectedValues as CollectedValuesRecord | null | undefined) ?? null,
    transcript,
    recordings,
    usage: (call.usage as CallUsage | null | undefined) ?? null,
    cost: (call.cost as CallCost | null | undefined) ?? null,
  };
}
