// A widget key's allowed origins: exact origins (scheme, host, port), stored in the form browsers send in the Origin
// header (lower-case host, default port dropped, IDN in punycode), so a request's origin is allowed by a plain string
// comparison. No wildcard and no path: an origin is the unit browsers isolate pages by, and nothing finer can be
// checked from a request. Plain http is taken only for loopback hosts, for local development: a page served over http
// elsewhere is not a secure context, so its browser would not open the microphone anyway.

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost']);
/**
 * A DNS name (letters, digits, hyphens, dots) or an IPv4 address. Not an IPv6 literal: a Content-Security-Policy source
 * cannot name one, so the call page could not be framed from it (frame-ancestors, api/transports/browser/call-page.ts).
 */
const HOST = /^[a-z0-9-]+(?:\.[a-z0-9-]+)*$/;

export type OriginCheck = { origin: string } | { error: string };

/** The origin `text` names, normalised, or why it is not one. */
export function parseOrigin(text: string): OriginCheck {
  const trimmed = text.trim();
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return { error: 'Must be an origin such as https://shop.example.com' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { error: 'Must start with https:// (or http:// for a loopback address)' };
  if (url.username || url.password) return { error: 'Must not carry a user name or password' };
  // `new URL` reads "https://a.com?x" as the origin with a query: the text itself must end at the host (or one slash).
  const afterHost = trimmed.slice(trimmed.indexOf('//') + 2).replace(/^[^/?#]*/, '');
  if (afterHost !== '' && afterHost !== '/') return { error: 'Must be an origin only (scheme, host and port), without a path, query or fragment' };
  if (!HOST.test(url.hostname)) return { error: 'The host must be a domain name or an IPv4 address, without wildcards' };
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
    return { error: 'http:// is only for 127.0.0.1 or localhost: a page elsewhere needs https to use the microphone' };
  }
  return { origin: url.origin };
}

/** Whether the Origin header of a request names one of `allowed` (stored normalised by parseOrigin). */
export function originAllowed(allowed: readonly string[], origin: string | undefined): boolean {
  return origin !== undefined && allowed.includes(origin);
}
