import type { Logger } from '../../lib/logger.js';
import type { PrismaClient } from '../../prisma/client.js';
import { DIALLING, endUnstartedCall, requeueUnsentDial } from '../calls/index.js';
import { applyCarrierReport, carrierOfConnection, type CarrierSettings } from './carrier-calls.js';

// Carrier dials that went quiet, resolved from what the carrier has. Run on every pass of every dialler; each step is a
// compare-and-set, so diallers of several processes resolving the same call change it once.
//
// - Claimed and never sent (the process died before the request): back to the queue.
// - Sent, and no answer ever came (the process died waiting, the answer was lost) nor any callback: the carrier's calls
//   from that number to that one since the request are listed. Found: the call is adopted (its id and state). Not
//   found: the request never reached the carrier, and the call goes back to the queue. So nobody is dialled twice for
//   one call, and no call is lost.
// - Known to the carrier but quiet past its ringing timeout (its callbacks were lost): its state is read from the carrier;
//   a call still ringing is stopped there and ended here as a no-answer; a call answered whose stream never reached us
//   is hung up there and ended here as `media_never_connected`.

/** A dial is sent within a second of its claim, and the carrier's first callback follows within seconds. */
export const QUIET_DIAL_MS = 45_000;
/** Past the ringing timeout and a minute more, a call still not started has lost its callbacks or its stream. */
const STALLED_AFTER_RINGING_MS = 60_000;
/** The carrier's clock and ours may differ: calls created shortly before our request are looked at too. */
const CLOCK_SKEW_MS = 60_000;
const CALLS_PER_PASS = 50;

export interface CarrierRecoveryOptions extends CarrierSettings {
  ringingTimeoutS: number;
  quietDialMs?: number;
}

const include = { phoneNumber: { include: { connection: true } } } as const;

export async function recoverCarrierDials(prisma: PrismaClient, options: CarrierRecoveryOptions, log: Logger, now = Date.now()): Promise<void> {
  const outbound = { transport: 'media_stream', direction: 'outbound' } as const;
  const unanswered = await prisma.call.findMany({
    where: { ...outbound, status: 'initiated', providerCallSid: null, updatedAt: { lt: new Date(now - (options.quietDialMs ?? QUIET_DIAL_MS)) } },
    include,
    orderBy: { id: 'asc' },
    take: CALLS_PER_PASS,
  });
  for (const call of unanswered) {
    const seen = { updatedAt: call.updatedAt };
    if (call.dialRequestedAt === null) {
      if (await requeueUnsentDial(prisma, call.id, seen)) log.info({ callSid: call.callSid }, 'unsent carrier dial queued again');
      continue;
    }
    const carrier = call.phoneNumber ? carrierOfConnection(options, call.phoneNumber.connection) : null;
    if (!carrier || !call.toNumber || !call.fromNumber) {
      await endUnstartedCall(prisma, call.id, 'failed', 'phone_connection_removed', new Date(now), seen);
      continue;
    }
    const found = await carrier.adapter
      .findCalls(carrier.account, { to: call.toNumber, from: call.fromNumber, since: new Date(call.dialRequestedAt.getTime() - CLOCK_SKEW_MS) })
      .catch((error: unknown) => log.warn({ callSid: call.callSid, err: (error as Error).message }, 'carrier calls not listed; trying again next pass'));
    if (!found) continue;
    // A carrier call another of our calls already holds is that call's (the same number called twice in a minute):
    // of the others, the newest since the request is this one's.
    const taken = new Set(
      (
        await prisma.call.findMany({
          where: { providerCallSid: { in: found.map((c) => c.providerCallSid) }, id: { not: call.id } },
          select: { providerCallSid: true },
        })
      ).map((c) => c.providerCallSid),
    );
    const ours = found.find((c) => !taken.has(c.providerCallSid));
    if (ours) {
      log.info({ callSid: call.callSid, providerCallSid: ours.providerCallSid }, 'carrier dial whose answer was lost adopted');
      await applyCarrierReport(prisma, call, ours);
    } else if (await requeueUnsentDial(prisma, call.id, { ...seen, dialRequestedAt: call.dialRequestedAt })) {
      log.info({ callSid: call.callSid }, 'carrier never received the dial; queued again');
    }
  }

  const stalled = await prisma.call.findMany({
    where: {
      ...outbound,
      status: { in: [...DIALLING] },
      providerCallSid: { not: null },
      updatedAt: { lt: new Date(now - options.ringingTimeoutS * 1000 - STALLED_AFTER_RINGING_MS) },
    },
    include,
    orderBy: { id: 'asc' },
    take: CALLS_PER_PASS,
  });
  for (const call of stalled) {
    const seen = { updatedAt: call.updatedAt };
    const carrier = call.phoneNumber ? carrierOfConnection(options, call.phoneNumber.connection) : null;
    if (!carrier) {
      await endUnstartedCall(prisma, call.id, 'failed', 'phone_connection_removed', new Date(now), seen);
      continue;
    }
    const report = await carrier.adapter.fetchCall(carrier.account, call.providerCallSid!).catch(() => undefined);
    if (report === undefined) continue;
    if (report === null) {
      await endUnstartedCall(prisma, call.id, 'failed', 'dial_lost', new Date(now), seen);
    } else if (report.state === 'queued' || report.state === 'ringing') {
      // Still ringing far past its timeout: nobody answered. A no-answer like any other, not a failure (the campaign's
      // circuit breaker counts failures), and the carrier is told to stop ringing.
      await carrier.adapter.hangUp(carrier.account, report.providerCallSid).catch(() => {});
      await endUnstartedCall(prisma, call.id, 'no_answer', 'no_answer', new Date(now), seen);
    } else if (report.state === 'in_progress') {
      // Answered, and no stream ever reached us: nobody would ever talk on it.
      await carrier.adapter.hangUp(carrier.account, report.providerCallSid).catch(() => {});
      await endUnstartedCall(prisma, call.id, 'failed', 'media_never_connected', new Date(now), seen);
    } else {
      await applyCarrierReport(prisma, call, report);
    }
  }
}
