import type { FastifyInstance } from 'fastify';
import type { Database } from '../prisma/database.js';
import type { CallAudioRunner } from '../modules/calls/audio-runner.js';
import type { Config } from '../lib/config.js';
import { buildApp } from './app.js';
import { loadSecretsKey, SecretBox } from '../lib/secret-box.js';
import { hasAnyApiKey } from '../modules/organizations/bootstrap.js';
import { startWebhookDelivery } from '../modules/webhooks/delivery-worker.js';

/** Builds the API on an open database and starts listening on HOST:PORT. */
export async function startApi(config: Config, db: Database, extra: { callAudioRunner?: CallAudioRunner | undefined } = {}): Promise<FastifyInstance> {
  const allowPrivateWebhookTargets = config.webhookAllowPrivateTargets ?? false;
  const app = await buildApp({
    prisma: db.prisma,
    databaseUrl: db.url,
    logLevel: config.logLevel,
    keyCacheTtlMs: config.keyCacheTtlMs,
    allowPrivateWebhookTargets,
    livekit: config.livekit,
    dataDir: config.dataDir,
    callAudioRunner: extra.callAudioRunner,
    twilioAuthToken: config.twilioAuthToken,
    publicUrl: config.publicUrl,
    streamTokenSecret: config.mediaStreamSecret,
    secrets: new SecretBox(loadSecretsKey(config.secretsKey, config.dataDir)),
    rateLimit: config.rateLimit,
    httpTimeouts: config.httpKeepAliveTimeoutMs === undefined ? undefined : { keepAliveMs: config.httpKeepAliveTimeoutMs },
  });
  // Every API process also delivers webhooks; deliveries are leased rows, so processes share the work.
  const webhooks = startWebhookDelivery(db.prisma, {
    databaseUrl: db.url,
    allowPrivateTargets: allowPrivateWebhookTargets,
    logger: app.log.child({ component: 'webhooks' }),
  });
  app.addHook('onClose', async () => webhooks.stop());
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    throw error;
  }
  if (!(await hasAnyApiKey(db.prisma))) {
    app.log.warn(
      { command: 'npm run cli -- bootstrap --org "My Org" --email you@example.com' },
      'no API key exists yet: create the first one with the command in this line',
    );
  }
  return app;
}
