// Vendor keys stored in settings are write-only: responses show a mask, and a mask sent back unchanged keeps the stored
// key, so a client can read an assistant, edit one field and write it back without erasing its keys.

const MASK = '****';

export function maskSecret(secret: string): string {
  return secret.length > 12 ? `${MASK}${secret.slice(-4)}` : MASK;
}

export function isMaskOf(candidate: string, secret: string): boolean {
  return candidate === maskSecret(secret);
}
