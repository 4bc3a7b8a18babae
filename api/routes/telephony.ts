import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { PrismaClient } from '../../prisma/client.js';
import { HttpError } from '../http/errors.js';
import { AppError } from '../../lib/errors.js';
import { commonErrors, envelope, ErrorResponse } from '../schemas/common.js';
import {
  createLiveKitWebCall,
  type Dialler,
  IdempotencyHeaders,
  InitiateCall,
  initiateCall,
  InitiateCallResponse,
  type LiveKitTelephony,
  WebCall,
  WebCallCreate,
} from '../../modules/telephony/index.js';

export interface TelephonyRouteOptions {
  prisma: PrismaClient;
  /** Present when LiveKit is configured. */
  telephony?: LiveKitTelephony | undefined;
  dialler?: Dialler | undefined;
  /** Why calls from carrier connections cannot be placed by this deployment (no PUBLIC_URL, no local agent); undefined when they can. */
  carrierUnavailable?: string | undefined;
}

function liveKitRequired(what: string): HttpError {
  return new AppError('telephony_unavailable', `${what} need a LiveKit server: set LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET`);
}

export const telephonyRoutes: FastifyPluginAsyncZod<TelephonyRouteOptions> = async (app, { prisma, telephony, dialler, carrierUnavailable }) => {
  app.post('/telephony/calls/initiate', {
    schema: {
      tags: ['Calls'],
      summary: 'Place an outbound call',
      description:
        'Queues the call and returns before anyone answers: HTTP 200 does not mean the callee picked up. The end of the call ' +
        'arrives as the `call.completed` event, matched on `call_sid`, or by reading `GET /api/calls/{call_sid}`. One request ' +
        "dials one person, through the calling number's connection: a SIP trunk dials through LiveKit, a carrier connection " +
        "(`twilio`) through the carrier's REST API with the audio on its Media Streams. With an `Idempotency-Key` header a retried request returns the first call instead of dialling again. " +
        'The organisation has calls under way at once up to its `max_concurrent_calls` (organisation settings, default 10; ' +
        'inbound, outbound and web together); past it, 429 `concurrency_limit` with the `limit` and the `active` count.',
      headers: IdempotencyHeaders,
      body: InitiateCall,
      response: {
        200: InitiateCallResponse,
        400: ErrorResponse.describe('No number to call from, or no assistant to talk'),
        429: ErrorResponse.describe('As many calls under way as `max_concurrent_calls` allows (`limit`, `active`), or a request rate limit'),
        503: ErrorResponse.describe(
          "The calling number's path is not configured: no LiveKit server for a SIP trunk, no PUBLIC_URL or local agent for a carrier connection (answered only to a request that passed every other check)",
        ),
        ...commonErrors,
      },
    },
    handler: async (request) => {
      // Without a path for the number's connection the request is still checked in full; only a call that would be queued gets the 503.
      const unavailable = {
        sip: telephony ? undefined : liveKitRequired('Outbound calls through a SIP trunk'),
        carrier:
          carrierUnavailable === undefined
            ? undefined
            : new AppError('telephony_unavailable', `Outbound calls through a carrier connection ${carrierUnavailable}`),
      };
      const result = await initiateCall(prisma, request.identity.organizationId, request.body, request.headers['idempotency-key'], { unavailable });
      if (result.created) dialler?.wake();
      return {
        success: true as const,
        message: result.created ? 'Call queued' : 'Call already queued by an earlier request with this key',
        call_sid: result.call_sid,
        provider_call_sid: result.provider_call_sid,
      };
    },
  });

  // The LiveKit web call (transport `web`): a room and a token for LiveKit's client SDKs. Without LiveKit, the built-in
  // browser call (transport `browser`, api/transports/browser/routes.ts) serves browsers instead.
  app.post('/web-calls', {
    schema: {
      tags: ['Calls'],
      summary: 'Start a browser call',
      description:
        'Creates the call and a LiveKit room with the assistant dispatched into it, and returns a participant token that joins ' +
        'only that room, for a front end to connect with a LiveKit client SDK.',
      body: WebCallCreate,
      response: { 201: envelope(WebCall), 503: ErrorResponse.describe('No LiveKit server is configured'), ...commonErrors },
    },
    handler: async (request, reply) => {
      const unavailable = new AppError(
        'telephony_unavailable',
        'Web calls through LiveKit need LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET; without LiveKit, use POST /api/web-calls/browser',
      );
      const data = await createLiveKitWebCall(prisma, telephony, unavailable, request.identity.organizationId, request.body);
      return reply.status(201).send({ success: true as const, message: 'Web call started', data });
    },
  });
};
