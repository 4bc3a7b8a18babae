import { log } from '@livekit/agents';
import type { PrismaClient } from '../../prisma/client.js';
import {
  awaitWarmTransferOutcome,
  type CarrierAccount,
  type CarrierAdapter,
  CarrierRequestError,
  moveWarmTransfer,
  openWarmTransfer,
  setConsultCallSid,
  warmTransferPath,
} from '../../modules/telephony/index.js';
import { LineError, type ConsultOutcome, type ConsultRequest } from '../call/line.js';

// A warm transfer on a carrier's line. The caller stays on our Media Streams socket, on hold, while the carrier calls
// the person: the briefing is said to them and they accept with a key (modules/telephony/carriers: the adapter's
// consult call). The carrier's callbacks about that call reach whichever API process it sends them to
// (api/transports/media-streams/warm-transfer-callbacks.ts), which moves the consultation's row; this process waits on
// the row (modules/telephony/warm-transfers.ts). Accepted, the person's call is already in the conference named by
// the row's token, and the caller's is moved there too: the carrier stops our stream. Otherwise the person's call is
// ended, if it still runs, and the assistant goes back to the caller.

export interface CarrierConsultSetup {
  prisma: PrismaClient;
  /** The service's public base URL (PUBLIC_URL): the carrier's callbacks come there. */
  publicUrl: string;
  callId: number;
  /** The number the person's call comes from. */
  from: string;
}

/** Past the ringing, the briefing is said (about 15 characters a second) and the person has the key's time: 40 s covers both. */
const ANSWERED_MARGIN_S = 40;
const SPOKEN_CHARS_PER_S = 15;

export async function consultThroughCarrier(
  setup: CarrierConsultSetup & { adapter: CarrierAdapter; account: CarrierAccount; callerSid: string },
  request: ConsultRequest,
): Promise<ConsultOutcome> {
  const { prisma, adapter, account } = setup;
  const logFields = { callId: setup.callId, line: 'carrier' };
  const consultation = await openWarmTransfer(prisma, setup.callId);
  const base = setup.publicUrl.replace(/\/+$/, '');
  const url = (event: 'status' | 'answer' | 'machine-detection') => `${base}${warmTransferPath(adapter.kind, consultation.token, event)}`;

  // Listening before the call is made: its first callbacks may come before the carrier's answer to the request.
  const waiting = new AbortController();
  const boundMs = (request.ringTimeoutS + ANSWERED_MARGIN_S + request.briefing.length / SPOKEN_CHARS_PER_S) * 1000;
  const timer = setTimeout(() => waiting.abort('timeout'), boundMs);
  const cancel = () => waiting.abort('canceled');
  request.signal.addEventListener('abort', cancel, { once: true });
  if (request.signal.aborted) cancel();
  const outcome = awaitWarmTransferOutcome(prisma, consultation.token, waiting.signal);
  const done = () => {
    clearTimeout(timer);
    request.signal.removeEventListener('abort', cancel);
  };

  let consultSid: string;
  try {
    ({ providerCallSid: consultSid } = await adapter.createConsultCall(account, {
      to: request.destination,
      from: setup.from,
      briefing: request.briefing,
      answerUrl: url('answer'),
      statusCallbackUrl: url('status'),
      machineDetectionUrl: url('machine-detection'),
      ringingTimeoutS: request.ringTimeoutS,
    }));
  } catch (error) {
    done();
    waiting.abort('failed');
    await moveWarmTransfer(prisma, consultation.token, 'failed').catch(() => {});
    const said = error instanceof CarrierRequestError && error.details.status !== undefined ? /: (.*)$/.exec(error.message)?.[1] : undefined;
    throw new LineError(
      `The transfer could not be made: the phone carrier did not place the call${said ? ` (${said.slice(0, 200)})` : ''}. The caller is still on the line with you: tell them, and offer to help another way.`,
      'carrier_error',
      error instanceof CarrierRequestError ? { reason: error.reason, ...error.details } : {},
    );
  }
  await setConsultCallSid(prisma, consultation.id, consultSid).catch(() => {});

  const ended = await outcome;
  done();
  const hangUpPerson = () =>
    adapter.hangUp(account, consultSid).catch((err: unknown) => log().warn({ ...logFields, err }, 'warm transfer: the consult call was not ended'));

  if (!ended) {
    const reason = waiting.signal.reason === 'timeout' ? 'timeout' : 'canceled';
    // Given up on: nobody may join a caller who is gone, or one the assistant has taken back.
    await moveWarmTransfer(prisma, consultation.token, 'canceled').catch(() => {});
    await hangUpPerson();
    return reason;
  }
  if (ended.state !== 'accepted') {
    // A machine's call, or a person's who let the question go, may still run.
    if (ended.state === 'voicemail' || ended.state === 'declined') await hangUpPerson();
    return ended.state as ConsultOutcome;
  }
  try {
    // Not given up when the caller's stream ends: moving the caller into the conference is what ends it, sometimes
    // before the carrier has answered the move.
    await adapter.joinConference(account, setup.callerSid, consultation.token);
    return 'accepted';
  } catch (err) {
    log().warn({ ...logFields, err: err instanceof CarrierRequestError ? err.reason : (err as Error)?.name }, 'warm transfer: the caller could not be moved');
    await hangUpPerson();
    return 'failed';
  }
}
