import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/client.js';

export type { Prisma } from './generated/client.js';
export { PrismaClient };
/** A client or an open interactive transaction: services accept either. */
export type Db = PrismaClient | Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

export function createPrismaClient(databaseUrl: string, options: { maxConnections?: number } = {}): PrismaClient {
  // 10 connections per process: enough for the API's bursts, and 20 processes still fit Postgres' default 100.
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: options.maxConnections ?? 10 });
  // Prisma's defaults give an interactive transaction 2 s to get a connection and 5 s to finish. A process whose
  // connections are all busy for a moment (a burst of requests, a machine under load) would turn that moment into
  // failed requests; waiting longer turns it into slower ones. Statement timeouts still bound each query.
  return new PrismaClient({ adapter, transactionOptions: { maxWait: 10_000, timeout: 30_000 } });
}
