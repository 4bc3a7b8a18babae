import { dialStarted } from '../../lib/metrics/index.js';
import type { Logger } from '../../lib/logger.js';
import type { PrismaClient } from '../../prisma/client.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { StreamTokens } from '../../lib/stream-token.js';
import { startJobLoop } from '../../lib/jobs.js';
import { claimNextOutboundCall, type DialGate, DIALLING, endUnstartedCall, LOST_DIAL_AFTER_MS, type OutboundTransport } from '../calls/index.js';
import { dialThroughCarrier } from './carrier-dial.js';
import { recoverCarrierDials } from './carrier-dial-recovery.js';
import { dialThroughLiveKit } from './livekit-dial.js';
import type { LiveKitTelephony } from './livekit.js';

// Dials queued outbound calls. A queued call is a durable row: any API process claims it with FOR UPDATE SKIP LOCKED,
// so each call is dialled once however many processes run, and a call accepted just before a process stopped is
// dialled by the next. A claimed call (`initiated`) is dialled the way its number's connection says:
//
// - a SIP trunk through LiveKit (livekit-dial.ts): room, agent dispatch, SIP participant, `ringing`, answered;
// - a carrier account through the carrier's REST API (carrier-dial.ts): one "create call" request, then the carrier's
//   status callbacks move the call, and its Media Streams socket carries the conversation once the callee answers.
//
// Either way the conversation starts (`in_progress`) when the agent starts talking to the callee, or the call ends as
// `busy` / `no_answer` / `failed` / `canceled` with the reason the carrier gave. Each move is made by
// modules/calls/lifecycle.ts.

/**
 * A dial's room, agent dispatch and SIP set-up, besides its ringing: three requests to the LiveKit server, each done in
 * well under a second; 30 s covers a slow server many times over, and bounds how long a stop waits for a dial.
 */
const DIAL_SETUP_MS = 30_000;

export interface DiallerPaths {
  /** LiveKit SIP: calls from numbers of SIP-trunk connections. */
  livekit?: LiveKitTelephony | undefined;
  /** Carrier REST and Media Streams: calls from numbers of carrier connections. Needs a public URL and a local agent. */
  carrier?: { publicUrl: string; tokens: StreamTokens; apiBaseUrl: string } | undefined;
}

export interface DiallerOptions {
  logger: Logger;
  /** Opens connections' stored credentials. */
  secrets?: SecretBox | undefined;
  /** How often the queue is polled when nothing wakes the dialler. */
  pollIntervalMs?: number | undefined;
  /** Dials in flight per process; each waits up to the ringing timeout. */
  maxConcurrentDials?: number;
  ringingTimeoutS?: number;
  maxCallDurationS?: number;
  /** A call still `initiated` or `ringing` this long after its claim lost its dialler (a process stopped mid-dial). */
  lostDialAfterMs?: number;
  /** A carrier dial with no answer and no callback this long is resolved from the carrier's own records. */
  quietCarrierDialMs?: number;
  /** Limits on how fast queued calls go out (a campaign's calls per minute), asked at each claim. */
  dialGate?: DialGate | undefined;
  /**
   * Whether this process's worker, which runs the calls dialled through a carrier (their media comes back to it), is
   * at capacity: those calls then stay queued, for a later pass or another process, instead of joining a saturated one.
   */
  carrierCallsAtCapacity?: (() => boolean) | undefined;
}

export interface Dialler {
  /** Looks at the queue now (a call was just queued in this process). */
  wake(): void;
  stop(): Promise<void>;
}

export function startDialler(prisma: PrismaClient, paths: DiallerPaths, options: DiallerOptions): Dialler {
  const log = options.logger;
  const maxDials = options.maxConcurrentDials ?? 20;
  const ringingTimeoutS = options.ringingTimeoutS ?? 30;
  const maxCallDurationS = options.maxCallDurationS ?? 3600;
  const transports: OutboundTransport[] = [...(paths.livekit ? (['sip'] as const) : []), ...(paths.carrier ? (['media_stream'] as const) : [])];
  const carrier = paths.carrier && { ...paths.carrier, secrets: options.secrets, ringingTimeoutS, maxCallDurationS };
  const livekit = paths.livekit && { telephony: paths.livekit, secrets: options.secrets, ringingTimeoutS, maxCallDurationS };

  async function dial(callId: number): Promise<void> {
    const call = await prisma.call.findUniqueOrThrow({ where: { id: callId }, include: { phoneNumber: { include: { connection: true } } } });
    if (call.transport === 'media_stream' && carrier) {
      dialStarted(call.transport);
      return dialThroughCarrier(prisma, carrier, call, log);
    }
    if (call.transport === 'sip' && livekit) {
      dialStarted(call.transport);
      return dialThroughLiveKit(prisma, livekit, call, log);
    }
  }

  async function endLostLiveKitDials(telephony: LiveKitTelephony): Promise<void> {
    const cutoff = new Date(Date.now() - (options.lostDialAfterMs ?? LOST_DIAL_AFTER_MS));
    const lost = await prisma.call.findMany({
      where: { status: { in: [...DIALLING] }, transport: 'sip', updatedAt: { lt: cutoff } },
      select: { id: true, livekitRoom: true },
    });
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
      if (paths.livekit) await endLostLiveKitDials(paths.livekit);
      if (carrier) await recoverCarrierDials(prisma, { ...carrier, quietDialMs: options.quietCarrierDialMs }, log);
      while (!jobs.stopping && jobs.inFlight < maxDials) {
        const open = options.carrierCallsAtCapacity?.() ? transports.filter((t) => t !== 'media_stream') : transports;
        if (open.length === 0) return;
        const id = await claimNextOutboundCall(prisma, open, options.dialGate);
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
