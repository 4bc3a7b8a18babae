// The full metadata set: the default "min" set accepts any number of a plausible length, the "max" set knows each
// region's allocated ranges, so a typo such as a missing digit is caught at the door instead of at dialling time.
import { isSupportedCountry, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';

export interface NormalizedPhone {
  /** E.164, e.g. `+16502530000`. */
  e164: string;
  /** Digits after "ext.", "x" or ";ext=", kept apart because they are dialled after the call connects. */
  extension: string | null;
}

/** True for an ISO 3166-1 alpha-2 code that has a phone numbering plan (e.g. `US`, `GB`; not `XX`). */
export function isPhoneRegion(code: string): code is CountryCode {
  return /^[A-Z]{2}$/.test(code) && isSupportedCountry(code);
}

/**
 * Reads a phone number as people write it and returns it in E.164, or null when it is not a valid number.
 * A number without a country code is read in `defaultRegion` (the organisation's setting). A leading `00` is the
 * international prefix of most of the world, so it is read as `+` whatever the region, which lets a US-based
 * organisation accept `0044 20 ...` written by a European colleague.
 */
export function normalizePhone(text: string, defaultRegion: string): NormalizedPhone | null {
  const trimmed = text.trim();
  // 3 digits is the shortest anything callable gets; 64 characters is far beyond any number with an extension.
  if (trimmed.length < 3 || trimmed.length > 64) return null;
  const international = trimmed.replace(/^00\s*/, '+');
  const region = isPhoneRegion(defaultRegion) ? defaultRegion : undefined;
  const parsed = parsePhoneNumberFromString(international, region ? { defaultCountry: region } : {});
  if (!parsed || !parsed.isValid()) return null;
  return { e164: parsed.number, extension: parsed.ext ?? null };
}

/** The digits of a search text, when it looks like (part of) a phone number: `(650) 253` -> `650253`. */
export function phoneDigitsOf(text: string): string | null {
  if (!/^[\s\d()+\-./]+$/.test(text)) return null;
  const digits = text.replace(/\D/g, '');
  return digits.length >= 3 ? digits : null;
}
