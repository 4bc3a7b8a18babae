import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../lib/errors.js';
import { originAllowed } from '../../modules/widgets/index.js';

// CORS for the widget's public routes: a page may read an answer only when its origin is one of the key's, named
// exactly (never `*`, never a reflected origin the key does not list). Every answer varies by Origin, so no cache
// hands one page's answer to another. No credentials: the widget sends no cookies, the key is in the path.

/** How long a browser may reuse a preflight's answer. */
const PREFLIGHT_MAX_AGE_S = 600;

/** Sets the CORS headers for an allowed origin, or throws `origin_not_allowed` (403, without them). */
export function allowWidgetOrigin(request: FastifyRequest, reply: FastifyReply, allowedOrigins: readonly string[]): void {
  reply.header('vary', 'Origin');
  const origin = request.headers.origin;
  if (origin === undefined || !originAllowed(allowedOrigins, origin)) {
    throw new AppError(
      'origin_not_allowed',
      origin === undefined
        ? 'Widget requests come from a page: this one carries no Origin header'
        : `Pages on ${origin.slice(0, 200)} may not use this widget key: add the origin to the key's allowed origins`,
    );
  }
  reply.header('access-control-allow-origin', origin);
  // Read by the widget: how long to wait after a refusal.
  reply.header('access-control-expose-headers', 'Retry-After');
}

/** A preflight's answer for an allowed origin: the methods and the one header the widget sends. */
export function answerPreflight(reply: FastifyReply, methods: string): FastifyReply {
  return reply
    .status(204)
    .header('access-control-allow-methods', methods)
    .header('access-control-allow-headers', 'content-type')
    .header('access-control-max-age', String(PREFLIGHT_MAX_AGE_S))
    .send();
}
