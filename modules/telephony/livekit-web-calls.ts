import type { PrismaClient } from '../../prisma/client.js';
import { endUnstartedCall, openWebCall, roomOfCall } from '../calls/index.js';
import { AppError } from '../../lib/errors.js';
import { requireActiveAssistant } from '../assistants/index.js';
import type { LiveKitTelephony } from './livekit.js';

// A browser call through LiveKit: the call row, a room with the agent dispatched into it, and a token for the browser.

/** The browser has this long to join with its token; a call lasts longer, the token is only for joining. */
const TOKEN_TTL_S = 10 * 60;

export async function createLiveKitWebCall(
  prisma: PrismaClient,
  telephony: LiveKitTelephony | undefined,
  unavailable: AppError,
  organizationId: number,
  input: { assistant_id: number; welcome_message?: string | undefined; variables?: Record<string, string> | undefined },
) {
  const assistant = await requireActiveAssistant(prisma, organizationId, input.assistant_id);
  // Without LiveKit the request is still checked in full; only a call that would be created gets the 503.
  if (!telephony) throw unavailable;

  const call = await openWebCall(prisma, {
    organizationId,
    assistantId: assistant.id,
    transport: 'web',
    welcomeMessage: input.welcome_message ?? null,
    variables: input.variables ?? {},
  });
  const { callSid } = call;
  const room = roomOfCall(callSid);
  try {
    await telephony.openCallRoom(room, call.id);
  } catch (error) {
    // The call was accepted, so it ends like any other: failed, with its events.
    await endUnstartedCall(prisma, call.id, 'failed', 'livekit_unavailable');
    throw new AppError('livekit_unavailable', `The LiveKit server did not create the room: ${(error as Error).message}`);
  }
  const expiresAt = new Date(Date.now() + TOKEN_TTL_S * 1000);
  return {
    call_sid: callSid,
    livekit_url: telephony.config.url,
    room,
    participant_token: await telephony.participantToken(room, `web-${callSid}`, TOKEN_TTL_S),
    expires_at: expiresAt.toISOString(),
  };
}
