import type { Db } from '../../prisma/client.js';
import { recordEvent } from '../webhooks/index.js';

// A transfer's outcome as it happens, for receivers that act on it before the call ends: a warm transfer the desk
// declined, or nobody answered, is a caller someone should call back, and `call.completed` (which says `transferred`
// only of a transfer that went through) may come many minutes later. docs/events.md, "Transfer payload".

export interface CallTransferReport {
  /** The tool's name, as the assistant's configuration has it. */
  tool: string;
  mode: 'cold' | 'warm';
  /**
   * A cold transfer: `transferred` (the line was handed over) or `failed`. A warm one: the consultation's outcome,
   * `accepted`, `declined`, `no_answer`, `busy`, `voicemail`, `failed` or `canceled` (the caller hung up first).
   */
  outcome: string;
  /** The number or SIP address the caller was transferred to, or would have been. */
  destination: string;
  /** A warm transfer: how long the caller was on hold. */
  heldMs?: number | undefined;
}

/** Records `call.transfer` for the call, queued to every endpoint that subscribes to it. */
export async function recordCallTransfer(
  db: Db,
  call: { callSid: string; organizationId: number; assistantId: number | null },
  report: CallTransferReport,
  at = new Date(),
): Promise<void> {
  await recordEvent(db, call.organizationId, 'call.transfer', {
    call_sid: call.callSid,
    assistant_id: call.assistantId,
    tool: report.tool,
    mode: report.mode,
    outcome: report.outcome,
    destination: report.destination,
    held_ms: report.heldMs ?? null,
    at: at.toISOString(),
  });
}
