import crypto from 'node:crypto';

// Session cookies, reset links and invitation links carry 256 random bits. With that much entropy a fast SHA-256 is a
// safe way to store them (no guessing is feasible, so a slow hash would only cost every request), and a lookup is one
// indexed equality on the hash.

/** A new secret for a cookie or a link: 43 base64url characters. */
export function newToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return crypto.hash('sha256', token, 'hex');
}
