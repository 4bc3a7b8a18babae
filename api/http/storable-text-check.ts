import type { FastifyInstance } from 'fastify';
import { ValidationFailed, type ValidationDetail } from '../../lib/errors.js';
import { findUnstorableText, hasUnstorableText, MAX_UNSTORABLE_REPORTED } from '../../lib/storable-text.js';

/**
 * Refuses, on every route, text Postgres cannot store in the path parameters, the query string, the headers and the
 * parsed body: 422 with each offending value or key at its `loc`, before any schema or service sees it.
 */
export function registerStorableTextCheck(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    // Every request is screened without building a location for anything; only one that fails is walked again for where.
    const { params, query, headers, body } = request;
    if (!hasUnstorableText(params) && !hasUnstorableText(query) && !hasUnstorableText(headers) && !hasUnstorableText(body)) return done();
    const parts: [unknown, string][] = [
      [params, 'path'],
      [query, 'query'],
      [headers, 'header'],
      [body, 'body'],
    ];
    const detail: ValidationDetail[] = [];
    for (const [value, location] of parts) {
      if (value === undefined || value === null) continue;
      detail.push(...findUnstorableText(value, [location], MAX_UNSTORABLE_REPORTED - detail.length));
      if (detail.length >= MAX_UNSTORABLE_REPORTED) break;
    }
    done(detail.length > 0 ? new ValidationFailed(detail) : undefined);
  });
}
