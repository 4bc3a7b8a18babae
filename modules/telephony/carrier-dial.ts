import type { Logger } from '../../lib/logger.js';
import type { PrismaClient } from '../../prisma/client.js';
import type { StreamTokens } from '../../lib/stream-token.js';
import { endUnstartedCall, type CallRow } from '../calls/index.js';
import { carrierOfConnection, type CarrierSettings } from './carrier-calls.js';
import { CarrierRequestError } from './carriers/carrier.js';
import { carrierStatusPath, machineDetectionPath, MEDIA_STREAM_PATH } from './carriers/paths.js';

// Dials a claimed call (`initiated`) through its connection's carrier: one "create call" request whose inline TwiML
// connects the answered call's audio to our Media Streams socket with a token made for this call. The call then moves
// on the carrier's status callbacks (api/transports/media-streams/carrier-callbacks.ts), and its conversation starts
// when the stream does, that is when the callee has answered.
//
// The request is the one step that cannot be repeated blindly: a carrier that received it dials the person, whether or
// not its answer reaches us. So the time it is sent is written first; a dial whose answer never came (this process
// died, the network dropped it) is resolved by carrier-dial-recovery.ts from what the carrier has, never sent again
// until the carrier shows it has no such call.

/** After the ringing timeout: the carrier queues a call for a moment before dialling, and answering takes a second. */
const STREAM_TOKEN_GRACE_S = 120;

export interface CarrierDialOptions extends CarrierSettings {
  /** The public base URL carriers reach this service at (PUBLIC_URL): callbacks and the media socket are under it. */
  publicUrl: string;
  /** Signs the token the carrier hands back in the stream's start message. */
  tokens: StreamTokens;
  ringingTimeoutS: number;
  maxCallDurationS: number;
}

type DialledCall = CallRow & { phoneNumber: { connection: Parameters<typeof carrierOfConnection>[1] } | null };

export async function dialThroughCarrier(prisma: PrismaClient, options: CarrierDialOptions, call: DialledCall, log: Logger): Promise<void> {
  const connection = call.phoneNumber?.connection;
  const carrier = connection ? carrierOfConnection(options, connection) : null;
  if (!connection || !carrier || !call.toNumber || !call.fromNumber) {
    // A connection deleted while the call was queued, or credentials sealed under another SECRETS_KEY.
    await endUnstartedCall(prisma, call.id, 'failed', connection ? 'carrier_credentials_unreadable' : 'phone_connection_removed');
    return;
  }
  const marked = await prisma.call.updateMany({ where: { id: call.id, status: 'initiated' }, data: { dialRequestedAt: new Date() } });
  if (marked.count === 0) return;

  const base = options.publicUrl.replace(/\/+$/, '');
  const kind = carrier.adapter.kind;
  try {
    const { providerCallSid } = await carrier.adapter.createCall(carrier.account, {
      to: call.toNumber,
      from: call.fromNumber,
      streamUrl: `${base.replace(/^http/, 'ws')}${MEDIA_STREAM_PATH}`,
      streamToken: options.tokens.sign(call.callSid, Date.now(), options.ringingTimeoutS + STREAM_TOKEN_GRACE_S),
      statusCallbackUrl: `${base}${carrierStatusPath(kind, call.callSid)}`,
      machineDetectionUrl: call.detectVoicemail ? `${base}${machineDetectionPath(kind, call.callSid)}` : undefined,
      ringingTimeoutS: options.ringingTimeoutS,
      maxCallDurationS: options.maxCallDurationS,
    });
    // A status callback may have filled it first; it names the same call.
    await prisma.call.updateMany({ where: { id: call.id, providerCallSid: null }, data: { providerCallSid } });
    log.info({ callSid: call.callSid, providerCallSid, carrier: kind }, 'outbound call sent to the carrier');
  } catch (error) {
    if (!(error instanceof CarrierRequestError)) throw error;
    log.warn(
      { callSid: call.callSid, carrier: kind, outcome: error.outcome, reason: error.reason, ...error.details, err: error.message },
      'carrier did not take the call',
    );
    if (error.outcome === 'refused') {
      await endUnstartedCall(prisma, call.id, 'failed', error.reason);
    } else if (error.outcome === 'retry') {
      // Nothing was created: the recovery pass puts the call back in the queue once it has been quiet a while.
      await prisma.call.updateMany({ where: { id: call.id, status: 'initiated', providerCallSid: null }, data: { dialRequestedAt: null } });
    }
    // `unknown`: the carrier may have the call; its callbacks, or the recovery pass, say.
  }
}
