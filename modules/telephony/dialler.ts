import type { FastifyBaseLogger } from 'fastify';
import { SipCallError } from 'livekit-server-sdk';
import type { PrismaClient } from '../../prisma/client.js';
import { endUnstartedCall, type UnstartedEnd } from '../calls/ending.js';
import type { LiveKitTelephony } from './livekit.js';

// Dials queued outbound calls. A queued call is a durable row: any API process claims it with FOR UPDATE SKIP LOCKED,
// so each call is dialled once however many processes run, and a call accepted just before a process stopped is
// dialled by the next. A dial goes: `queued` → `initiated` (claimed; room and agent dispatch created) → `ringing`
// (the SIP participant is dialling) → `in_progress` when the agent starts the conversation after the callee answers,
// or `busy` / `no_answer` / `failed` from the carrier's SIP answer.

export interface DiallerOptions {
  logger: FastifyBaseLogger;
  /** How often the queue is polled when nothing wakes the dialler. */
  pollIntervalMs?: number;
  /** Dials in flight per process; each waits up to the ringing timeout. */
  maxConcurrentDials?: number;
  ringingTimeoutS?: number;
  maxCallDurationS?: number;
  /** A call still `initiated` or `ringing` this long after its claim lost its dialler (a process stopped mid-dial). */
  lostDialAfterMs?: number;
}

export interface Dialler {
  /** Looks at the queue now (a call was just queued in this process). */
  wake(): void;
  stop(): Promise<void>;
}

/** SIP final responses a callee's side gives, as call statuses. */
export function statusOfSipFailure(code: number | undefined): { status: UnstartedEnd; reason: string } {
  if (code === 486 || code === 600 || code === 603) return { status: 'busy', reason: 'busy' };
  if (code === 408 || code === 480 || code === 487) return { status: 'no_answer', reason: 'no_answer' };
  if (code === 404 || code === 484 || code === 604) return { status: 'failed', reason: 'invalid_number' };
  return { status: 'failed', reason: code ? `sip_${code}` : 'dial_failed' };
}

export function roomOfCall(callSid: string): string {
  return `call-${callSid}`;
}

export function startDialler(prisma: PrismaClient, telephony: LiveKitTelephony, options: DiallerOptions): Dialler {
  const log = options.logger;
  const maxDials = options.maxConcurrentDials ?? 20;
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let pumping = false;

  async function claim(): Promise<number | null> {
    const rows = await prisma.$queryRaw<{ id: number }[]>`
      UPDATE calls SET status = 'initiated', livekit_room = 'call-' || call_sid, updated_at = now()
      WHERE id = (
        SELECT id FROM calls WHERE status = 'queued' AND transport = 'sip' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED
      )
      RETURNING id`;
    return rows[0]?.id ?? null;
  }

  async function dial(callId: number): Promise<void> {
    const call = await prisma.call.findUniqueOrThrow({ where: { id: callId }, include: { phoneNumber: { include: { connection: true } } } });
    const room = call.livekitRoom ?? roomOfCall(call.callSid);
    const connection = call.phoneNumber?.connection;
    if (!connection || !call.toNumber || !call.fromNumber) {
      await endUnstartedCall(prisma, call.id, 'failed', 'phone_connection_removed');
      return;
    }
    try {
      await telephony.openCallRoom(room, call.id);
      await prisma.call.updateMany({ where: { id: call.id, status: 'initiated' }, data: { status: 'ringing' } });
      const participant = await telephony.dial({
        room,
        to: call.toNumber,
        from: call.fromNumber,
        trunk: connection,
        ringingTimeoutS: options.ringingTimeoutS ?? 30,
        maxCallDurationS: options.maxCallDurationS ?? 3600,
      });
      await prisma.call.update({ where: { id: call.id }, data: { providerCallSid: participant.sipCallId || null } });
      log.info({ callSid: call.callSid }, 'outbound call answered');
    } catch (error) {
      const sip = error instanceof SipCallError ? error.sipStatusCode : undefined;
      const { status, reason } = statusOfSipFailure(sip);
      log.warn({ callSid: call.callSid, sipStatus: sip, err: (error as Error).message }, 'outbound call not connected');
      await endUnstartedCall(prisma, call.id, status, reason);
      // The agent waiting in the room for a callee who will not come leaves with the room.
      await telephony.closeRoom(room).catch(() => {});
    }
  }

  async function endLostDials(): Promise<void> {
    const cutoff = new Date(Date.now() - (options.lostDialAfterMs ?? 180_000));
    const lost = await prisma.call.findMany({ where: { status: { in: ['initiated', 'ringing'] }, transport: 'sip', updatedAt: { lt: cutoff } }, select: { id: true, livekitRoom: true } });
    for (const call of lost) {
      if (await endUnstartedCall(prisma, call.id, 'failed', 'dial_lost')) {
        if (call.livekitRoom) await telephony.closeRoom(call.livekitRoom).catch(() => {});
      }
    }
  }

  async function pump(): Promise<void> {
    if (pumping || stopped) return;
    pumping = true;
    try {
      await endLostDials();
      while (!stopped && inFlight.size < maxDials) {
        const id = await claim();
        if (id === null) break;
        const running = dial(id)
          .catch((error: unknown) => log.error({ callId: id, err: (error as Error).message }, 'dial failed'))
          .finally(() => {
            inFlight.delete(running);
            // A slot freed: there may be more queued.
            if (!stopped) void pump();
          });
        inFlight.add(running);
      }
    } catch (error) {
      log.warn({ err: (error as Error).message }, 'dial queue not read; retrying');
    } finally {
      pumping = false;
    }
  }

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void pump().finally(schedule), options.pollIntervalMs ?? 1000);
    timer.unref();
  };
  void pump().finally(schedule);

  return {
    wake: () => void pump(),
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      // Dials in flight are waited for: each ends within its ringing timeout.
      await Promise.all([...inFlight]);
    },
  };
}
