import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { deletedIdentityError, isDeletedIdentityError } from './deleted-identity.js';
import { HttpError } from './errors.js';
import { AppError, ValidationFailed, type ErrorCode, type ErrorKind } from '../../lib/errors.js';
import { isDatabaseUnavailable } from '../../prisma/unavailable.js';

/** Seconds a client is asked to wait when the database is unreachable: a restart or a failover takes a few. */
export const DATABASE_RETRY_AFTER_S = 5;

export interface ErrorBody {
  success: false;
  message: string;
  code: string;
  [key: string]: unknown;
}

/** The one mapping of error kinds (lib/errors.ts) to HTTP statuses. */
export const STATUS_OF: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  timeout: 408,
  conflict: 409,
  too_large: 413,
  uri_too_long: 414,
  unsupported: 415,
  range: 416,
  headers_too_large: 431,
  invalid_input: 422,
  rate_limited: 429,
  internal: 500,
  upstream: 502,
  unavailable: 503,
};

function send(reply: FastifyReply, status: number, code: ErrorCode, message: string, extra?: Record<string, unknown>) {
  const body: ErrorBody = { success: false, message, code, ...extra };
  return reply.status(status).send(body);
}

// Fastify's own 4xx errors, renamed to stable codes and plain sentences.
const FASTIFY_ERRORS: Record<string, [status: number, code: ErrorCode, message: string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'payload_too_large', 'Request body is larger than 1 MiB'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupported_media_type', 'Content-Type must be application/json'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'bad_request', 'Content-Length does not match the body'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [422, 'validation_error', 'Body is empty'],
  FST_ERR_BAD_URL: [400, 'bad_request', 'Malformed URL'],
  FST_ERR_MAX_PARAM_LENGTH: [414, 'uri_too_long', 'A path segment is longer than 200 characters'],
  FST_ERR_ASYNC_CONSTRAINT: [400, 'bad_request', 'Malformed request'],
};

/**
 * Errors the router raises before a request reaches a route (a path that does not decode, a path segment over the
 * router's limit): Fastify answers them in its own shape unless given this, the `frameworkErrors` option.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const known = FASTIFY_ERRORS[error.code];
  if (known) return send(reply, known[0], known[1], known[2]);
  request.log.error({ err: error }, 'unhandled framework error');
  return send(reply, 500, 'internal_error', 'Internal server error');
}

/** A body over the route's own limit (1 MiB for most, more for imports and documents), named with that limit. */
function tooLarge(request: FastifyRequest, reply: FastifyReply) {
  const limit = request.routeOptions.bodyLimit ?? 1024 * 1024;
  return send(reply, 413, 'payload_too_large', `Request body is larger than ${sizeInWords(limit)}`, { limit_bytes: limit });
}

function sizeInWords(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}

/** The one place where errors become HTTP responses. Nothing a client sends can make this answer 500. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | Error, request, reply) => {
    // A write by a key whose organisation was deleted while the key was cached: 401 like a revoked key (deleted-identity.ts).
    if (isDeletedIdentityError(error)) error = deletedIdentityError(request);
    if (error instanceof ValidationFailed) {
      return reply.status(422).send({ detail: error.detail });
    }
    if (error instanceof AppError) {
      if (error instanceof HttpError && error.headers) reply.headers(error.headers);
      return send(reply, STATUS_OF[error.kind], error.code, error.message, error.data);
    }
    const fastifyError = error as FastifyError;
    if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return tooLarge(request, reply);
    const known = fastifyError.code ? FASTIFY_ERRORS[fastifyError.code] : undefined;
    if (known) return send(reply, known[0], known[1], known[2]);
    const status = fastifyError.statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return send(reply, status, 'bad_request', fastifyError.message);
    }
    if (isDatabaseUnavailable(error)) {
      // Not the request's fault nor a bug: the database is down or restarting, and the pool reconnects by itself.
      request.log.warn({ err: error }, 'database unreachable');
      reply.header('Retry-After', String(DATABASE_RETRY_AFTER_S));
      return send(reply, 503, 'database_unavailable', 'The database cannot be reached right now; try again shortly');
    }
    request.log.error({ err: error }, 'unhandled error');
    return send(reply, 500, 'internal_error', 'Internal server error');
  });

  app.setNotFoundHandler((_request, reply) => send(reply, 404, 'not_found', 'Not found'));
}
