// A voice's description as the builder shows it after its name: a few words on accent and character, from whatever
// labels the vendor gives, in the order given, each said once, short enough for one line of a select.

const MAX_DESCRIPTION = 90;

/** The words that are there, each once (case aside), joined and cut to one line; the first capitalised. */
export function describeVoice(parts: readonly unknown[]): string {
  const seen = new Set<string>();
  const words: string[] = [];
  for (const part of parts) {
    if (typeof part !== 'string') continue;
    const word = part.replace(/[_\s]+/g, ' ').trim();
    if (word === '' || seen.has(word.toLowerCase())) continue;
    seen.add(word.toLowerCase());
    words.push(word);
  }
  const text = words.join(', ');
  const line = text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1).trimEnd()}…` : text;
  return line.charAt(0).toUpperCase() + line.slice(1);
}

/** A URL a preview may be fetched from: http or https, nothing else. */
export function previewUrlOf(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 2048) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** Own voices first, then by name: how the builder groups them. */
export function byGroupThenName(a: { own: boolean; name: string }, b: { own: boolean; name: string }): number {
  return Number(b.own) - Number(a.own) || a.name.localeCompare(b.name, 'en', { sensitivity: 'base' });
}
