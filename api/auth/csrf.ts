import crypto from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../lib/errors.js';

// Every state-changing request of a session, and every form a visitor posts, carries an anti-forgery token: the
// `_csrf` field of a form or the `X-CSRF-Token` header of a script's request. The token is an HMAC of a secret only
// this browser holds in an HttpOnly cookie (the session token once signed in, a visitor secret before), so another
// site can neither read nor compute it, and a new session (a sign-in) makes earlier tokens worthless. Requests a
// browser marks as coming from another site are refused before the token is even looked at.

export function csrfTokenFor(secret: string): string {
  return crypto.createHmac('sha256', secret).update('csrf').digest('base64url');
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function isStateChanging(request: FastifyRequest): boolean {
  return !SAFE_METHODS.has(request.method);
}

function sentToken(request: FastifyRequest): string | undefined {
  const header = request.headers['x-csrf-token'];
  if (typeof header === 'string' && header !== '') return header;
  const body = request.body as Record<string, unknown> | null | undefined;
  const field = body && typeof body === 'object' ? body._csrf : undefined;
  return typeof field === 'string' ? field : undefined;
}

/** Throws `csrf_failed` unless the request carries the token of `secret` and does not come from another site. */
export function verifyCsrf(request: FastifyRequest, secret: string | undefined): void {
  const site = request.headers['sec-fetch-site'];
  if (site === 'cross-site') throw new AppError('csrf_failed', 'Refused: this request came from another site');
  const sent = sentToken(request);
  if (!secret || !sent) throw new AppError('csrf_failed', 'The form expired or came from elsewhere: reload the page and try again');
  const expected = Buffer.from(csrfTokenFor(secret));
  const given = Buffer.from(sent);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) {
    throw new AppError('csrf_failed', 'The form expired or came from elsewhere: reload the page and try again');
  }
}
