import { stdoutDestination } from '../lib/logger.js';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { PrismaClient } from '../prisma/client.js';
import { declareAuth, registerAuth } from './auth/plugin.js';
import { mcpRoutes } from './mcp/routes.js';
import { clientErrorHandler } from './http/client-errors.js';
import { DEFAULT_HTTP_TIMEOUTS, registerBodyTimeouts, serverTimeoutOptions, type HttpTimeouts } from './http/timeouts.js';
import { UpgradeRoutes } from './http/upgrades.js';
import { frameworkErrors, registerErrorHandler } from './http/error-handler.js';
import { registerHealthCheck } from './http/health.js';
import { BODY_LIMIT_BYTES, registerJsonBodyParser } from './http/json-body.js';
import { registerStorableTextCheck } from './http/storable-text-check.js';
import { registerRateLimit, type RateLimitOptions } from './http/rate-limit.js';
import { jsonSerializerCompiler, zodValidatorCompiler } from './http/validator.js';
import { registerOpenApi } from './openapi.js';
import { AssistantReadCache } from '../modules/assistants/index.js';
import type { ChangeFeed } from '../lib/pg-listen.js';
import { assistantRoutes } from './routes/assistants.js';
import { contactImportRoutes } from './routes/contact-import.js';
import { contactPropertyRoutes } from './routes/contact-properties.js';
import { contactRoutes } from './routes/contacts.js';
import { organizationSettingsRoutes } from './routes/organization-settings.js';
import { billingRoutes } from './routes/billing.js';
import { webhookRoutes } from './routes/webhooks.js';
import { toolRoutes } from './routes/tools.js';
import { documentRoutes } from './routes/documents.js';
import { testRunRoutes } from './routes/test-runs.js';
import { playbookRoutes } from './routes/playbooks.js';
import { SecretBox, SECRETS_KEY_BYTES } from '../lib/secret-box.js';
import { phoneRoutes } from './routes/phone.js';
import { callRoutes } from './routes/calls.js';
import crypto from 'node:crypto';
import { DEFAULT_DATA_DIR } from '../lib/config.js';
import { ANSWERED_BY_CHANNEL, type CallAudioRunner, emitAnsweredBy } from '../modules/calls/index.js';
import { mediaStreamRoutes } from './transports/media-streams/routes.js';
import { registerMediaStreamSocket } from './transports/media-streams/socket.js';
import { StreamTokens } from '../lib/stream-token.js';
import { builtInBrowserCallRoutes } from './transports/browser/routes.js';
import { registerBuiltInBrowserCallSocket } from './transports/browser/socket.js';
import { registerCallPage } from './transports/browser/call-page.js';
import { registerCallAbandon } from './transports/browser/abandon.js';
import { LocalFileStorage, type RecordingStorage } from '../media/recording/storage.js';
import { telephonyRoutes } from './routes/telephony.js';
import { emitWarmTransfer, type LiveKitConfig, LiveKitTelephony, resetWarmTransfers, WARM_TRANSFER_CHANNEL } from '../modules/telephony/index.js';
import { type ApiJobOptions, startApiJobs } from './jobs.js';
import { campaignRoutes } from './routes/campaigns.js';
import { analyticsRoutes } from './routes/analytics.js';
import { KnowledgeSearch } from '../modules/knowledge/index.js';
import { vendorCredentialsFromEnv } from '../lib/vendor-credentials.js';
import { NO_PRIVATE_VENDOR_HOSTS, type VendorTargetPolicy } from '../lib/net/vendor-targets.js';
import cookie from '@fastify/cookie';
import path from 'node:path';
import { logMailTransport, type MailTransport } from '../lib/mail.js';
import { SignInLimit, type SignInLimitOptions } from './auth/sign-in-limit.js';
import { apiKeyRoutes } from './routes/api-keys.js';
import { widgetKeyRoutes } from './routes/widget-keys.js';
import { widgetRoutes } from './widget/routes.js';
import { memberRoutes } from './routes/members.js';
import { profileRoutes } from './routes/profile.js';
import { passkeyRoutes } from './routes/passkeys.js';
import { dashboard } from './dashboard/plugin.js';
import { observeHttpResponse } from '../lib/metrics/index.js';
import { tracingEnabled } from '../lib/tracing/index.js';
import { registerRequestSpans } from './http/request-spans.js';

export interface AppOptions {
  prisma: PrismaClient;
  /** The process's change feed (prisma/database.ts); without it, assistants are read from the database every time. */
  changes?: ChangeFeed;
  /** Default 60 s: the longest a cached assistant can be stale should a change notification be lost. */
  assistantCacheTtlMs?: number;
  logLevel?: string;
  /** Default 5 s: the longest a revoked key keeps working on a process that had it cached. */
  keyCacheTtlMs?: number;
  usageFlushIntervalMs?: number;
  /** Accept webhook endpoints on loopback, private and other non-public addresses (WEBHOOK_ALLOW_PRIVATE_TARGETS). */
  allowPrivateWebhookTargets?: boolean;
  /**
   * The loopback and private hosts assistants' vendor URLs may name (VENDOR_PRIVATE_HOSTS and the hosts of the
   * operator's `*_BASE_URL` variables); default: none, only public addresses.
   */
  vendorTargets?: VendorTargetPolicy;
  /** LiveKit for outbound SIP calls and browser calls; without it those endpoints answer 503. */
  livekit?: LiveKitConfig | undefined;
  /** Where recordings are read from; default: files under `dataDir`. */
  recordingStorage?: RecordingStorage;
  /** DATA_DIR: recordings live under it (default ./.data). */
  dataDir?: string;
  /** The agent worker in this process, for the built-in transports; without it they answer 503. */
  callAudioRunner?: CallAudioRunner | undefined;
  /** The carrier account's auth token that signs Media Streams voice webhooks (TWILIO_AUTH_TOKEN). */
  twilioAuthToken?: string | undefined;
  /** The public base URL carriers and browsers reach this service at (PUBLIC_URL); default: from each request. */
  publicUrl?: string | undefined;
  /** TRUST_PROXY_HOPS (lib/config.ts). */
  trustProxyHops?: number | undefined;
  /** Signs media-socket tokens; default: random per process (a socket reaches the process that answered its webhook). */
  streamTokenSecret?: string | undefined;
  /** How often the outbound dialler polls its queue (default 1 s). */
  diallerPollIntervalMs?: number;
  /** A carrier dial with no answer and no callback this long is resolved from the carrier's records (default 45 s). */
  quietCarrierDialMs?: number;
  /** How often campaign dispatchers tick (default 1 s). */
  campaignTickMs?: number;
  /** Webhook delivery and document processing in this process (api/jobs.ts); `startApi` sets it, tests start their own. */
  delivery?: ApiJobOptions['delivery'];
  /** The carrier's REST API (TWILIO_API_BASE_URL; default Twilio's). */
  carrierApiBaseUrl?: string | undefined;
  /** Request and connection timeouts; default DEFAULT_HTTP_TIMEOUTS (api/http/timeouts.ts). */
  httpTimeouts?: Partial<HttpTimeouts>;
  /** Per-organisation and per-key request limits (RATE_LIMIT_*); without it, none: the service passes its configuration. */
  rateLimit?: RateLimitOptions | undefined;
  /** Seals stored secrets (SECRETS_KEY); default: a random key of this process, for tests. */
  secrets?: SecretBox | undefined;
  /** Knowledge search (the retrieval debugger); default: one with the vendor keys of the environment. */
  knowledge?: KnowledgeSearch | undefined;
  /** How the dashboard's mail leaves (SMTP_URL); default: appended to `dataDir`/mail.log. */
  mail?: MailTransport | undefined;
  /** Failed sign-ins allowed per email and per address (api/auth/sign-in-limit.ts). */
  signInLimit?: SignInLimitOptions | undefined;
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const httpTimeouts = { ...DEFAULT_HTTP_TIMEOUTS, ...options.httpTimeouts };
  const app = Fastify({
    logger: { level: options.logLevel ?? 'info', stream: stdoutDestination() },
    // URLs can carry phone numbers and emails in query strings: request logs name the route, not the URL.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // The client's address (the sign-in limit counts by it) from X-Forwarded-For only through proxies we were told of.
    trustProxy: options.trustProxyHops ? (_address: string, hop: number) => hop < options.trustProxyHops! : false,
    ...serverTimeoutOptions(httpTimeouts),
    clientErrorHandler,
    frameworkErrors,
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(zodValidatorCompiler);
  app.setSerializerCompiler(jsonSerializerCompiler);
  registerJsonBodyParser(app);
  registerErrorHandler(app);
  registerBodyTimeouts(app, httpTimeouts);
  registerStorableTextCheck(app);
  if (tracingEnabled()) registerRequestSpans(app);
  // A callback hook, not an async one: every request runs it, and an async hook costs a promise each time.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const elapsed = reply.elapsedTime;
    observeHttpResponse(route, request.method, reply.statusCode, elapsed / 1000);
    request.log.info({ method: request.method, route, status: reply.statusCode, ms: Math.round(elapsed) }, 'request completed');
    done();
  });

  // Before the auth hook, which reads the dashboard's session cookie.
  await app.register(cookie);
  const auth = registerAuth(app, options.prisma, {
    keyCacheTtlMs: options.keyCacheTtlMs ?? 5_000,
    usageFlushIntervalMs: options.usageFlushIntervalMs ?? 15_000,
    publicUrl: options.publicUrl,
  });
  app.decorate('keyCache', auth.cache);
  app.decorate('flushKeyUsage', auth.flushUsage);
  app.decorate('declaredRoutes', auth.routes);

  let assistantCache: AssistantReadCache | undefined;
  if (options.changes) {
    const cache = new AssistantReadCache(options.assistantCacheTtlMs ?? 60_000);
    const onError = (err: unknown) => app.log.warn({ err }, 'change notifications interrupted; caches are read anew until they are back');
    const subscriptions = [
      options.changes.subscribe('assistant_changed', { onNotify: (payload) => cache.invalidate(Number(payload)), onReset: () => cache.clear(), onError }),
      // A key created, revoked or deleted (with its user or organisation) anywhere drops every process's key lookups:
      // a revocation takes effect at once, and the cache's TTL is only the bound should a notification be lost.
      options.changes.subscribe('api_key_changed', { onNotify: () => auth.cache.clear(), onReset: () => auth.cache.clear(), onError }),
      // A carrier's answering-machine verdict, for the campaign call this process may be running.
      options.changes.subscribe(ANSWERED_BY_CHANNEL, { onNotify: (payload) => emitAnsweredBy(payload), onReset: () => {}, onError }),
      // The person a warm transfer calls answered, pressed a key or was a machine: for the call this process may run.
      options.changes.subscribe(WARM_TRANSFER_CHANNEL, { onNotify: (payload) => emitWarmTransfer(payload), onReset: () => resetWarmTransfers(), onError }),
    ];
    app.addHook('onClose', async () => subscriptions.forEach((unsubscribe) => unsubscribe()));
    assistantCache = cache;
  }

  // On the root: every key-authenticated route is counted, whichever scope registered it.
  if (options.rateLimit) registerRateLimit(app, options.rateLimit, options.prisma);
  await registerOpenApi(app);
  const upgrades = new UpgradeRoutes(app, app.log.child({ component: 'upgrades' }));
  // A page may sit open a while before its user presses Start.
  const browserCallTokens = new StreamTokens(options.streamTokenSecret ? Buffer.from(options.streamTokenSecret) : crypto.randomBytes(32), 600);
  registerCallPage(app, { prisma: options.prisma, tokens: browserCallTokens });
  registerCallAbandon(app, { prisma: options.prisma, tokens: browserCallTokens });
  registerBuiltInBrowserCallSocket(app, {
    upgrades,
    prisma: options.prisma,
    runner: options.callAudioRunner,
    tokens: browserCallTokens,
    logger: app.log.child({ component: 'browser-calls' }),
  });
  const mediaStreamTokens = new StreamTokens(options.streamTokenSecret ? Buffer.from(options.streamTokenSecret) : crypto.randomBytes(32));
  // One box for every stored secret (tool headers, assistant vendor keys, webhook signing secrets, carrier credentials).
  const secrets = options.secrets ?? new SecretBox(crypto.randomBytes(SECRETS_KEY_BYTES));
  const carrierApiBaseUrl = options.carrierApiBaseUrl ?? 'https://api.twilio.com';

  // Outbound calls: LiveKit SIP for SIP trunks; the carrier's REST API and Media Streams for carrier connections, which
  // need the carrier to reach this service (PUBLIC_URL) and an agent worker here to run the conversation.
  const telephony = options.livekit ? new LiveKitTelephony(options.livekit) : undefined;
  const carrierUnavailable = !options.publicUrl
    ? 'need PUBLIC_URL: the https address the carrier reaches this service at'
    : !options.callAudioRunner
      ? 'need the agent worker in this process (run `npm start`, not the API alone)'
      : undefined;
  const carrierPath =
    carrierUnavailable === undefined ? { publicUrl: options.publicUrl!, tokens: mediaStreamTokens, apiBaseUrl: carrierApiBaseUrl } : undefined;
  const pathUnavailable = (kind: string) =>
    kind === 'sip'
      ? telephony
        ? undefined
        : 'outbound calls through a SIP trunk need a LiveKit server (LIVEKIT_URL, LIVEKIT_API_KEY, LIVEKIT_API_SECRET)'
      : carrierUnavailable && `outbound calls through a carrier connection ${carrierUnavailable}`;
  const recordings = options.recordingStorage ?? new LocalFileStorage(options.dataDir ?? DEFAULT_DATA_DIR);
  const jobs = startApiJobs({
    prisma: options.prisma,
    changes: options.changes,
    logger: app.log,
    secrets,
    paths: { livekit: telephony, carrier: carrierPath },
    carrierCallsAtCapacity: options.callAudioRunner?.atCapacity?.bind(options.callAudioRunner),
    diallerPollIntervalMs: options.diallerPollIntervalMs,
    quietCarrierDialMs: options.quietCarrierDialMs,
    campaignTickMs: options.campaignTickMs,
    delivery: options.delivery,
    recordings,
  });
  app.addHook('onClose', () => jobs.stop());
  const { dialler } = jobs;
  const mediaStreamLogger = app.log.child({ component: 'media-streams' });
  await app.register(mediaStreamRoutes, {
    prisma: options.prisma,
    runner: options.callAudioRunner,
    tokens: mediaStreamTokens,
    authToken: options.twilioAuthToken,
    carriers: { apiBaseUrl: carrierApiBaseUrl, secrets },
    publicUrl: options.publicUrl,
    logger: mediaStreamLogger,
  });
  registerMediaStreamSocket(app, {
    upgrades,
    startTimeoutMs: httpTimeouts.socketAuthMs,
    prisma: options.prisma,
    runner: options.callAudioRunner,
    tokens: mediaStreamTokens,
    carriers: { apiBaseUrl: carrierApiBaseUrl, secrets },
    logger: mediaStreamLogger,
  });

  registerHealthCheck(app, options.prisma);
  // The website widget's public side: its script, its settings and the calls its button starts (docs/widget.md).
  await app.register(widgetRoutes, { prisma: options.prisma, runner: options.callAudioRunner, tokens: browserCallTokens, publicUrl: options.publicUrl });
  const mail = options.mail ?? logMailTransport(path.join(options.dataDir ?? DEFAULT_DATA_DIR, 'mail.log'), app.log.child({ component: 'mail' }));
  // The dashboard, at the root of the site; each of its routes declares its auth (`session`, `visitor` or `public`).
  await app.register(dashboard, {
    prisma: options.prisma,
    mail,
    publicUrl: options.publicUrl,
    signInLimit: new SignInLimit(options.prisma, options.signInLimit),
    secrets,
    assistantCache,
    browserCalls: { tokens: browserCallTokens, runner: options.callAudioRunner },
    recordings,
    allowPrivateWebhookTargets: options.allowPrivateWebhookTargets ?? false,
    vendorTargets: options.vendorTargets ?? NO_PRIVATE_VENDOR_HOSTS,
    campaigns: { unavailable: pathUnavailable, wake: () => jobs.wakeCampaigns() },
  });
  // One knowledge search per process: its vector cache and query embedders serve every request.
  const knowledge = options.knowledge ?? new KnowledgeSearch(options.prisma, { credentials: vendorCredentialsFromEnv() });
  if (!options.knowledge) app.addHook('onClose', () => knowledge.close());
  await app.register(
    async (api) => {
      declareAuth(api, 'api_key');
      await api.register(builtInBrowserCallRoutes, {
        prisma: options.prisma,
        runner: options.callAudioRunner,
        tokens: browserCallTokens,
        publicUrl: options.publicUrl,
      });
      await api.register(assistantRoutes, {
        prisma: options.prisma,
        cache: assistantCache,
        secrets,
        vendorTargets: options.vendorTargets ?? NO_PRIVATE_VENDOR_HOSTS,
      });
      await api.register(contactRoutes, { prisma: options.prisma, recordings });
      await api.register(contactImportRoutes, { prisma: options.prisma });
      await api.register(contactPropertyRoutes, { prisma: options.prisma });
      await api.register(organizationSettingsRoutes, { prisma: options.prisma });
      await api.register(billingRoutes, { prisma: options.prisma });
      await api.register(apiKeyRoutes, { prisma: options.prisma });
      await api.register(widgetKeyRoutes, { prisma: options.prisma });
      await api.register(memberRoutes, { prisma: options.prisma, mail, publicUrl: options.publicUrl });
      await api.register(profileRoutes, { prisma: options.prisma });
      await api.register(passkeyRoutes, { prisma: options.prisma, publicUrl: options.publicUrl });
      await api.register(webhookRoutes, { prisma: options.prisma, secrets, allowPrivateTargets: options.allowPrivateWebhookTargets });
      await api.register(toolRoutes, { prisma: options.prisma, secrets, allowPrivateTargets: options.allowPrivateWebhookTargets });
      await api.register(documentRoutes, { prisma: options.prisma, knowledge, allowPrivateTargets: options.allowPrivateWebhookTargets });
      await api.register(testRunRoutes, { prisma: options.prisma });
      await api.register(playbookRoutes, { prisma: options.prisma });
      await api.register(phoneRoutes, { prisma: options.prisma, secrets, publicUrl: options.publicUrl });
      await api.register(callRoutes, { prisma: options.prisma, storage: recordings });
      await api.register(telephonyRoutes, { prisma: options.prisma, telephony, dialler, carrierUnavailable });
      await api.register(campaignRoutes, { prisma: options.prisma, unavailable: pathUnavailable, wake: () => jobs.wakeCampaigns() });
      await api.register(analyticsRoutes, { prisma: options.prisma });
      await api.register(mcpRoutes);
    },
    { prefix: '/api' },
  );
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    keyCache: import('./auth/key-cache.js').KeyCache;
    flushKeyUsage: () => Promise<void>;
    /** Every route with the auth mode it declared. */
    declaredRoutes: import('./auth/plugin.js').DeclaredRoute[];
  }
}
