import type { Prisma, PrismaClient } from '../../prisma/client.js';
import { endUnstartedCall } from './lifecycle.js';
import { DIALLING, NOT_STARTED } from './statuses.js';

// A call can be created and then never connect: the browser never opens the call page's socket, the carrier never
// opens the media stream, nobody joins the LiveKit room, the process dialling or answering it dies before the
// conversation starts. Nothing would ever end such a call, and no `call.completed` would reach the customer. Every
// worker sweeps for calls that stayed in `queued`, `initiated` or `ringing` past the point where they could still
// start, and ends them as `failed` with an end reason that says what never happened.
//
// Any number of workers sweep side by side: each call is ended by `endUnstartedCall`, a compare-and-set in one
// transaction with its events, guarded by the same condition that made the call stale, so two sweeps write it once
// and a call that started (or was claimed by a dialler) in between is left alone.

/** The browser call page's token (api/app.ts) is good for 10 minutes; after that no socket can start the call. */
export const BROWSER_JOIN_WINDOW_MS = 10 * 60_000;
/**
 * A website widget's call page token (api/widget/routes.ts) is good for 2 minutes: its panel opens the page the moment
 * the visitor presses the button, and the page connects as soon as the visitor allows the microphone. One still
 * unjoined after that (and the grace) was given up (the panel closed, the microphone refused where the page could not
 * say so), and it holds one of the widget's few slots (docs/widget.md) until it ends.
 */
export const WIDGET_JOIN_WINDOW_MS = 2 * 60_000;
/** A LiveKit web call's participant token (modules/telephony/livekit-web-calls.ts) is good for 10 minutes. */
export const WEB_JOIN_WINDOW_MS = 10 * 60_000;
/**
 * After a join window: a socket accepted in its last second starts the call within milliseconds (the call row is read
 * and claimed); a minute covers a slow database or a busy machine many times over.
 */
export const JOIN_GRACE_MS = 60_000;
/**
 * An inbound call answered with TwiML or taken by a LiveKit job starts within a second or two: the carrier opens the
 * stream right after reading the TwiML, the job starts the call right after creating it. A caller left on a silent line
 * for a minute has hung up long before; the 2-minute media token is no reason to wait, since a socket that comes after
 * the call ended finds it no longer ringing and is refused.
 */
export const INBOUND_RINGING_LIMIT_MS = 60_000;
/**
 * A dial in `initiated` or `ringing` lasts the 30 s ringing timeout plus room and dispatch set-up; the dialler of an API
 * process gives up on one after 3 minutes (modules/telephony/dialler.ts). Workers apply the same limit, so such a call ends
 * also when no API process with a dialler runs any more.
 */
export const LOST_DIAL_AFTER_MS = 180_000;
/**
 * A queued outbound call waits for a dialler. One API process dials at least 2,000 calls an hour (20 at once, each
 * done within about 35 s), so a call still queued after an hour has no dialler to wait for, and the person expected
 * the call long ago.
 */
export const UNDIALLED_AFTER_MS = 60 * 60_000;
/** Whatever else stays unstarted (a transport added later, a row written by hand) ends after two hours. */
export const UNSTARTED_LIMIT_MS = 2 * 60 * 60_000;

/** Calls one rule ends per sweep; the rest wait for the next sweep (every 30 s) or another worker. */
const CALLS_PER_RULE = 200;

export const NOT_JOINED = 'not_joined';
export const MEDIA_NEVER_CONNECTED = 'media_never_connected';
export const RINGING_TIMEOUT = 'ringing_timeout';
export const DIAL_LOST = 'dial_lost';
export const NOT_DIALLED = 'not_dialled';
export const NOT_STARTED_REASON = 'not_started';

export interface UnstartedCallLimits {
  browserJoinMs: number;
  widgetJoinMs: number;
  webJoinMs: number;
  inboundRingingMs: number;
  lostDialMs: number;
  undialledMs: number;
  unstartedMs: number;
}

export const DEFAULT_UNSTARTED_CALL_LIMITS: UnstartedCallLimits = {
  browserJoinMs: BROWSER_JOIN_WINDOW_MS + JOIN_GRACE_MS,
  widgetJoinMs: WIDGET_JOIN_WINDOW_MS + JOIN_GRACE_MS,
  webJoinMs: WEB_JOIN_WINDOW_MS + JOIN_GRACE_MS,
  inboundRingingMs: INBOUND_RINGING_LIMIT_MS,
  lostDialMs: LOST_DIAL_AFTER_MS,
  undialledMs: UNDIALLED_AFTER_MS,
  unstartedMs: UNSTARTED_LIMIT_MS,
};

interface Rule {
  reason: string;
  /** The calls this rule ends at `now`: the condition is also the compare-and-set's guard. */
  where(now: number, limits: UnstartedCallLimits): Prisma.CallWhereInput;
}

const before = (now: number, ms: number) => ({ lt: new Date(now - ms) });

const RULES: Rule[] = [
  {
    reason: NOT_JOINED,
    where: (now, l) => ({ transport: 'browser', status: 'queued', widgetKeyId: { not: null }, createdAt: before(now, l.widgetJoinMs) }),
  },
  { reason: NOT_JOINED, where: (now, l) => ({ transport: 'browser', status: 'queued', createdAt: before(now, l.browserJoinMs) }) },
  { reason: NOT_JOINED, where: (now, l) => ({ transport: 'web', status: 'queued', createdAt: before(now, l.webJoinMs) }) },
  {
    reason: MEDIA_NEVER_CONNECTED,
    where: (now, l) => ({ transport: 'media_stream', direction: 'inbound', status: 'ringing', createdAt: before(now, l.inboundRingingMs) }),
  },
  { reason: RINGING_TIMEOUT, where: (now, l) => ({ transport: 'sip', direction: 'inbound', status: 'ringing', createdAt: before(now, l.inboundRingingMs) }) },
  // The claim and each step of the dial touch `updated_at`, as the dialler's own check reads it. Whether LiveKit or a
  // carrier dials it, an outbound call still dialling after this long lost its dialler, and the carrier's records
  // (read by the dialler's recovery first) no longer say anything.
  { reason: DIAL_LOST, where: (now, l) => ({ direction: 'outbound', status: { in: [...DIALLING] }, updatedAt: before(now, l.lostDialMs) }) },
  { reason: NOT_DIALLED, where: (now, l) => ({ direction: 'outbound', status: 'queued', createdAt: before(now, l.undialledMs) }) },
  { reason: NOT_STARTED_REASON, where: (now, l) => ({ status: { in: [...NOT_STARTED] }, createdAt: before(now, l.unstartedMs) }) },
];

export interface UnstartedCallSweepOptions {
  now?: Date;
  limits?: Partial<UnstartedCallLimits>;
}

/**
 * The caller's page gave its call up before joining it (the microphone refused, the page closed): a browser call still
 * queued ends at once as `canceled` with `not_joined`, with its events, and frees the slot it held. False when the
 * call had already started or ended, which changes nothing.
 */
export async function abandonUnjoinedCall(prisma: PrismaClient, callSid: string): Promise<boolean> {
  const call = await prisma.call.findUnique({ where: { callSid }, select: { id: true } });
  if (!call) return false;
  return endUnstartedCall(prisma, call.id, 'canceled', NOT_JOINED, new Date(), { transport: 'browser', status: 'queued' });
}

/** Ends every call that can no longer start; answers the ids it ended, each with its end reason. */
export async function endStaleUnstartedCalls(
  prisma: PrismaClient,
  options: UnstartedCallSweepOptions = {},
): Promise<Array<{ callId: number; endReason: string }>> {
  const now = options.now ?? new Date();
  const limits = { ...DEFAULT_UNSTARTED_CALL_LIMITS, ...options.limits };
  const ended: Array<{ callId: number; endReason: string }> = [];
  for (const rule of RULES) {
    const where = rule.where(now.getTime(), limits);
    const stale = await prisma.call.findMany({ where, select: { id: true }, orderBy: { id: 'asc' }, take: CALLS_PER_RULE });
    for (const { id } of stale) {
      if (await endUnstartedCall(prisma, id, 'failed', rule.reason, now, where)) ended.push({ callId: id, endReason: rule.reason });
    }
  }
  return ended;
}
