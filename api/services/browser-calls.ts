import type { PrismaClient } from '../../prisma/client.js';
import { newCallSid } from '../../shared/call-sid.js';
import { HttpError, ValidationFailed } from '../http/errors.js';
import type { StreamTokens } from '../telephony/stream-token.js';

// A browser call without LiveKit: the call row, and a page link carrying a token that lets exactly that browser send
// its microphone to this call over the built-in WebSocket.

export async function createBrowserCall(
  prisma: PrismaClient,
  tokens: StreamTokens,
  baseUrl: string,
  organizationId: number,
  input: { assistant_id: number; welcome_message?: string | undefined; variables?: Record<string, string> | undefined },
) {
  const assistant = await prisma.assistant.findFirst({ where: { id: input.assistant_id, organizationId }, select: { id: true, isActive: true } });
  if (!assistant) throw new ValidationFailed([{ loc: ['body', 'assistant_id'], msg: 'No such assistant', type: 'not_found' }]);
  if (assistant.isActive === false) throw new HttpError(400, 'assistant_inactive', `Assistant ${assistant.id} is not active`);
  const callSid = newCallSid();
  await prisma.call.create({
    data: {
      callSid,
      organizationId,
      assistantId: assistant.id,
      direction: 'inbound',
      transport: 'browser',
      status: 'queued',
      welcomeMessage: input.welcome_message ?? null,
      variables: input.variables ?? {},
    },
  });
  const token = tokens.sign(callSid);
  const query = `token=${encodeURIComponent(token)}`;
  return {
    call_sid: callSid,
    page_url: `${baseUrl}/call/${callSid}?${query}`,
    websocket_url: `${baseUrl.replace(/^http/, 'ws')}/call/${callSid}/audio?${query}`,
    token,
    expires_at: new Date(Date.now() + tokens.ttlSeconds * 1000).toISOString(),
  };
}
