import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { z } from 'zod';

// The phone number field of a request, for every request that names a number to dial or to filter by: one schema, so
// all of them accept and refuse the same texts with the same message.

/**
 * A phone number in strict E.164 (`+` and 8 to 15 digits) that is a possible number for its country. No national
 * formats here: a number that dials a person must not depend on a default region.
 */
export const e164 = z
  .string()
  .trim()
  .refine((s) => /^\+[1-9]\d{7,14}$/.test(s) && (parsePhoneNumberFromString(s)?.isPossible() ?? false), {
    message: 'Value is not a valid E.164 phone number (e.g. +14155550123)',
    params: { type: 'value_error' },
  })
  .meta({ type: 'string', format: 'e164', examples: ['+14155550123'] });
