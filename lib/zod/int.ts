import { z } from 'zod';

export const INT_MESSAGE = 'Input should be a valid integer';

/** A safe integer whose type error says "integer" (zod's own says "number"), so a 422 can name it `int_type`. */
export function int() {
  return z.int({ error: (issue) => (issue.code === 'invalid_type' ? INT_MESSAGE : undefined) });
}
