import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../lib/errors.js';
import { commonErrors, ErrorResponse } from '../schemas/common.js';

// Session-only functions of the spec (behaviour 2, Authentication 4) that have no API of their own yet: an API key
// gets a clear 403 that says why, rather than a 404 that suggests a typo. API keys, membership and the profile are
// real routes (api-keys.ts, members.ts, profile.ts) that declare `session` auth, which answers API keys the same 403.
const SESSION_ONLY: { prefix: string; what: string }[] = [{ prefix: '/billing', what: 'Billing' }];

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export const sessionOnlyRoutes: FastifyPluginAsyncZod = async (app) => {
  for (const { prefix, what } of SESSION_ONLY) {
    const handler = async () => {
      throw new AppError('session_only', `${what} is available only in a dashboard session, not with an API key`);
    };
    const schema = {
      tags: ['Session-only'],
      summary: `${what} (session-only)`,
      description: 'Answers 403 to every API key.',
      response: { 403: ErrorResponse.describe('Session-only function'), 401: commonErrors[401] },
    };
    app.route({ method: METHODS, url: prefix, schema, handler });
    app.route({ method: METHODS, url: `${prefix}/*`, schema: { ...schema, hide: true }, handler });
  }
};
