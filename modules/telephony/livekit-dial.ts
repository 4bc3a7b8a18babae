import type { Logger } from '../../lib/logger.js';
import { SipCallError } from 'livekit-server-sdk';
import type { PrismaClient } from '../../prisma/client.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { endUnstartedCall, markCallRinging, roomOfCall, type CallRow } from '../calls/index.js';
import type { LiveKitTelephony } from './livekit.js';
import { openedConnectionSecret } from './phone-connections.js';
import { statusOfSipFailure } from './sip-failures.js';

// Dials a claimed call (`initiated`) through LiveKit SIP: a room named after the call with the agent dispatched into
// it, then a SIP participant that rings the callee (`ringing`) and joins once answered, when the agent starts the
// conversation; a SIP failure ends the call as busy, no_answer or failed.

export interface LiveKitDialOptions {
  telephony: LiveKitTelephony;
  /** Opens the trunk's stored password. */
  secrets: SecretBox | undefined;
  ringingTimeoutS: number;
  maxCallDurationS: number;
}

type Connection = {
  organizationId: number;
  sipAddress: string | null;
  sipTransport: string;
  username: string | null;
  password: string | null;
  authToken: string | null;
  livekitTrunkId: string | null;
};
type DialledCall = CallRow & { phoneNumber: { connection: Connection } | null };

export async function dialThroughLiveKit(prisma: PrismaClient, options: LiveKitDialOptions, call: DialledCall, log: Logger): Promise<void> {
  const { telephony } = options;
  const room = call.livekitRoom ?? roomOfCall(call.callSid);
  const connection = call.phoneNumber?.connection;
  if (!connection || !call.toNumber || !call.fromNumber || (!connection.sipAddress && !connection.livekitTrunkId)) {
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
      trunk: {
        livekitTrunkId: connection.livekitTrunkId,
        sipAddress: connection.sipAddress ?? '',
        sipTransport: connection.sipTransport,
        username: connection.username,
        password: openedConnectionSecret(options.secrets, connection, 'password') ?? null,
      },
      ringingTimeoutS: options.ringingTimeoutS,
      maxCallDurationS: options.maxCallDurationS,
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
