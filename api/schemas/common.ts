import { z } from 'zod';

// Schemas every route shares: the spec's 422 body, our error body, the envelope and pagination.

export const ValidationErrorItem = z
  .object({
    loc: z.array(z.union([z.string(), z.int()])),
    msg: z.string(),
    type: z.string(),
  })
  .meta({ id: 'ValidationErrorItem' });

export const HTTPValidationError = z.object({ detail: z.array(ValidationErrorItem) }).meta({ id: 'HTTPValidationError' });

export const ErrorResponse = z
  .object({
    success: z.literal(false),
    message: z.string(),
    code: z.string().describe('Stable machine-readable error code, e.g. `unauthorized`, `not_found`, `conflict`'),
  })
  .catchall(z.unknown())
  .meta({ id: 'ErrorResponse' });

/** Largest id Postgres' integer column holds; a bigger id in a path can never name a row. */
export const MAX_ID = 2_147_483_647;
/**
 * An integer that arrives as text (path or query). Text that is not an integer is `int_parsing`, as the spec's
 * validation errors name it; range errors then read like any other integer's.
 */
export function textInt(min: number, max: number) {
  return z
    .string()
    .refine((s) => /^\s*[+-]?\d+\s*$/.test(s), {
      message: 'Input should be a valid integer, unable to parse string as an integer',
      params: { type: 'int_parsing' },
      abort: true,
    })
    .transform(Number)
    .pipe(z.number().min(min).max(max))
    // Documented as what it means, an integer, rather than the text it arrives as.
    .meta({ type: 'integer', minimum: min, maximum: max });
}

export const idParam = textInt(1, MAX_ID);

export const Pagination = z
  .object({
    page: z.int(),
    per_page: z.int(),
    total: z.int(),
    total_pages: z.int(),
  })
  .meta({ id: 'Pagination' });

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;

export const pageQuery = z.object({
  page: textInt(1, 1_000_000).default(1),
  per_page: textInt(1, MAX_PER_PAGE).default(DEFAULT_PER_PAGE),
});

export function envelope<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), message: z.string(), data });
}

export function pagedEnvelope<T extends z.ZodType>(item: T) {
  return z.object({ success: z.literal(true), message: z.string(), data: z.array(item), pagination: Pagination });
}

/** The error responses every authenticated route can give, for OpenAPI. */
export const commonErrors = {
  401: ErrorResponse.describe('Missing, malformed, unknown or revoked API key'),
  422: HTTPValidationError.describe('Validation error'),
} as const;

export function paginationOf(page: number, perPage: number, total: number) {
  return { page, per_page: perPage, total, total_pages: Math.ceil(total / perPage) };
}
