import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp, type AppOptions } from '../../api/app.js';
import { bootstrap } from '../../modules/organizations/bootstrap.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { LOOPBACK_VENDOR_HOSTS } from './vendor-hosts.js';

export interface Tenant {
  organizationId: number;
  userId: number;
  key: string;
}

export interface ApiContext {
  db: TestDatabase;
  app: FastifyInstance;
  /** A new organisation with a user and an API key. */
  tenant(name?: string): Promise<Tenant>;
  /** Sends a request as `tenant` (JSON body when `body` is given). */
  call(
    tenant: Tenant | null,
    method: InjectOptions['method'],
    url: string,
    body?: unknown,
  ): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  close(): Promise<void>;
}

let tenants = 0;

/** A real API on a private database, driven in-process with `inject` (same routing, hooks and serialisation as HTTP). */
export async function createApiContext(options: Partial<AppOptions> = {}): Promise<ApiContext> {
  const db = await createTestDatabase();
  // The fake vendors listen on 127.0.0.1: allowed as an operator allows a local LLM server, unless a test says otherwise.
  const app = await buildApp({ prisma: db.prisma, changes: db.changes, logLevel: 'silent', vendorTargets: LOOPBACK_VENDOR_HOSTS, ...options });
  await app.ready();
  return {
    db,
    app,
    async tenant(name) {
      tenants += 1;
      const result = await bootstrap(db.prisma, { organizationName: name ?? `Org ${tenants}`, email: `owner${tenants}-${Date.now()}@example.com` });
      return { organizationId: result.organization_id, userId: result.user_id, key: result.api_key };
    },
    async call(tenant, method, url, body) {
      const response = await app.inject({
        method,
        url,
        headers: tenant ? { authorization: `Bearer ${tenant.key}` } : {},
        ...(body === undefined ? {} : { payload: body as object }),
      });
      const text = response.body;
      let parsed: unknown = text;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        // not JSON: leave the text
      }
      return { status: response.statusCode, body: parsed, headers: response.headers };
    },
    async close() {
      await app.close();
      await db.drop();
    },
  };
}
