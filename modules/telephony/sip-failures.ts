import type { UnstartedEnd } from '../calls/index.js';

// How a dial that never connected ends, from the SIP final response the callee's side gave: LiveKit reports it on a
// failed SIP participant, carriers in their status callbacks.

/** SIP final responses a callee's side gives, as call statuses. */
export function statusOfSipFailure(code: number | undefined): { status: UnstartedEnd; reason: string } {
  if (code === 486 || code === 600 || code === 603) return { status: 'busy', reason: 'busy' };
  if (code === 408 || code === 480 || code === 487) return { status: 'no_answer', reason: 'no_answer' };
  if (code === 404 || code === 484 || code === 604) return { status: 'failed', reason: 'invalid_number' };
  return { status: 'failed', reason: code ? `sip_${code}` : 'dial_failed' };
}
