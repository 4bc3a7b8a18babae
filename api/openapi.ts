import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { declareAuth } from './auth/plugin.js';
import { DOWNLOADS, OPERATION_IDS, openApiPath, RATE_LIMIT_HEADERS, REQUEST_BODIES, RETRY_AFTER_HEADER, WWW_AUTHENTICATE_HEADER } from './openapi-additions.js';

export const API_VERSION = '0.1.0';

/**
 * The headers the responses carry: the rate limit's on every answer to an API key, and its refusal (429, with
 * Retry-After) on every such operation; the bearer challenge on a 401.
 */
function withHeaders(responses: Record<string, object> | undefined, keyed: boolean): Record<string, object> | undefined {
  if (!responses) return responses;
  const out: Record<string, object> = {};
  for (const [status, schema] of Object.entries(responses)) {
    if (status === '401') out[status] = { ...schema, headers: WWW_AUTHENTICATE_HEADER };
    else if (keyed && status.startsWith('2')) out[status] = { ...schema, headers: RATE_LIMIT_HEADERS };
    else out[status] = schema;
  }
  if (keyed && !out['429'] && responses['401']) {
    out['429'] = {
      ...responses['401'],
      description: 'Too many requests: a rate limit of the key or of the organisation, or requests in progress',
      headers: { ...RETRY_AFTER_HEADER, ...RATE_LIMIT_HEADERS },
    };
  }
  return out;
}

/**
 * The document without the component schemas no operation reaches: the zod provider registers an input and an output
 * version of every named schema, and most of them are only ever one of the two.
 */
function withoutUnusedComponents<T>(document: T): T {
  const doc = document as { paths?: unknown; components?: { schemas?: Record<string, unknown> } };
  const schemas = doc.components?.schemas;
  if (!schemas) return document;
  const reached = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
        const name = value.slice('#/components/schemas/'.length);
        if (!reached.has(name)) {
          reached.add(name);
          visit(schemas[name]);
        }
      } else visit(value);
    }
  };
  visit(doc.paths);
  return { ...document, components: { ...doc.components, schemas: Object.fromEntries(Object.entries(schemas).filter(([name]) => reached.has(name))) } };
}

/** OpenAPI 3.1.0 generated from the zod schemas that validate requests, so the document cannot drift from behaviour. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Voice Assistant API',
        version: API_VERSION,
        description:
          'Configure voice assistants, place and read calls, manage contacts and campaigns. ' +
          "Every request carries `Authorization: Bearer <API_KEY>` and acts inside the key owner's organisation.",
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'API key' },
          // The session-only functions: a signed-in dashboard session, never an API key (`__Host-session` over TLS).
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: '__Host-session',
            description: 'Dashboard session cookie; state-changing requests also send X-CSRF-Token',
          },
        },
      },
      security: [{ bearer: [] }],
      // Relative: the service that serves this document serves the API, whatever host and scheme it is reached at.
      servers: [{ url: '/', description: 'This service' }],
    },
    transform: (input) => {
      const out = jsonSchemaTransform(input);
      const methods = [input.route.method].flat();
      const operationId = methods.length === 1 ? OPERATION_IDS[`${methods[0]} ${openApiPath(out.url)}`] : undefined;
      if (!operationId) return out;
      const download = DOWNLOADS[operationId];
      const declared = download ? { ...(out.schema.response as object), ...download } : out.schema.response;
      const response = withHeaders(declared as Record<string, object> | undefined, input.route.config?.auth === 'api_key');
      const body = REQUEST_BODIES[operationId];
      return { ...out, schema: { ...out.schema, operationId, ...(response ? { response } : {}), ...(body ? { body } : {}) } };
    },
    transformObject: (input) => withoutUnusedComponents(jsonSchemaTransformObject(input)),
  });
  // The document and its docs page describe the API to anyone who has not got a key yet.
  await app.register(async (docs) => {
    declareAuth(docs, 'public');
    await docs.register(swaggerUi, { routePrefix: '/api/docs', uiConfig: { persistAuthorization: true } });
    docs.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  });
}
