import type { FastifyBaseLogger } from 'fastify';
import { SipCallError } from 'livekit-server-sdk';
import type { PrismaClient } from '../../prisma/client.js';
import { startJobLoop } from '../../lib/jobs.js';
import { claimNextOutboundCall, endUnstartedCall, markCallRinging, roomOfCall } from '../calls/lifecycle.js';
import { DIALLING, type UnstartedEnd } from '../calls/statuses.js';
import { LOST_DIAL_AFTER_MS } from '../calls/unstarted.js';
import type { LiveKitTelephony } from './livekit.js';

// Dials queued outbound calls. A queued call is a durable row: any API process claims it with FOR UPDATE SKIP LOCKED,
// so each call is dialled once however many processes run, and a call accepted just before a process stopped is
// dialled by the next. A dial goes: `queued` → `initiated` (claimed; room and agent dispatch created) → `ringing`
// (the SIP participant is dialling) → `in_progress` when the agent starts the conversation after the callee answers,
// or `busy` / `no_answer` / `failed` from the carrier's SIP answer. Each move is made by modules/calls/lifecycle.ts.

/**
 * A dial's room, agent dispatch and SIP set-up, besides its ringing: three requests to the LiveKit server, each done in
 * well under a second; 30 s covers a slow server many times over, and bounds how long a stop waits for a dial.
 */
const DIAL_SETUP_MS = 30_000;

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

export function startDialler(prisma: PrismaClient, telephony: LiveKitTelephony, options: DiallerOptions): Dialler {
  const log = options.logger;
  const maxDials = options.maxConcurrentDials ?? 20;
  const ringingTimeoutS = options.ringingTimeoutS ?? 30;

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
      await markCallRinging(prisma, call.id);
      const participant = await telephony.dial({
        room,
        to: call.toNumber,
        from: call.fromNumber,
        trunk: connection,
        ringingTimeoutS,
        maxCallDurationS: options.maxCallDurationS ?? 3600,
      });
      await prisma.call.update({ where: { id: call.id }, data: { providerCallSid: participant.sipCallId || null } });
      log.info({ callSid: call.callSid }, 'outbound call answered');
    } catch (error) {
      const sip = error instanceof SipCallError ? error.sipStatusCode : undefined;
      const { status, reason } = statusOfSipFailure(sip);
      log.warn({ callSid: call.callSid, sipStatus: sip, err: error }, 'outbound call not connected');
      await endUnstartedCall(prisma, call.id, status, reason);
      // The agent waiting in the room for a callee who will not come leaves with the room.
      await telephony.closeRoom(room).catch(() => {});
    }
  }

  async function endLostDials(): Promise<void> {
    const cutoff = new Date(Date.now() - (options.lostDialAfterMs ?? LOST_DIAL_AFTER_MS));
    const lost = await prisma.call.findMany({ where: { status: { in: [...DIALLING] }, transport: 'sip', updatedAt: { lt: cutoff } }, select: { id: true, livekitRoom: true } });
    for (const call of lost) {
      if (await endUnstartedCall(prisma, call.id, 'failed', 'dial_lost')) {
        if (call.livekitRoom) await telephony.closeRoom(call.livekitRoom).catch(() => {});
      }
    }
  }

  const loop = startJobLoop({
    intervalMs: options.pollIntervalMs ?? 1000,
    // The dialler lives as long as the API that started it and never holds a process open by itself.
    unref: true,
    onError: (error) => log.warn({ err: error }, 'dial queue not read; retrying'),
    // A dial ended and its slot is free: there may be more queued.
    onSettled: (jobs) => jobs.wake(),
    pass: async (jobs) => {
      await endLostDials();
      while (!jobs.stopping && jobs.inFlight < maxDials) {
        const id = await claimNextOutboundCall(prisma);
        if (id === null) return;
        jobs.track(dial(id).catch((error: unknown) => log.error({ callId: id, err: error }, 'dial failed')));
      }
    },
  });

  return {
    wake: () => loop.wake(),
    stop: async () => {
      // Dials in flight are waited for: each ends within its ringing timeout, after the room and the dispatch.
      if (!(await loop.stop(ringingTimeoutS * 1000 + DIAL_SETUP_MS))) log.warn('dials still under way at stop; the sweep of lost dials ends them');
    },
  };
}
