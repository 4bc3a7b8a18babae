import { createPrismaClient, type PrismaClient } from './client.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded-postgres.js';
import { migrate } from './migrate.js';
import { openChangeFeed, type ChangeFeed } from '../lib/pg-listen.js';

export interface Database {
  url: string;
  prisma: PrismaClient;
  /**
   * The process's one LISTEN connection, shared by its caches and background jobs; opened on the first subscription,
   * so a process that subscribes to nothing (the CLI) opens none.
   */
  changes: ChangeFeed;
  /** Whether the database is the embedded cluster under DATA_DIR. */
  embedded: boolean;
  /** The embedded cluster's files and how this process came to use it (started, joined, adopted); unset otherwise. */
  cluster?: Pick<EmbeddedDatabase, 'directory' | 'origin'> | undefined;
  close(): Promise<void>;
  /** For a process that exits at once (a repeated Ctrl-C): leaves the embedded cluster, stopping it if last. */
  closeNow?(): Promise<void>;
}

/**
 * Connects to `DATABASE_URL`, or starts the embedded Postgres under `dataDir` when none is given, then applies any
 * pending migrations. Every process (API, agent, CLI) opens the database this way.
 */
export async function openDatabase(options: { databaseUrl?: string | undefined; dataDir: string }): Promise<Database> {
  const embedded = options.databaseUrl ? undefined : await startEmbeddedPostgres(options.dataDir);
  const url = options.databaseUrl ?? embedded!.url;
  try {
    await migrate(url);
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
  const prisma = createPrismaClient(url);
  const changes = openChangeFeed(url);
  let closed = false;
  return {
    url,
    prisma,
    changes,
    embedded: embedded !== undefined,
    cluster: embedded && { directory: embedded.directory, origin: embedded.origin },
    close: async () => {
      if (closed) return;
      closed = true;
      await changes.close();
      await prisma.$disconnect();
      await embedded?.stop();
    },
    closeNow: async () => {
      await embedded?.stopNow();
    },
  };
}
