import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isLoopbackHost, publicBaseUrl } from '../http/public-url.js';

// Dashboard cookies. Where the page is a secure context (served over TLS, or on loopback, which browsers treat as
// secure) they carry the `__Host-` prefix, which browsers accept only with Secure, Path=/ and no Domain: no other
// site, not even a sibling subdomain, can set or overwrite them, which is what makes the session and the anti-forgery
// cookie safe from fixation. Served over plain HTTP elsewhere (a private network without TLS), the prefix cannot be
// had and the cookies go without it and without Secure; docs/dashboard.md says to serve the dashboard over TLS.

export function isSecureContext(request: FastifyRequest, publicUrl: string | undefined): boolean {
  const base = publicBaseUrl(request, publicUrl);
  if (base.startsWith('https:')) return true;
  return isLoopbackHost(base.replace(/^http:\/\//, ''));
}

export type CookieKind = 'session' | 'csrf';

export function cookieName(kind: CookieKind, secure: boolean): string {
  return secure ? `__Host-${kind}` : kind;
}

export function readCookie(request: FastifyRequest, kind: CookieKind, secure: boolean): string | undefined {
  const value = request.cookies[cookieName(kind, secure)];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The session cookie: HttpOnly (no script reads it), SameSite=Lax (a link from a mail into the dashboard arrives signed
 * in; forms from other sites carry no session, and every form needs its anti-forgery token besides), expiring with
 * the session.
 */
export function setSessionCookie(reply: FastifyReply, token: string, expiresAt: Date, secure: boolean): void {
  reply.setCookie(cookieName('session', secure), token, { path: '/', httpOnly: true, secure, sameSite: 'lax', expires: expiresAt });
}

export function clearSessionCookie(reply: FastifyReply, secure: boolean): void {
  reply.clearCookie(cookieName('session', secure), { path: '/', httpOnly: true, secure, sameSite: 'lax' });
}

/** The anti-forgery secret of a visitor not signed in yet (sign-in, setup, reset and invitation forms): SameSite=Strict. */
export function setCsrfCookie(reply: FastifyReply, secret: string, secure: boolean): void {
  reply.setCookie(cookieName('csrf', secure), secret, { path: '/', httpOnly: true, secure, sameSite: 'strict' });
}
