import type { SecretBox } from '../../lib/secret-box.js';
import type { PrismaClient } from '../../prisma/client.js';
import type { OutboundTrunk } from './livekit.js';
import { openedConnectionSecret } from './phone-connections.js';

// The trunk a LiveKit SIP call's warm transfer calls the person through: the one of the phone number the call came in
// on (or went out from), so the person sees the call come from the organisation's own number.

export interface ConsultTrunk {
  trunk: OutboundTrunk;
  /** The number the person's call comes from. */
  from: string;
}

/** The trunk of the call `key` names; null when the call has no number, or its connection cannot dial. */
export async function consultTrunkOfCall(
  prisma: PrismaClient,
  secrets: SecretBox | undefined,
  key: { callId?: number; callSid?: string },
): Promise<ConsultTrunk | null> {
  const where = key.callId !== undefined ? { id: key.callId } : key.callSid !== undefined ? { callSid: key.callSid } : null;
  if (!where) return null;
  const call = await prisma.call.findFirst({
    where,
    select: { direction: true, fromNumber: true, toNumber: true, phoneNumber: { select: { connection: true } } },
  });
  const connection = call?.phoneNumber?.connection;
  const from = call?.direction === 'inbound' ? call.toNumber : call?.fromNumber;
  if (!connection || !from || connection.kind !== 'sip' || (!connection.sipAddress && !connection.livekitTrunkId)) return null;
  return {
    from,
    trunk: {
      livekitTrunkId: connection.livekitTrunkId,
      sipAddress: connection.sipAddress ?? '',
      sipTransport: connection.sipTransport,
      username: connection.username,
      password: openedConnectionSecret(secrets, connection, 'password') ?? null,
    },
  };
}
