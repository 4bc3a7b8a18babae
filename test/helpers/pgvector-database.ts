import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { createPrismaClient, type PrismaClient } from '../../prisma/client.js';
import { migrate } from '../../prisma/migrate.js';

// A Postgres with pgvector for the tests of the pgvector path: PGlite (Postgres compiled to WebAssembly, in this
// process) with its pgvector build, served on 127.0.0.1 over the wire protocol, so the service's own client, migrator
// and SQL run against it unchanged. The embedded Postgres of the other tests has no pgvector. PGlite takes one
// connection at a time: the client's pool is one connection.

export interface PgvectorDatabase {
  url: string;
  prisma: PrismaClient;
  close(): Promise<void>;
}

export async function startPgvectorDatabase(): Promise<PgvectorDatabase> {
  const db = await PGlite.create({ extensions: { vector } });
  const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1' });
  await server.start();
  const address = (server as unknown as { server?: { address(): { port: number } } }).server?.address();
  if (!address) throw new Error('the PGlite socket server did not start');
  const url = `postgresql://postgres:postgres@127.0.0.1:${address.port}/postgres?sslmode=disable`;
  await migrate(url);
  const prisma = createPrismaClient(url, { maxConnections: 1 });
  return {
    url,
    prisma,
    async close() {
      await prisma.$disconnect();
      await server.stop();
      await db.close();
    },
  };
}
