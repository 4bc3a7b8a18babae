/**
 * The stored form of an email address: trimmed and lower-cased, local part included. RFC 5321 allows a mailbox to
 * treat `John` and `john` as different people, but no mainstream provider does, and a sync from another system that
 * capitalises differently must find the same contact rather than create a second one. Dots and `+tags` are kept:
 * removing them is one provider's rule and would merge distinct people at every other provider.
 */
export function normalizeEmail(text: string): string {
  return text.trim().normalize('NFC').toLowerCase();
}
