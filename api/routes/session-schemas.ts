import { ErrorResponse, HTTPValidationError } from '../schemas/common.js';

/** OpenAPI: the session-only functions authenticate by the dashboard's session cookie, never by an API key. */
export const sessionSecurity = [{ session: [] }];

/** The errors every session-only route can give. */
export const sessionErrors = {
  401: ErrorResponse.describe('Not signed in to the dashboard (no session, or it ended)'),
  403: ErrorResponse.describe('An API key was sent (session-only function), the anti-forgery token is missing, or the role does not allow it'),
  422: HTTPValidationError.describe('Validation error'),
} as const;

export const sessionDescription =
  'Session-only: reachable in a signed-in dashboard session (the session cookie; state-changing requests also send the ' +
  "page's anti-forgery token as `X-CSRF-Token`). An API key gets 403.";
