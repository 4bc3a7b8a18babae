import type { SecretBox } from './secret-box.js';

// Vendor keys stored in settings are write-only: responses show a mask, and a mask sent back unchanged keeps the stored
// key, so a client can read an assistant, edit one field and write it back without erasing its keys.

const MASK = '****';

export function maskSecret(secret: string): string {
  return secret.length > 12 ? `${MASK}${secret.slice(-4)}` : MASK;
}

/** Whether a value is what a read shows for a stored key rather than a key. */
export function isMasked(value: string): boolean {
  return value.startsWith(MASK);
}

export function isMaskOf(candidate: string, secret: string): boolean {
  return candidate === maskSecret(secret);
}

/**
 * The form `SecretBox.seal` writes: `v1.` then base64url of a 12-byte IV, a 16-byte tag and the body (38 characters at
 * least). Neither a vendor key nor a `whsec_` webhook secret has it, so a stored value tells which form it is in.
 */
const SEALED = /^v1\.[A-Za-z0-9_-]{38,}$/;

export function isSealed(stored: string): boolean {
  return SEALED.test(stored);
}

/** The stored value sealed, unless it already is (a value written before sealing, in the clear, is sealed now). */
export function sealedForm(secrets: SecretBox, stored: string, context: string): string {
  return isSealed(stored) ? stored : secrets.seal(stored, context);
}

/**
 * The secret behind a stored value: opened when sealed, as it is when written in the clear before sealing; undefined
 * when it does not open (sealed under another SECRETS_KEY, or moved from where it was sealed, or no box to open it).
 */
export function openedForm(secrets: SecretBox | undefined, stored: string, context: string): string | undefined {
  if (!isSealed(stored)) return stored;
  if (!secrets) return undefined;
  try {
    return secrets.open(stored, context);
  } catch {
    return undefined;
  }
}
