import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { bootstrap } from '../../modules/organizations/index.js';
import { createPrismaClient, type PrismaClient } from '../../prisma/client.js';
import { startEmbeddedPostgres } from '../../prisma/embedded-postgres.js';
import { migrate } from '../../prisma/migrate.js';

// A throwaway embedded Postgres with the schema and one organisation, as each knowledge benchmark needs.

export interface BenchDatabase {
  prisma: PrismaClient;
  owner: { organization_id: number; user_id: number };
  stop(): Promise<void>;
}

export async function startBenchDatabase(name: string): Promise<BenchDatabase> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), `bench-${name}-`));
  // The embedded cluster runs as another user when started as root: it must be able to enter the folder.
  await fs.chmod(dir, 0o755);
  const cluster = await startEmbeddedPostgres(dir, { persistent: false });
  await migrate(cluster.url);
  const prisma = createPrismaClient(cluster.url);
  const owner = await bootstrap(prisma, { organizationName: 'Bench', email: `bench-${Date.now()}@example.com` });
  return {
    prisma,
    owner,
    stop: async () => {
      await prisma.$disconnect();
      await cluster.stop();
    },
  };
}
