// IANA zone names as the runtime's ICU knows them, keyed in lower case so `america/new_york` finds its real spelling.
const CANONICAL = new Map([...Intl.supportedValuesOf('timeZone'), 'UTC'].map((zone) => [zone.toLowerCase(), zone]));

/**
 * The IANA zone name in its usual spelling, or null when it is not a zone. Links such as `US/Eastern` and
 * `Europe/Kyiv` are accepted as written; UTC offsets such as `+01:00` are refused because they do not follow
 * daylight saving time, which is what a zone on a contact is for (calling hours).
 */
export function canonicalTimeZone(text: string): string | null {
  const name = text.trim();
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(name)) return null;
  const known = CANONICAL.get(name.toLowerCase());
  if (known) return known;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return name;
  } catch {
    return null;
  }
}
