// The service's errors, known by a stable machine code from one registry. A code is never reused for another meaning
// and never renamed: clients branch on it. Each code has a kind; the API turns kinds into HTTP statuses in one place
// (api/http/error-handler.ts), so the code that raises an error knows nothing of HTTP.

/** What went wrong, as a caller must handle it. */
export type ErrorKind =
  | 'invalid' // the request cannot be carried out as asked
  | 'invalid_input' // a field's value is refused (the 422 model)
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict' // the request clashes with the state of what it names
  | 'timeout' // the client was too slow
  | 'too_large'
  | 'headers_too_large'
  | 'uri_too_long'
  | 'unsupported' // a content type the route does not take
  | 'range' // a byte range outside the file
  | 'rate_limited'
  | 'upstream' // a service we depend on failed
  | 'unavailable' // this deployment cannot do it (not configured)
  | 'internal';

export const ERRORS = Object.freeze({
  bad_request: 'invalid',
  assistant_required: 'invalid',
  assistant_inactive: 'invalid',
  phone_number_required: 'invalid',
  validation_error: 'invalid_input',
  unauthorized: 'unauthenticated',
  session_only: 'forbidden',
  /** The signed-in person's role does not allow the action (docs/dashboard.md, "Roles"). */
  role_forbidden: 'forbidden',
  /** A session's form or request came without its anti-forgery token, or from another site. */
  csrf_failed: 'forbidden',
  /** Wrong email or password; which of the two is never said. */
  invalid_credentials: 'unauthenticated',
  /** A passkey that is not registered here, or whose signature or challenge does not check out; which is never said. */
  passkey_invalid: 'unauthenticated',
  /** The organisation would be left without an owner. */
  last_owner: 'conflict',
  /** First-run setup asked for when an organisation exists already. */
  already_set_up: 'conflict',
  /** A password reset or invitation link that is unknown, used or expired. */
  link_invalid: 'invalid',
  not_found: 'not_found',
  conflict: 'conflict',
  /** An organisation's cap on a kind of resource (custom properties, webhook endpoints) is reached. */
  limit_reached: 'conflict',
  option_in_use: 'conflict',
  not_a_select: 'conflict',
  import_conflict: 'conflict',
  endpoint_disabled: 'conflict',
  /** The resource's state does not allow the request (a running campaign started again); the message names the state. */
  invalid_state: 'conflict',
  /** A campaign started with no contact to call. */
  campaign_empty: 'invalid',
  delivery_in_progress: 'conflict',
  request_timeout: 'timeout',
  payload_too_large: 'too_large',
  headers_too_large: 'headers_too_large',
  uri_too_long: 'uri_too_long',
  unsupported_media_type: 'unsupported',
  range_not_satisfiable: 'range',
  rate_limited: 'rate_limited',
  /** The organisation has as many calls under way as it may have at once. */
  concurrency_limit: 'rate_limited',
  /** A website widget's key is unknown or revoked (docs/widget.md). */
  widget_key_invalid: 'unauthenticated',
  /** The page's origin is not one of the widget key's allowed origins, or the request carried none. */
  origin_not_allowed: 'forbidden',
  /** A call page's request whose token is missing, expired or another call's. */
  call_token_invalid: 'forbidden',
  /** The widget key has as many calls under way as its cap allows. */
  widget_busy: 'rate_limited',
  livekit_unavailable: 'upstream',
  telephony_unavailable: 'unavailable',
  /** Passkeys need the dashboard's public address (PUBLIC_URL) off loopback: the origin they are bound to. */
  passkeys_unavailable: 'unavailable',
  transport_unavailable: 'unavailable',
  /** The process that would run the call is too loaded for one more: retry after the Retry-After seconds. */
  at_capacity: 'unavailable',
  /** The database cannot be reached right now: retry after the Retry-After seconds. */
  database_unavailable: 'unavailable',
  internal_error: 'internal',
} satisfies Record<string, ErrorKind>);

export type ErrorCode = keyof typeof ERRORS;

/** An error a caller is told about: its code, a sentence for people, and fields that help (which id conflicted). */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra fields for the caller, e.g. which field conflicted. */
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
  }

  get kind(): ErrorKind {
    return ERRORS[this.code];
  }
}

export interface ValidationDetail {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** Refused input, in the spec's validation shape: `{ detail: [{ loc, msg, type }] }`. */
export class ValidationFailed extends Error {
  constructor(readonly detail: ValidationDetail[]) {
    super(detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; '));
    this.name = 'ValidationFailed';
  }
}

export function notFound(resource: string): AppError {
  return new AppError('not_found', `${resource} not found`);
}
