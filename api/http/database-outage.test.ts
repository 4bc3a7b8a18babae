import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createPrismaClient, type PrismaClient } from '../../prisma/client.js';
import { freePort } from '../../prisma/embedded-postgres.js';
import { buildApp } from '../app.js';

// The database down (nothing listens where it was): every route that needs it answers 503 with Retry-After, as
// /healthz does, not a 500 that says the service is broken; recovery needs no restart (the pool reconnects).

describe('routes while the database is unreachable', () => {
  let prisma: PrismaClient;
  let app: FastifyInstance;
  beforeAll(async () => {
    prisma = createPrismaClient(`postgresql://postgres:postgres@127.0.0.1:${await freePort()}/voice`, { maxConnections: 1 });
    app = await buildApp({ prisma, logLevel: 'silent' });
  });
  afterAll(async () => {
    await app?.close();
    await prisma?.$disconnect();
  });

  it('answers 503 database_unavailable with Retry-After on a keyed route, a public route and a dashboard page', async () => {
    const requests = [
      { method: 'GET' as const, url: '/api/assistants', headers: { authorization: 'Bearer vak_0123456789abcdefghijklmnopqrstuv' } },
      {
        method: 'POST' as const,
        url: '/api/assistants',
        headers: { authorization: 'Bearer vak_0123456789abcdefghijklmnopqrstuv', 'content-type': 'application/json' },
        payload: '{"name":"x"}',
      },
      { method: 'GET' as const, url: '/login' },
    ];
    for (const request of requests) {
      const response = await app.inject(request);
      expect(response.statusCode, request.url).toBe(503);
      expect(response.headers['retry-after'], request.url).toBe('5');
      if (request.url.startsWith('/api')) expect(response.json()).toMatchObject({ success: false, code: 'database_unavailable' });
    }
  });
});
