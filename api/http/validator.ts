import type { FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';
import { ValidationFailed } from '../../lib/errors.js';
import { zodIssuesToDetail } from '../../lib/zod/detail.js';

const LOCATION: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

/**
 * Validates each request part with its zod schema and reports failures as the spec's 422, with `loc` naming the part
 * (`body`, `query`, `path`, `header`) and the path inside it.
 */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => {
  const location = LOCATION[httpPart ?? 'body'] ?? 'body';
  return (raw: unknown) => {
    // An empty body reaches us as null; like a JSON `null`, it is a missing body.
    const data = httpPart === 'body' && raw === null ? undefined : raw;
    const result = schema.safeParse(data);
    if (result.success) return { value: result.data };
    return { error: new ValidationFailed(zodIssuesToDetail(result.error.issues, location, data)) };
  };
};

/**
 * Responses are built by our own services from typed rows, so they are written with plain JSON.stringify; the zod
 * response schemas document them in OpenAPI, and tests check real responses against those schemas.
 */
export const jsonSerializerCompiler = () => (data: unknown) => JSON.stringify(data);
