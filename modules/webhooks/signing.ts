import crypto from 'node:crypto';

// Standard Webhooks signing (https://www.standardwebhooks.com): the signed content is `${id}.${timestamp}.${body}`,
// the key is the base64-decoded part of the secret after `whsec_`, the MAC is HMAC-SHA256, and the header carries
// space-separated `v1,<base64>` entries so that two secrets can sign at once while one is being rotated out.

export const SECRET_PREFIX = 'whsec_';
/** 32 bytes = 256 bits, the HMAC-SHA256 block-size-safe key length Standard Webhooks recommends (24..64 bytes). */
const SECRET_BYTES = 32;
/** How many characters of a secret a response may show after creation: the `whsec_` prefix and 4 more, to tell secrets apart. */
const VISIBLE_SECRET_CHARS = SECRET_PREFIX.length + 4;

/**
 * Binds a stored (sealed) signing secret to its endpoint's organisation: copied into another organisation's endpoint, it
 * does not open. Secrets are sealed with the SecretBox of lib/secret-box.ts (SECRETS_KEY).
 */
export const secretContext = (organizationId: number) => `webhook-secret:${organizationId}`;

export function generateSecret(): string {
  return SECRET_PREFIX + crypto.randomBytes(SECRET_BYTES).toString('base64');
}

/** The part of a secret that may be shown after creation. */
export function secretHint(secret: string): string {
  return `${secret.slice(0, VISIBLE_SECRET_CHARS)}…`;
}

function keyOf(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Buffer.from(encoded, 'base64');
}

/** One `v1,<base64>` signature of a message. `timestampS` is in seconds since the epoch, as the header carries it. */
export function sign(secret: string, id: string, timestampS: number, body: string): string {
  const mac = crypto.createHmac('sha256', keyOf(secret)).update(`${id}.${timestampS}.${body}`).digest('base64');
  return `v1,${mac}`;
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The three Standard Webhooks headers for one attempt, signed by every secret given (current first). */
export function signedHeaders(secrets: readonly string[], id: string, timestampS: number, body: string): SignedHeaders {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampS),
    'webhook-signature': secrets.map((s) => sign(s, id, timestampS, body)).join(' '),
  };
}

/**
 * What a receiver does: true when any `v1` signature in the header matches `secret`, compared in constant time, and
 * the timestamp is within `toleranceS` of now (Standard Webhooks suggests 5 minutes against replays).
 */
export function verify(
  secret: string,
  headers: { id: string; timestamp: string; signature: string },
  body: string,
  options: { nowS?: number; toleranceS?: number } = {},
): boolean {
  const timestampS = Number(headers.timestamp);
  if (!Number.isInteger(timestampS)) return false;
  const nowS = options.nowS ?? Math.floor(Date.now() / 1000);
  if (Math.abs(nowS - timestampS) > (options.toleranceS ?? 300)) return false;
  const expected = Buffer.from(sign(secret, headers.id, timestampS, body));
  return headers.signature.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && crypto.timingSafeEqual(given, expected);
  });
}
