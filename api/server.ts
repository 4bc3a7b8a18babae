import type { FastifyInstance } from 'fastify';
import type { Database } from '../prisma/database.js';
import type { CallAudioRunner } from '../modules/calls/index.js';
import type { Config } from '../lib/config.js';
import { buildApp } from './app.js';
import { loadSecretsKey, SecretBox } from '../lib/secret-box.js';
import { isSetUp } from '../modules/organizations/index.js';
import { smtpMailTransport } from '../lib/mail.js';
import { sealClearWebhookSecrets } from '../modules/webhooks/index.js';
import { detectPgvector, KnowledgeSearch, PgVectors } from '../modules/knowledge/index.js';
import { vendorCredentialsOf, vendorTargetPolicyOf } from '../lib/vendor-credentials.js';
import { sealClearAssistantKeys } from '../modules/assistants/index.js';
import { publicUrlProblem } from '../modules/telephony/index.js';

/** Builds the API on an open database and starts listening on HOST:PORT. */
export async function startApi(config: Config, db: Database, extra: { callAudioRunner?: CallAudioRunner | undefined } = {}): Promise<FastifyInstance> {
  const allowPrivateWebhookTargets = config.webhookAllowPrivateTargets ?? false;
  // One box seals and opens every stored secret; agent workers open with the same SECRETS_KEY.
  const secrets = new SecretBox(loadSecretsKey(config.secretsKey, config.dataDir));
  const knowledge = new KnowledgeSearch(db.prisma, { credentials: vendorCredentialsOf(config.vendors) });
  // Where the database has pgvector, document processing mirrors vectors into its HNSW index, those written before
  // caught up now.
  const pgvector = (await detectPgvector(db.prisma).catch(() => false)) ? new PgVectors(db.prisma) : undefined;
  const app = await buildApp({
    prisma: db.prisma,
    changes: db.changes,
    logLevel: config.logLevel,
    keyCacheTtlMs: config.keyCacheTtlMs,
    allowPrivateWebhookTargets,
    vendorTargets: vendorTargetPolicyOf(config.vendors),
    livekit: config.livekit,
    dataDir: config.dataDir,
    callAudioRunner: extra.callAudioRunner,
    twilioAuthToken: config.twilioAuthToken,
    carrierApiBaseUrl: config.carrierApiBaseUrl,
    publicUrl: config.publicUrl,
    trustProxyHops: config.trustProxyHops,
    streamTokenSecret: config.mediaStreamSecret,
    secrets,
    rateLimit: config.rateLimit,
    knowledge,
    mail: config.mail.smtpUrl ? smtpMailTransport(config.mail.smtpUrl, config.mail.from) : undefined,
    httpTimeouts: config.httpKeepAliveTimeoutMs === undefined ? undefined : { keepAliveMs: config.httpKeepAliveTimeoutMs },
    // Every API process also delivers webhooks and processes documents: leased rows, so processes share the work.
    delivery: { allowPrivateTargets: allowPrivateWebhookTargets, credentials: vendorCredentialsOf(config.vendors), pgvector },
  });
  void pgvector?.catchUp().catch((err: unknown) => app.log.warn({ err }, 'vectors not mirrored into pgvector yet; they will be at the next start'));
  await sealClearSecrets(db, secrets, app);
  app.addHook('onClose', () => knowledge.close());
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    throw error;
  }
  await warnOfInsecurePublicUrl(db, config.publicUrl, app);
  if (!(await isSetUp(db.prisma))) {
    const address = app.server.address();
    const port = address && typeof address === 'object' ? address.port : config.port;
    app.log.warn(
      {
        url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
        command: 'npm run cli -- bootstrap --org "My Org" --email you@example.com',
      },
      'no organisation yet: open the url in this line and create it, or use the command',
    );
  }
  return app;
}

/**
 * Seals vendor keys and webhook signing secrets stored in the clear by a release that did not seal them. Rows in either
 * form work meanwhile, so a failure here is logged and start-up goes on; the next start tries again.
 */
async function sealClearSecrets(db: Database, secrets: SecretBox, app: FastifyInstance): Promise<void> {
  try {
    const assistants = await sealClearAssistantKeys(db.prisma, secrets);
    const endpoints = await sealClearWebhookSecrets(db.prisma, secrets);
    if (assistants + endpoints > 0) app.log.info({ assistants, endpoints }, 'sealed secrets stored in the clear');
  } catch (err) {
    app.log.warn({ err }, 'secrets stored in the clear not sealed; they still work and the next start tries again');
  }
}

/** A carrier connection with an `http` PUBLIC_URL cannot carry a call: said at start-up, where the operator looks. */
async function warnOfInsecurePublicUrl(db: Database, publicUrl: string | undefined, app: FastifyInstance): Promise<void> {
  const problem = publicUrlProblem(publicUrl);
  if (!problem) return;
  const carrierConnections = await db.prisma.phoneConnection.count({ where: { kind: 'twilio' } }).catch(() => 0);
  if (carrierConnections > 0) app.log.warn({ publicUrl, carrierConnections }, problem);
}
