import type { FastifyInstance } from 'fastify';
import type { Database } from '../prisma/database.js';
import type { Config } from '../shared/config.js';
import { buildApp } from './app.js';
import { hasAnyApiKey } from './services/bootstrap.js';

/** Builds the API on an open database and starts listening on HOST:PORT. */
export async function startApi(config: Config, db: Database): Promise<FastifyInstance> {
  const app = await buildApp({ prisma: db.prisma, logLevel: config.logLevel, keyCacheTtlMs: config.keyCacheTtlMs });
  await app.listen({ port: config.port, host: config.host });
  if (!(await hasAnyApiKey(db.prisma))) {
    app.log.warn(
      { command: 'npm run cli -- bootstrap --org "My Org" --email you@example.com' },
      'no API key exists yet: create the first one with the command in this line',
    );
  }
  return app;
}
