import { log } from '@livekit/agents';
import type { PrismaClient } from '../../prisma/client.js';
import { holdLease } from '../../lib/jobs.js';
import { touchCallHeartbeat } from '../../modules/calls/index.js';
import { CALL_HEARTBEAT_INTERVAL_MS } from './recovery.js';

// A running call renews the heartbeat on its row, from its start until its record is written: workers end a call whose
// heartbeat stopped as one whose process died (agent/call/recovery.ts).

/**
 * Renews the call's heartbeat every `intervalMs`; answers a function that stops it and resolves once a renewal under
 * way has settled, so that nothing renews the heartbeat after it. A failed renewal is logged.
 */
export function startHeartbeat(
  prisma: PrismaClient,
  callId: number,
  options: { intervalMs?: number | undefined; logFields?: Record<string, unknown> } = {},
): () => Promise<void> {
  // The call's lease on its worker: nothing can take it over (recovery ends it instead), so it is never lost.
  const lease = holdLease({
    renew: () => touchCallHeartbeat(prisma, callId, new Date()),
    everyMs: options.intervalMs ?? CALL_HEARTBEAT_INTERVAL_MS,
    onError: (error) => log().warn({ ...options.logFields, err: error }, 'heartbeat not stored'),
  });
  return () => lease.release();
}
