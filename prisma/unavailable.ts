// Whether an error means the database cannot be reached right now (stopped, restarting, failing over, out of
// connections), as opposed to a query that is wrong. The API answers the first with 503 and Retry-After, as /healthz
// does, so that clients and balancers wait and retry instead of reading a 500 as a broken service.

/** Prisma's codes for a server it cannot reach, a connection it lost, or no connection to be had in time. */
const UNREACHABLE_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
/** The driver adapter's kinds for the same (`meta.driverAdapterError.cause.kind`, Prisma 7 with `@prisma/adapter-pg`). */
const UNREACHABLE_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections', 'DatabaseUnavailable']);
/** Postgres and socket codes seen through the driver: admin shutdown, crash shutdown, cannot connect now, connection failures (class 08), refused, reset. */
const DRIVER_CODES = /^(57P0[123]|08\d{3}|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE)$/;

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 4) return false;
  const e = error as {
    name?: unknown;
    code?: unknown;
    meta?: { driverAdapterError?: { cause?: { kind?: unknown; originalCode?: unknown } } };
    cause?: unknown;
  };
  if (e.name === 'PrismaClientInitializationError') return true;
  if (typeof e.code === 'string' && (UNREACHABLE_CODES.has(e.code) || DRIVER_CODES.test(e.code))) return true;
  const cause = e.meta?.driverAdapterError?.cause;
  if (cause && (UNREACHABLE_KINDS.has(String(cause.kind)) || DRIVER_CODES.test(String(cause.originalCode ?? '')))) return true;
  return isDatabaseUnavailable(e.cause, depth + 1);
}
