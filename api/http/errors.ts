// Errors carry their HTTP status and a stable machine code; api/http/error-handler.ts turns them into responses.

export interface ValidationDetail {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    /** Extra fields for the response body, e.g. which field conflicted. */
    readonly data?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** A 422 in the spec's shape: `{ detail: [{ loc, msg, type }] }`. */
export class ValidationFailed extends Error {
  readonly statusCode = 422;
  constructor(readonly detail: ValidationDetail[]) {
    super(detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; '));
    this.name = 'ValidationFailed';
  }
}

export function notFound(resource: string): HttpError {
  return new HttpError(404, 'not_found', `${resource} not found`);
}
