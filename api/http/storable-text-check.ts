import type { FastifyInstance } from 'fastify';
import { ValidationFailed, type ValidationDetail } from '../../lib/errors.js';
import { findUnstorableText, MAX_UNSTORABLE_REPORTED } from '../../lib/storable-text.js';

/**
 * Refuses, on every route, text Postgres cannot store in the path parameters, the query string, the headers and the
 * parsed body: 422 with each offending value or key at its `loc`, before any schema or service sees it.
 */
export function registerStorableTextCheck(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const parts: [unknown, string][] = [
      [request.params, 'path'],
      [request.query, 'query'],
      [request.headers, 'header'],
      [request.body, 'body'],
    ];
    const detail: ValidationDetail[] = [];
    for (const [value, location] of parts) {
      if (value === undefined || value === null) continue;
      detail.push(...findUnstorableText(value, [location], MAX_UNSTORABLE_REPORTED - detail.length));
      if (detail.length >= MAX_UNSTORABLE_REPORTED) break;
    }
    if (detail.length > 0) throw new ValidationFailed(detail);
  });
}
