import { z } from 'zod';
import { textInt } from '../../lib/zod/query.js';

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
