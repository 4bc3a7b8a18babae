import type { FastifyInstance } from 'fastify';
import type { PrismaClient } from '../../prisma/client.js';
import { withTimeout } from '../../lib/async.js';

/**
 * How long the health check waits for the database's `SELECT 1`: a healthy one answers in about a millisecond, and a
 * container health check (docker/Dockerfile) gives the whole request 3 s.
 */
export const HEALTH_DATABASE_TIMEOUT_MS = 2_000;

/**
 * `GET /healthz`: 200 `{"ok": true}` while the database answers, 503 `{"ok": false, "database": "unreachable"}` when it
 * does not, since every route but this one needs it. No key needed: load balancers and container checks call it.
 */
export function registerHealthCheck(app: FastifyInstance, prisma: PrismaClient): void {
  app.get('/healthz', { schema: { hide: true }, config: { auth: 'public' } }, async (_request, reply) => {
    const answered = prisma.$queryRaw`SELECT 1`.then(
      () => true,
      () => false,
    );
    const databaseOk = (await withTimeout(answered, HEALTH_DATABASE_TIMEOUT_MS)) ?? false;
    if (!databaseOk) return reply.code(503).send({ ok: false, database: 'unreachable' });
    return { ok: true };
  });
}
