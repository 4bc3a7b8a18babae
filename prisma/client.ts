import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { watchConnectionPool } from '../lib/metrics/index.js';
import { PrismaClient } from './generated/client.js';

export type { Prisma } from './generated/client.js';
export { PrismaClient };
/** A client or an open interactive transaction: services accept either. */
export type Db = PrismaClient | Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

export function createPrismaClient(databaseUrl: string, options: { maxConnections?: number } = {}): PrismaClient {
  // 10 connections per process: enough for the API's bursts, and 20 processes still fit Postgres' default 100.
  // The pool is made here, not by the adapter, so that the metrics endpoint can count its connections and waiting
  // queries (the adapter closes it with the client: disposeExternalPool).
  const pool = new pg.Pool({ connectionString: databaseUrl, max: options.maxConnections ?? 10 });
  watchConnectionPool(pool);
  const adapter = new PrismaPg(pool, { disposeExternalPool: true });
  // Prisma's defaults give an interactive transaction 2 s to get a connection and 5 s to finish. A process whose
  // connections are all busy for a moment (a burst of requests, a machine under load) would turn that moment into
  // failed requests; waiting longer turns it into slower ones. Statement timeouts still bound each query.
  return new PrismaClient({ adapter, transactionOptions: { maxWait: 10_000, timeout: 30_000 } });
}
