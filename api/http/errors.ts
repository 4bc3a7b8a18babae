import { AppError, type ErrorCode } from '../../lib/errors.js';

// Refusals of the HTTP layer itself (authentication, rate limits, timeouts) that must also set response headers.

export class HttpError extends AppError {
  constructor(
    code: ErrorCode,
    message: string,
    data?: Record<string, unknown>,
    /** Response headers: a Bearer challenge, Retry-After. */
    readonly headers?: Record<string, string>,
  ) {
    super(code, message, data);
    this.name = 'HttpError';
  }
}
