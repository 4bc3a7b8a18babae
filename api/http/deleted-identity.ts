import type { FastifyRequest } from 'fastify';
import { Prisma } from '../../prisma/generated/client.js';
import { HttpError } from './errors.js';

// An organisation is deleted by an operator in SQL (`DELETE FROM organizations WHERE id = ...`; there is no endpoint or
// CLI command for it), which cascades to its users, its API keys and everything it owned. A process that had one of
// its keys cached keeps accepting the key for up to the key cache's TTL (5 s by default), and a write in that window
// then breaks the foreign key to `organizations` (or `users`): the database refuses, at the moment of the write, so no
// request can slip between a check and the insert. That refusal is the key no longer being valid: 401, as for a
// revoked key, never a 500.

/** Foreign keys whose value comes from the API key's identity, never from the request. */
const IDENTITY_FOREIGN_KEY = /_(organization|user)_id_fkey\b/;

function constraintNames(error: Prisma.PrismaClientKnownRequestError): string[] {
  const meta = (error.meta ?? {}) as Record<string, unknown>;
  const cause = (meta.driverAdapterError as { cause?: { kind?: string; constraint?: { index?: string; name?: string } } } | undefined)?.cause;
  const names = [
    meta.field_name,
    meta.constraint,
    cause?.kind === 'ForeignKeyConstraintViolation' ? (cause.constraint?.index ?? cause.constraint?.name) : undefined,
  ];
  return names.filter((n): n is string => typeof n === 'string');
}

/** Whether `error` is the database refusing a row for an organisation or user that no longer exists. */
export function isDeletedIdentityError(error: unknown): boolean {
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return false;
  if (error.code !== 'P2003' && error.code !== 'P2010') return false;
  return constraintNames(error).some((n) => IDENTITY_FOREIGN_KEY.test(n));
}

/**
 * The 401 of a key whose organisation is gone, with the same body and challenge as a revoked key's. The key cache is
 * dropped too, so that the key's next request, read or write, is checked against the database and refused.
 */
export function deletedIdentityError(request: FastifyRequest): HttpError {
  (request.server as { keyCache?: { clear(): void } }).keyCache?.clear();
  return new HttpError('unauthorized', 'Invalid or revoked API key', undefined, { 'WWW-Authenticate': 'Bearer realm="api", error="invalid_token"' });
}
