import { z } from 'zod';

// Query parameters as the spec reads them: a repeated filter widens (logical or), different filters narrow (and).

/** A repeated filter carries at most this many values: enough for any hand-built query, bounded for the planner. */
export const MAX_REPEATS = 50;

/**
 * A query parameter that may be repeated; always read as the list of its values (repeats widen: logical or). An error
 * in a single value is located at the parameter, in a repeated one at the parameter and the repetition's index.
 */
export function repeated<T extends z.ZodType>(item: T) {
  return z
    .union([z.string(), z.array(z.string()).max(MAX_REPEATS)])
    .transform((raw, ctx) => {
      const values = Array.isArray(raw) ? raw : [raw];
      const out: z.output<T>[] = [];
      values.forEach((value, i) => {
        const result = item.safeParse(value);
        if (result.success) out.push(result.data);
        else for (const issue of result.error.issues) ctx.addIssue({ ...issue, path: Array.isArray(raw) ? [i, ...issue.path] : issue.path } as never);
      });
      return out;
    })
    .optional();
}

export const textBool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

export const textInstant = z
  .string()
  .refine((s) => /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/.test(s) && !Number.isNaN(Date.parse(s)), {
    message: 'Input should be a valid datetime (ISO 8601 with an offset) or date (YYYY-MM-DD)',
    params: { type: 'datetime_parsing' },
  })
  .transform((s) => new Date(s));

/** Largest id Postgres' integer column holds; a bigger id in a path can never name a row. */
export const MAX_ID = 2_147_483_647;
/**
 * An integer that arrives as text (path or query). Text that is not an integer is `int_parsing`, as the spec's
 * validation errors name it; range errors then read like any other integer's.
 */
export function textInt(min: number, max: number) {
  return (
    z
      .string()
      .refine((s) => /^\s*[+-]?\d+\s*$/.test(s), {
        message: 'Input should be a valid integer, unable to parse string as an integer',
        params: { type: 'int_parsing' },
        abort: true,
      })
      .transform(Number)
      .pipe(z.number().min(min).max(max))
      // Documented as what it means, an integer, rather than the text it arrives as.
      .meta({ type: 'integer', minimum: min, maximum: max })
  );
}

export const idParam = textInt(1, MAX_ID);
