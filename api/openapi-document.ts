import type { PrismaClient } from '../prisma/client.js';
import { buildApp } from './app.js';

// The service's OpenAPI document as `GET /api/openapi.json` serves it, built without a database: the routes are
// registered and their schemas read, none is called. The typed client is generated from it (packages/client/).

/** Stands in for the database: a route that ran would throw, so a document that needed one could not be built silently. */
const NO_DATABASE = new Proxy(
  {},
  {
    get(_target, property) {
      throw new Error(`the OpenAPI document reads no database (prisma.${String(property)})`);
    },
  },
) as PrismaClient;

export async function openApiDocument(): Promise<Record<string, unknown>> {
  const app = await buildApp({ prisma: NO_DATABASE, logLevel: 'silent' });
  try {
    await app.ready();
    const response = await app.inject({ method: 'GET', url: '/api/openapi.json' });
    if (response.statusCode !== 200) throw new Error(`the OpenAPI document answered ${response.statusCode}`);
    return response.json() as Record<string, unknown>;
  } finally {
    await app.close();
  }
}
