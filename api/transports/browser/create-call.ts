import { AppError } from '../../../lib/errors.js';
import type { PrismaClient } from '../../../prisma/client.js';
import { openWebCall } from '../../../modules/calls/index.js';
import { requireActiveAssistant } from '../../../modules/assistants/index.js';
import type { StreamTokens } from '../../../lib/stream-token.js';

// A browser call without LiveKit: the call row, and a page link carrying a token that lets exactly that browser send
// its microphone to this call over the built-in WebSocket.

export async function createBrowserCall(
  prisma: PrismaClient,
  tokens: StreamTokens,
  baseUrl: string,
  organizationId: number,
  input: { assistant_id: number; welcome_message?: string | undefined; variables?: Record<string, string> | undefined; draft?: boolean },
  /** The 503 to answer once the request is known good, when no worker in this process can run the call. */
  unavailable?: AppError,
) {
  const assistant = await requireActiveAssistant(prisma, organizationId, input.assistant_id);
  // Without a worker in this process the request is still checked in full; only a call that would be created gets the 503.
  if (unavailable) throw unavailable;
  const { callSid } = await openWebCall(prisma, {
    organizationId,
    assistantId: assistant.id,
    transport: 'browser',
    welcomeMessage: input.welcome_message ?? null,
    variables: input.variables ?? {},
    assistantDraft: input.draft === true,
  });
  return browserCallLinks(tokens, baseUrl, callSid);
}

/**
 * The page and socket links of a built-in browser call, each carrying the token that binds it to the call; the token
 * is good for `ttlSeconds` (the tokens' own, unless told: a widget's call has a shorter window to join).
 */
export function browserCallLinks(tokens: StreamTokens, baseUrl: string, callSid: string, ttlSeconds = tokens.ttlSeconds) {
  const token = tokens.sign(callSid, Date.now(), ttlSeconds);
  const query = `token=${encodeURIComponent(token)}`;
  return {
    call_sid: callSid,
    page_url: `${baseUrl}/call/${callSid}?${query}`,
    websocket_url: `${baseUrl.replace(/^http/, 'ws')}/call/${callSid}/audio?${query}`,
    token,
    expires_at: new Date(Date.now() + ttlSeconds * 1000).toISOString(),
  };
}
