import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import type { PrismaClient } from '../../../prisma/client.js';
import type { CallAudioRunner } from '../../../modules/calls/audio-runner.js';
import { openInboundCall } from '../../../modules/calls/lifecycle.js';
import { publicBaseUrl } from '../../http/public-url.js';
import type { StreamTokens } from '../stream-token.js';
import { MEDIA_STREAM_PATH } from './socket.js';
import { connectStreamTwiml, NOT_TAKEN_TWIML, REJECT_TWIML, UNAVAILABLE_TWIML } from './twiml.js';
import { validTwilioSignature } from './twilio-signature.js';

// The carrier POSTs its voice webhook when a managed number rings; the TwiML answer connects the call's audio to our
// Media Streams socket, with a token that binds the socket to the call opened here.

export const VOICE_WEBHOOK_PATH = '/telephony/twilio/voice';

export interface MediaStreamRouteOptions {
  prisma: PrismaClient;
  runner: CallAudioRunner | undefined;
  tokens: StreamTokens;
  /** The carrier account's auth token; the webhook is refused without it (anyone could otherwise start calls). */
  authToken: string | undefined;
  /** The service's public base URL as the carrier reaches it (signatures cover the full URL); default: from the request. */
  publicUrl: string | undefined;
  logger: FastifyBaseLogger;
}

export const mediaStreamRoutes: FastifyPluginAsync<MediaStreamRouteOptions> = async (scope, options) => {
  const { prisma, runner, tokens, logger } = options;
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  // No API key: the carrier signs the webhook with the account's auth token, and the handler checks that signature.
  scope.post(VOICE_WEBHOOK_PATH, { schema: { hide: true }, config: { auth: 'signature' } }, async (request, reply) => {
    reply.type('text/xml; charset=utf-8');
    if (!options.authToken || !runner) return reply.status(503).send(UNAVAILABLE_TWIML);
    const params = (request.body ?? {}) as Record<string, string>;
    const base = publicBaseUrl(request, options.publicUrl);
    if (!validTwilioSignature(options.authToken, `${base}${request.url}`, params, request.headers['x-twilio-signature'] as string | undefined)) {
      return reply.status(403).send(REJECT_TWIML);
    }
    const opened = await openInboundCall(prisma, { toNumber: params.To ?? '', fromNumber: params.From ?? null, transport: 'media_stream', providerCallSid: params.CallSid ?? null });
    if ('rejected' in opened) {
      logger.warn({ to: params.To, reason: opened.rejected }, 'inbound call refused');
      return reply.send(NOT_TAKEN_TWIML);
    }
    return reply.send(connectStreamTwiml(`${base.replace(/^http/, 'ws')}${MEDIA_STREAM_PATH}`, { token: tokens.sign(opened.call.callSid) }));
  });
};
