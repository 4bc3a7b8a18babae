import crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PrismaClient } from '../../prisma/client.js';
import { type CallAudioRunner, WIDGET_JOIN_WINDOW_MS } from '../../modules/calls/index.js';
import { AppError } from '../../lib/errors.js';
import type { StreamTokens } from '../../lib/stream-token.js';
import {
  findLiveWidgetKey,
  type LiveWidgetKey,
  openWidgetCall,
  WidgetCall,
  WidgetCallCreate,
  WidgetPublicParams,
  WidgetSettings,
} from '../../modules/widgets/index.js';
import { HttpError } from '../http/errors.js';
import { publicBaseUrl } from '../http/public-url.js';
import { envelope, ErrorResponse, HTTPValidationError } from '../schemas/common.js';
import { browserCallLinks } from '../transports/browser/create-call.js';
import { allowWidgetOrigin, answerPreflight } from './cors.js';
import { WidgetCallLimit } from './call-limit.js';

// The website widget's public side (docs/widget.md): the script a page loads, the key's button settings, and the call
// its button starts. No API key: the page names its widget key, a public string, and the key's allowed origins, its
// per-minute limit and its concurrency cap bound what any page can do with it. The call runs on the built-in browser
// transport, in the call page the widget frames (api/transports/browser/call-page.ts lets exactly the key's origins
// frame it).

const SCRIPT = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'assets', 'widget.js'));
const SCRIPT_ETAG = `"${crypto.createHash('sha256').update(SCRIPT).digest('base64url').slice(0, 16)}"`;
/** Pages cache the script for minutes, not days: a fix reaches every site within that. */
const SCRIPT_MAX_AGE_S = 300;
/** As the built-in browser call's own route: the load is read over the last seconds. */
const AT_CAPACITY_RETRY_AFTER_S = 5;

const DEFAULT_LABEL = 'Talk to us';
const DEFAULT_COLOR = '#2f5bea';

export interface WidgetRouteOptions {
  prisma: PrismaClient;
  runner: CallAudioRunner | undefined;
  tokens: StreamTokens;
  publicUrl: string | undefined;
}

const tags = ['Website widget'];
const publicErrors = {
  401: ErrorResponse.describe('`widget_key_invalid`: no live widget key has this public key (unknown or revoked)'),
  403: ErrorResponse.describe("`origin_not_allowed`: the request's Origin is not one of the key's allowed origins"),
  422: HTTPValidationError.describe('Validation error'),
};

export const widgetRoutes: FastifyPluginAsyncZod<WidgetRouteOptions> = async (app, { prisma, runner, tokens, publicUrl }) => {
  const limit = new WidgetCallLimit(prisma);

  /** The live key the path names; every answer, a refusal too, varies by Origin, so no cache shares one between pages. */
  async function keyOf(request: FastifyRequest, reply: FastifyReply): Promise<LiveWidgetKey> {
    reply.header('vary', 'Origin');
    const key = await findLiveWidgetKey(prisma, (request.params as { widget_key: string }).widget_key);
    if (!key) throw new AppError('widget_key_invalid', 'This widget key is unknown or revoked');
    return key;
  }

  app.get('/widget.js', { config: { auth: 'public' }, schema: { hide: true } }, async (request, reply) => {
    reply
      .header('etag', SCRIPT_ETAG)
      .header('cache-control', `public, max-age=${SCRIPT_MAX_AGE_S}`)
      .header('x-content-type-options', 'nosniff')
      // Loaded by pages of other sites, those that isolate themselves (COEP) included.
      .header('cross-origin-resource-policy', 'cross-origin');
    if (request.headers['if-none-match'] === SCRIPT_ETAG) return reply.status(304).send();
    return reply.type('text/javascript; charset=utf-8').send(SCRIPT);
  });

  // Preflights: a page's browser asks before it sends JSON. Answered for the key's origins alone.
  app.options('/api/widget/:widget_key', { config: { auth: 'public' }, schema: { hide: true, params: WidgetPublicParams } }, async (request, reply) => {
    allowWidgetOrigin(request, reply, (await keyOf(request, reply)).allowedOrigins);
    return answerPreflight(reply, 'GET');
  });
  app.options('/api/widget/:widget_key/calls', { config: { auth: 'public' }, schema: { hide: true, params: WidgetPublicParams } }, async (request, reply) => {
    allowWidgetOrigin(request, reply, (await keyOf(request, reply)).allowedOrigins);
    return answerPreflight(reply, 'POST');
  });

  app.get('/api/widget/:widget_key', {
    config: { auth: 'public' },
    schema: {
      tags,
      security: [],
      summary: "A widget key's button settings",
      description:
        "What the widget's script shows: the button's label and colour and the panel's greeting. Public (no API key): answered, with CORS headers, only to a page on one of the key's allowed origins.",
      params: WidgetPublicParams,
      response: { 200: envelope(WidgetSettings), ...publicErrors },
    },
    handler: async (request, reply) => {
      const key = await keyOf(request, reply);
      allowWidgetOrigin(request, reply, key.allowedOrigins);
      // Read anew on each page view: a revoked key or a changed origin list holds at once.
      reply.header('cache-control', 'no-cache');
      return {
        success: true as const,
        message: 'Widget settings retrieved',
        data: { button_label: key.buttonLabel ?? DEFAULT_LABEL, button_color: key.buttonColor ?? DEFAULT_COLOR, greeting: key.greeting },
      };
    },
  });

  app.post('/api/widget/:widget_key/calls', {
    config: { auth: 'public' },
    schema: {
      tags,
      security: [],
      summary: "Start a call from a widget's button",
      description:
        "Public (no API key): a page on one of the key's allowed origins starts a browser call to the key's assistant, on the built-in transport. " +
        "Limited by the key's `rate_limit_per_minute` (429 `rate_limited`, Retry-After) and `max_concurrent_calls` (429 `widget_busy`), and by the organisation's own concurrency limit. " +
        'The answer names the call page to frame; the call records the key that started it (`widget_key_id`).',
      params: WidgetPublicParams,
      body: WidgetCallCreate.optional(),
      response: {
        201: envelope(WidgetCall),
        ...publicErrors,
        429: ErrorResponse.describe(
          "The key's calls per minute are spent (`rate_limited`, with Retry-After), or its cap of calls under way is reached (`widget_busy`)",
        ),
        503: ErrorResponse.describe(
          'No agent worker runs calls in this process (`transport_unavailable`), or it is at capacity (`at_capacity`, with Retry-After)',
        ),
      },
    },
    handler: async (request, reply) => {
      const key = await keyOf(request, reply);
      allowWidgetOrigin(request, reply, key.allowedOrigins);
      await limit.admit(key.id, key.rateLimitPerMinute);
      const unavailable = !runner
        ? new AppError('transport_unavailable', 'Widget calls run on the built-in browser transport, which needs the agent worker in this process (npm start)')
        : runner.atCapacity?.()
          ? new HttpError('at_capacity', 'This service is running as many calls as it can take right now; try again shortly', undefined, {
              'Retry-After': String(AT_CAPACITY_RETRY_AFTER_S),
            })
          : undefined;
      const { callSid } = await openWidgetCall(prisma, key, unavailable);
      // The panel opens the page at once: its token is good for the widget's join window, after which the sweep ends the call.
      const links = browserCallLinks(tokens, publicBaseUrl(request, publicUrl), callSid, WIDGET_JOIN_WINDOW_MS / 1000);
      return reply
        .status(201)
        .send({ success: true as const, message: 'Widget call created', data: { call_sid: callSid, page_url: links.page_url, expires_at: links.expires_at } });
    },
  });
};
