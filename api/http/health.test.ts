import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrismaClient } from '../../prisma/client.js';
import { freePort } from '../../prisma/embedded-postgres.js';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.js';
import { buildApp } from '../app.js';

describe('GET /healthz', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  it('answers 200 {"ok": true} while the database answers', async () => {
    const app = await buildApp({ prisma: db.prisma, logLevel: 'silent' });
    try {
      const response = await app.inject({ method: 'GET', url: '/healthz' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ ok: true });
    } finally {
      await app.close();
    }
  });

  it('answers 503 {"ok": false} when the database is down, instead of saying ok while every route fails', async () => {
    // Nothing listens on a port just freed: the state of a service whose database stopped.
    const prisma = createPrismaClient(`postgresql://postgres:postgres@127.0.0.1:${await freePort()}/voice`, { maxConnections: 1 });
    const app = await buildApp({ prisma, logLevel: 'silent' });
    try {
      const response = await app.inject({ method: 'GET', url: '/healthz' });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({ ok: false, database: 'unreachable' });
    } finally {
      await app.close();
      await prisma.$disconnect();
    }
  });
});
