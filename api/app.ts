import Fastify, { type FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { PrismaClient } from '../prisma/client.js';
import { registerAuth } from './auth/plugin.js';
import { registerErrorHandler } from './http/error-handler.js';
import { BODY_LIMIT_BYTES, registerJsonBodyParser } from './http/json-body.js';
import { jsonSerializerCompiler, zodValidatorCompiler } from './http/validator.js';
import { registerOpenApi } from './openapi.js';
import { assistantRoutes } from './routes/assistants.js';
import { sessionOnlyRoutes } from './routes/session-only.js';

export interface AppOptions {
  prisma: PrismaClient;
  logLevel?: string;
  /** Default 5 s: the longest a revoked key keeps working on a process that had it cached. */
  keyCacheTtlMs?: number;
  usageFlushIntervalMs?: number;
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: options.logLevel ?? 'info' },
    // URLs can carry phone numbers and emails in query strings: request logs name the route, not the URL.
    disableRequestLogging: true,
    bodyLimit: BODY_LIMIT_BYTES,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(zodValidatorCompiler);
  app.setSerializerCompiler(jsonSerializerCompiler);
  registerJsonBodyParser(app);
  registerErrorHandler(app);
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request completed',
    );
  });

  const auth = registerAuth(app, options.prisma, {
    keyCacheTtlMs: options.keyCacheTtlMs ?? 5_000,
    usageFlushIntervalMs: options.usageFlushIntervalMs ?? 15_000,
  });
  app.decorate('keyCache', auth.cache);
  app.decorate('flushKeyUsage', auth.flushUsage);

  await registerOpenApi(app);
  app.get('/healthz', { schema: { hide: true } }, async () => ({ ok: true }));
  await app.register(
    async (api) => {
      await api.register(assistantRoutes, { prisma: options.prisma });
      await api.register(sessionOnlyRoutes);
    },
    { prefix: '/api' },
  );
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    keyCache: import('./auth/key-cache.js').KeyCache;
    flushKeyUsage: () => Promise<void>;
  }
}
