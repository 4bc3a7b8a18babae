import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PrismaClient } from '../../../prisma/client.js';
import type { CallAudioRunner } from '../../../modules/calls/index.js';
import { AppError } from '../../../lib/errors.js';
import { WebCallCreate } from '../../../modules/telephony/index.js';
import { publicBaseUrl } from '../../http/public-url.js';
import { commonErrors, envelope, ErrorResponse } from '../../schemas/common.js';
import type { StreamTokens } from '../../../lib/stream-token.js';
import { createBrowserCall } from './create-call.js';
import { HttpError } from '../../http/errors.js';

// The built-in browser call (transport `browser`), for when there is no LiveKit: the call and a link to the page this
// process serves, whose socket carries the audio. The LiveKit web call (`POST /api/web-calls`) is in routes/telephony.ts.

export const BuiltInBrowserCall = z
  .object({
    call_sid: z.string(),
    page_url: z.string().describe('Open in a browser to talk; carries the token'),
    websocket_url: z.string().describe('For a custom front end: 16 kHz mono 16-bit PCM both ways, JSON text frames for events'),
    token: z.string(),
    expires_at: z.iso.datetime().describe('The page must connect before this; the call itself may last longer'),
  })
  .meta({ id: 'BrowserCall' });

export interface BuiltInBrowserCallRouteOptions {
  prisma: PrismaClient;
  runner: CallAudioRunner | undefined;
  /** Signs the page's token; the socket verifies it with the same tokens. */
  tokens: StreamTokens;
  /** PUBLIC_URL, which the page and socket links start with; default: from the request. */
  publicUrl: string | undefined;
}

/** How soon a refused browser call may be tried again: the load is read over the last seconds. */
const AT_CAPACITY_RETRY_AFTER_S = 5;

export const builtInBrowserCallRoutes: FastifyPluginAsyncZod<BuiltInBrowserCallRouteOptions> = async (app, { prisma, runner, tokens, publicUrl }) => {
  app.post('/web-calls/browser', {
    schema: {
      tags: ['Calls'],
      summary: 'Start a browser call on the built-in transport',
      description: 'Without LiveKit: creates the call and returns a page link that talks to the assistant from a browser.',
      body: WebCallCreate,
      response: {
        201: envelope(BuiltInBrowserCall),
        503: ErrorResponse.describe(
          'No agent worker runs calls in this process (`transport_unavailable`), or it is at capacity (`at_capacity`, with Retry-After)',
        ),
        ...commonErrors,
      },
    },
    handler: async (request, reply) => {
      const unavailable = !runner
        ? new AppError('transport_unavailable', 'Browser calls on the built-in transport need the agent worker in this process (npm start)')
        : runner.atCapacity?.()
          ? // Refused before the call exists: one more call on a saturated process would make every call on it worse.
            new HttpError('at_capacity', 'This process is running as many calls as it can take right now; try again shortly', undefined, {
              'Retry-After': String(AT_CAPACITY_RETRY_AFTER_S),
            })
          : undefined;
      const data = await createBrowserCall(prisma, tokens, publicBaseUrl(request, publicUrl), request.identity.organizationId, request.body, unavailable);
      return reply.status(201).send({ success: true as const, message: 'Browser call created', data });
    },
  });
};
