import type { IncomingHttpHeaders } from 'node:http';

// Carriers and browsers are handed absolute URLs (TwiML stream URLs, call pages, socket URLs), and a carrier signs the
// URL it requested, so every such URL must be the address the caller used, not the one this process listens on.

/** The first value of a header a chain of proxies may have extended (`a, b`): the one the client's request carried. */
function firstValue(header: string | string[] | undefined): string | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.split(',')[0]?.trim();
  return value === '' ? undefined : value;
}

/**
 * Scheme and host the service is reached at, without a trailing slash: the configured public URL (PUBLIC_URL) when set,
 * else what the request says, a proxy's `X-Forwarded-Proto` and `X-Forwarded-Host` before the connection and `Host`.
 */
export function publicBaseUrl(request: { headers: IncomingHttpHeaders; protocol: string }, configured?: string | undefined): string {
  if (configured) return configured.replace(/\/$/, '');
  const proto = firstValue(request.headers['x-forwarded-proto']) ?? request.protocol;
  const host = firstValue(request.headers['x-forwarded-host']) ?? request.headers.host;
  return `${proto}://${host}`;
}

/** Whether `host` (a Host header: name or address, optional port) is this machine's loopback, which browsers treat as secure. */
export function isLoopbackHost(host: string): boolean {
  return /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d{1,5})?$/i.test(host);
}
