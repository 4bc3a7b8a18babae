import { log } from '@livekit/agents';
import type { PrismaClient } from '../prisma/client.js';
import { finishCall, type StoredTurn } from './call-store.js';
import { summarizeLatency } from './turn-metrics.js';

// A call's process can die mid-call (a crashed job process, a killed worker, a lost machine). Its call would stay
// `in_progress` for ever, and no `call.completed` would ever reach the customer. Every running call renews a heartbeat
// on its row; every worker sweeps for `in_progress` calls whose heartbeat has stopped and ends them as `failed` with
// end reason `worker_lost`, keeping the turns stored while the call ran. Any number of workers can sweep side by
// side: `finishCall` ends a call only while it is still `in_progress`, so each call ends exactly once.

/** How often a running call renews its heartbeat. */
export const CALL_HEARTBEAT_INTERVAL_MS = 15_000;
/** A heartbeat older than this means the call's process is gone: four missed beats, so a slow database is not enough. */
export const CALL_STALE_AFTER_MS = 60_000;
/** How often a worker sweeps. */
export const CALL_SWEEP_INTERVAL_MS = 30_000;

export const WORKER_LOST = 'worker_lost';

/** Ends every call whose process stopped renewing its heartbeat; answers the call ids it ended. */
export async function recoverOrphanedCalls(prisma: PrismaClient, options: { staleAfterMs?: number; now?: Date } = {}): Promise<number[]> {
  const now = options.now ?? new Date();
  const cutoff = new Date(now.getTime() - (options.staleAfterMs ?? CALL_STALE_AFTER_MS));
  const orphans = await prisma.call.findMany({
    where: {
      status: 'in_progress',
      OR: [{ heartbeatAt: { lt: cutoff } }, { heartbeatAt: null, startedAt: { lt: cutoff } }],
    },
    orderBy: { id: 'asc' },
    take: 100,
  });
  const ended: number[] = [];
  for (const call of orphans) {
    const rows = await prisma.callTurn.findMany({ where: { callId: call.id }, orderBy: { position: 'asc' } });
    const turns: StoredTurn[] = rows.map((r) => ({
      role: r.role as StoredTurn['role'],
      text: r.text,
      start_ms: r.startMs,
      end_ms: r.endMs,
      interrupted: r.interrupted,
      metrics: r.metrics as Record<string, number> | null,
    }));
    // The call ended, as far as anyone can tell, at its last sign of life.
    const endedAt = call.heartbeatAt ?? call.startedAt ?? now;
    const finished = await finishCall(prisma, call, {
      status: 'failed',
      endReason: WORKER_LOST,
      endedAt,
      summary: null,
      outcomes: null,
      analysisError: 'the call ended without its process',
      missingVariables: (call.missingVariables as string[] | null) ?? [],
      metrics: summarizeLatency(turns),
      turns,
      recordings: [],
    });
    if (finished) ended.push(call.id);
  }
  return ended;
}

/** Sweeps now and then every `intervalMs` until stopped. A failed sweep is logged and tried again at the next tick. */
export function startCallRecovery(prisma: PrismaClient, options: { intervalMs?: number; staleAfterMs?: number } = {}): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const sweep = () => {
    running = recoverOrphanedCalls(prisma, { staleAfterMs: options.staleAfterMs })
      .then((ids) => {
        if (ids.length > 0) log().warn({ callIds: ids, endReason: WORKER_LOST }, 'ended calls whose process stopped');
      })
      .catch((error: unknown) => log().warn({ err: (error as Error).message }, 'call recovery sweep failed'));
  };
  sweep();
  const timer = setInterval(sweep, options.intervalMs ?? CALL_SWEEP_INTERVAL_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
