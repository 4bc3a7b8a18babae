import path from 'node:path';
import { z } from 'zod';
import { parseHostAllowances, type HostAllowance } from './net/vendor-targets.js';
import type { TracingSettings } from './tracing/index.js';

// Process configuration from the environment: one schema for every process (the API, the agent worker, `npm start`
// running both, the operator CLI), checked once at start-up so a typo fails loudly instead of later. Nothing below
// the process's entry point reads the environment: each part gets the piece of Config it needs.

/** Where the embedded database, recordings and their spools live when DATA_DIR is not set. */
export const DEFAULT_DATA_DIR = './.data';
/** The agent name of workers and dispatches when LIVEKIT_AGENT_NAME is unset. */
export const DEFAULT_AGENT_NAME = 'voice-assistant';
/** The worker's health server port when AGENT_HEALTH_PORT is unset: the framework's own default in production. */
export const DEFAULT_HEALTH_PORT = 8081;
/** The end-of-turn model's process runs at this nice value when EOT_PROCESS_NICE is unset: below the calls' 0, so their audio pacing runs first. */
export const DEFAULT_EOT_PROCESS_NICE = 15;

const Env = z.object({
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().min(1).default(DEFAULT_DATA_DIR),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Seconds a key lookup is cached: the longest a revoked key keeps working. */
  API_KEY_CACHE_TTL_S: z.coerce.number().min(0).max(300).default(5),
  /** Lets webhooks reach loopback, private and link-local addresses: for private deployments and local testing only. */
  WEBHOOK_ALLOW_PRIVATE_TARGETS: z.enum(['true', 'false']).default('false'),
  /**
   * Loopback or private hosts an assistant's vendor URLs may name (an LLM server on this machine): comma-separated
   * `host` or `host:port` (`127.0.0.1:11434,llm.internal`). Every other vendor URL must reach a public address.
   */
  VENDOR_PRIVATE_HOSTS: z
    .string()
    .optional()
    .superRefine((v, ctx) => {
      const { invalid } = parseHostAllowances(v);
      if (invalid.length > 0) ctx.addIssue({ code: 'custom', message: `not a host or host:port: ${invalid.join(', ')}` });
    }),
  /** LiveKit server (rooms, agent dispatch, SIP); unset: calls run on the built-in transports only. */
  LIVEKIT_URL: z.string().url().optional(),
  LIVEKIT_API_KEY: z.string().min(1).optional(),
  LIVEKIT_API_SECRET: z.string().min(1).optional(),
  LIVEKIT_AGENT_NAME: z.string().min(1).optional(),
  /**
   * Job processes kept warm (VAD loaded) ahead of dispatches; each holds ~150 MB. The framework reads 0 as "its
   * default" (one per CPU, at most 4).
   */
  LIVEKIT_IDLE_PROCESSES: z.coerce.number().int().min(0).default(2),
  /**
   * The LiveKit-mode worker's health server (`/` for probes, `/worker` for its state). The framework reads 0 as "its
   * default", so an ephemeral port cannot be asked for: each worker on a host needs its own.
   */
  AGENT_HEALTH_PORT: z.coerce.number().int().min(1).max(65535).default(DEFAULT_HEALTH_PORT),
  /** Its address; 0.0.0.0 in a container so the orchestrator's probe reaches it. */
  AGENT_HEALTH_HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * The Prometheus endpoint's port (`GET /metrics`, lib/metrics/server.ts); unset, the process serves no metrics. A port
   * of its own, never the API's: the figures cover every organisation, so only the operator's scraper should reach them.
   */
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /** Its address; 0.0.0.0 in a container so the scraper reaches it. */
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * OpenTelemetry's own variables: traces are exported over OTLP/HTTP (protobuf) when either endpoint is set, to
   * `<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces` or to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given; `none` in
   * OTEL_TRACES_EXPORTER turns them off. The SDK reads the others (headers, sampler, batching) itself.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'none']).default('otlp'),
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  /** Whether the speech framework's spans keep transcripts, prompts and tool arguments (lib/tracing/provider.ts). */
  TRACES_INCLUDE_CONTENT: z.enum(['true', 'false']).default('false'),
  /** The carrier account's auth token: Media Streams voice webhooks must carry its signature. */
  TWILIO_AUTH_TOKEN: z.string().min(1).optional(),
  /** The carrier account's SID: with the auth token, calls on Media Streams can be transferred (its REST API). */
  TWILIO_ACCOUNT_SID: z
    .string()
    .regex(/^AC[0-9a-fA-F]{32}$/, 'must be AC followed by 32 hex digits')
    .optional(),
  /** The carrier's REST API: Twilio's, or a compatible carrier's. */
  TWILIO_API_BASE_URL: z.url({ protocol: /^https?$/ }).default('https://api.twilio.com'),
  /** The public base URL (https://voice.example.com) carriers and browsers reach the service at. */
  PUBLIC_URL: z.string().url().optional(),
  /**
   * How many proxies (load balancers) stand in front of the API: the client's address is then read from
   * X-Forwarded-For that many hops back. 0 (the default) trusts no such header: with a proxy in front and 0 here, every
   * person signs in from the proxy's address, and the sign-in limit per address counts them all together.
   */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  /**
   * Seals stored secrets (tool credentials, assistant vendor keys, webhook signing secrets): base64 of 32 random bytes
   * (`openssl rand -base64 32`). Unset, a key is made and kept in DATA_DIR/secrets.key, which suits one host; processes
   * on several hosts must share this value.
   */
  SECRETS_KEY: z
    .string()
    .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be base64 of 32 bytes')
    .optional(),
  /** Signs media-socket tokens; set it when several API processes sit behind one address. */
  MEDIA_STREAM_SECRET: z.string().min(16).optional(),
  /** The offline recogniser's program (Debian's `pocketsphinx` package), found on the PATH unless a path is given. */
  POCKETSPHINX_BIN: z.string().min(1).default('pocketsphinx_continuous'),
  /** Scheduling priority of the end-of-turn model's own process (agent/turn/eot-process.ts), for calls run without LiveKit. */
  EOT_PROCESS_NICE: z.coerce.number().int().min(0).max(19).default(DEFAULT_EOT_PROCESS_NICE),
  /**
   * Seconds a stopping worker lets running calls go on before ending them (`worker_shutdown`); calls last a few
   * minutes, and an orchestrator's grace period (Kubernetes' terminationGracePeriodSeconds) should be a little longer.
   */
  SHUTDOWN_DRAIN_S: z.coerce.number().int().min(0).max(3600).default(600),
  // Counted per API process (docs/api.md, "Rate limits"); 0 turns a limit off. 100/s per organisation is Stripe's
  // live-mode default; 50/s per key leaves half of it to the organisation's other integrations while one runs a bulk
  // contact sync (180,000 creates an hour; larger syncs use the CSV import). One process answered 74 to 190 contact
  // lists a second on a shared 2-CPU machine (docs/benchmarks.md), so the rate alone does not stop one tenant taking
  // most of a process: the in-flight cap does, by bounding what one tenant holds of the database pool at any moment.
  RATE_LIMIT_ORG_PER_SECOND: z.coerce.number().int().min(0).default(100),
  RATE_LIMIT_KEY_PER_SECOND: z.coerce.number().int().min(0).default(50),
  /** Requests of one organisation answered at once per process: 5 is half the 10 database connections, one query each. */
  RATE_LIMIT_ORG_IN_FLIGHT: z.coerce.number().int().min(0).default(5),
  /**
   * Where the per-second limits count: `postgres`, shared by every API process on the database; `redis`, shared on
   * REDIS_URL; or each process's `memory`. Unset: `redis` when REDIS_URL is set, else `postgres`.
   */
  RATE_LIMIT_STORE: z.enum(['postgres', 'redis', 'memory']).optional(),
  /** A Redis server the API processes share (`redis://[:password@]host:6379[/db]`, `rediss://` with TLS). */
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  /**
   * How the dashboard's mail (password reset links, invitations) leaves: unset, it is appended to DATA_DIR/mail.log for
   * the operator; an SMTP URL (`smtps://user:pass@smtp.example.com`) sends it, from MAIL_FROM.
   */
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  MAIL_FROM: z.string().min(3).default('Voice assistants <no-reply@localhost>'),
  /** Seconds an idle keep-alive connection is kept (default 72); above the load balancer's own idle timeout. */
  HTTP_KEEP_ALIVE_TIMEOUT_S: z.coerce.number().int().min(1).max(3600).optional(),
});

// Vendor keys and endpoint overrides follow one naming rule, `<VENDOR>_API_KEY` and `<VENDOR>_BASE_URL`
// (DEEPGRAM_API_KEY, ELEVENLABS_BASE_URL), so they are recognised by their names: which vendors exist is the
// assistants' business (modules/assistants/vendors.ts), and a vendor added there needs nothing here.

export const apiKeyVariable = (vendor: string): string => `${vendor.toUpperCase()}_API_KEY`;
export const baseUrlVariable = (vendor: string): string => `${vendor.toUpperCase()}_BASE_URL`;

/**
 * A vendor's address: an http(s) or ws(s) URL. `localhost:11434/v1` is a URL whose scheme is `localhost:`, and the
 * typo would otherwise surface as a failed call.
 */
const VendorUrl = z.url({ protocol: /^(https?|wss?)$/ });

/** One word before the suffix: `NEXT_PUBLIC_BASE_URL` is some other program's setting, not a vendor's. */
const VENDOR_VARIABLE = /^([A-Z][A-Z0-9]*)_(API_KEY|BASE_URL)$/;

/** Every vendor's key and endpoint override this process has, by the vendor's name as the assistants spell it (`deepgram`). */
export interface VendorSettings {
  apiKeys: Readonly<Record<string, string>>;
  baseUrls: Readonly<Record<string, string>>;
  /** VENDOR_PRIVATE_HOSTS: the non-public hosts an assistant's vendor URLs may name (lib/net/vendor-targets.ts). */
  privateHosts: readonly HostAllowance[];
}

function vendorVariables(env: Record<string, string | undefined>): [name: string, vendor: string, kind: 'API_KEY' | 'BASE_URL'][] {
  const found: [string, string, 'API_KEY' | 'BASE_URL'][] = [];
  for (const name of Object.keys(env)) {
    const match = VENDOR_VARIABLE.exec(name);
    // LIVEKIT_API_KEY and its like are settings of their own, above.
    if (match && !(name in Env.shape)) found.push([name, match[1]!.toLowerCase(), match[2] as 'API_KEY' | 'BASE_URL']);
  }
  return found;
}

/**
 * The vendor variables of `env`, unchecked: for a reader that wants the environment as it is now (the API's warnings on
 * an assistant). A process's own configuration comes from readConfig, which checks them.
 */
export function vendorSettingsOf(env: Record<string, string | undefined>): VendorSettings {
  const apiKeys: Record<string, string> = {};
  const baseUrls: Record<string, string> = {};
  for (const [name, vendor, kind] of vendorVariables(env)) {
    // An empty variable is an unset one: `DEEPGRAM_API_KEY=` in a compose file must not count as a key.
    const value = env[name];
    if (!value) continue;
    if (kind === 'API_KEY') apiKeys[vendor] = value;
    else baseUrls[vendor] = value;
  }
  return { apiKeys, baseUrls, privateHosts: parseHostAllowances(env.VENDOR_PRIVATE_HOSTS).allowed };
}

/** Settings of the agent worker and the calls it runs. */
export interface AgentConfig {
  idleProcesses: number;
  healthPort: number;
  healthHost: string;
  pocketsphinxBin: string;
  eotProcessNice: number;
  /** How long a stopping worker lets running calls go on (SHUTDOWN_DRAIN_S). */
  drainTimeoutMs: number;
}

export interface Config {
  databaseUrl: string | undefined;
  /** The Prometheus endpoint, when METRICS_PORT is set. */
  metrics: { host: string; port: number } | undefined;
  /** OTLP trace export, when an OTLP endpoint is set. */
  tracing: TracingSettings | undefined;
  dataDir: string;
  port: number;
  host: string;
  logLevel: string;
  keyCacheTtlMs: number;
  webhookAllowPrivateTargets?: boolean;
  livekit?: { url: string; apiKey: string; apiSecret: string; agentName: string } | undefined;
  twilioAuthToken?: string | undefined;
  /** The carrier's REST account, when both TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN are set: transfers of Media Streams calls. */
  carrier?: { accountSid: string; authToken: string; apiBaseUrl: string } | undefined;
  /** The carrier's REST API for every carrier connection (TWILIO_API_BASE_URL). */
  carrierApiBaseUrl: string;
  publicUrl?: string | undefined;
  /** TRUST_PROXY_HOPS: proxies in front of the API whose X-Forwarded-For is believed. */
  trustProxyHops: number;
  mediaStreamSecret?: string | undefined;
  /** SECRETS_KEY as given; unset, the key file under `dataDir` is used (lib/secret-box.ts). */
  secretsKey?: string | undefined;
  rateLimit: { orgPerSecond: number; keyPerSecond: number; orgInFlight: number; store: 'postgres' | 'redis' | 'memory'; redisUrl?: string | undefined };
  httpKeepAliveTimeoutMs?: number | undefined;
  /** SMTP_URL and MAIL_FROM; without an SMTP URL, mail goes to DATA_DIR/mail.log. */
  mail: { smtpUrl?: string | undefined; from: string };
  agent: AgentConfig;
  vendors: VendorSettings;
}

/** The environment's configuration; throws `invalid environment: NAME: what is wrong; ...` on any bad variable. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
  const Vendors = z.object(Object.fromEntries(vendorVariables(cleaned).map(([name, , kind]) => [name, kind === 'BASE_URL' ? VendorUrl : z.string().min(1)])));
  const result = Env.safeParse(cleaned);
  const vendors = Vendors.safeParse(cleaned);
  if (!result.success || !vendors.success) {
    const issues = [...(result.error?.issues ?? []), ...(vendors.error?.issues ?? [])];
    const problems = issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid environment: ${problems}`);
  }
  const e = result.data;
  if (e.LIVEKIT_URL && (!e.LIVEKIT_API_KEY || !e.LIVEKIT_API_SECRET)) {
    throw new Error('invalid environment: LIVEKIT_URL needs LIVEKIT_API_KEY and LIVEKIT_API_SECRET');
  }
  if (e.TWILIO_ACCOUNT_SID && !e.TWILIO_AUTH_TOKEN) {
    throw new Error('invalid environment: TWILIO_ACCOUNT_SID needs TWILIO_AUTH_TOKEN');
  }
  if (e.RATE_LIMIT_STORE === 'redis' && !e.REDIS_URL) {
    throw new Error('invalid environment: RATE_LIMIT_STORE=redis needs REDIS_URL');
  }
  return {
    databaseUrl: e.DATABASE_URL,
    dataDir: path.resolve(e.DATA_DIR),
    port: e.PORT,
    host: e.HOST,
    logLevel: e.LOG_LEVEL,
    keyCacheTtlMs: e.API_KEY_CACHE_TTL_S * 1000,
    webhookAllowPrivateTargets: e.WEBHOOK_ALLOW_PRIVATE_TARGETS === 'true',
    livekit: e.LIVEKIT_URL
      ? { url: e.LIVEKIT_URL, apiKey: e.LIVEKIT_API_KEY!, apiSecret: e.LIVEKIT_API_SECRET!, agentName: e.LIVEKIT_AGENT_NAME ?? DEFAULT_AGENT_NAME }
      : undefined,
    twilioAuthToken: e.TWILIO_AUTH_TOKEN,
    carrier:
      e.TWILIO_ACCOUNT_SID && e.TWILIO_AUTH_TOKEN
        ? { accountSid: e.TWILIO_ACCOUNT_SID, authToken: e.TWILIO_AUTH_TOKEN, apiBaseUrl: e.TWILIO_API_BASE_URL }
        : undefined,
    carrierApiBaseUrl: e.TWILIO_API_BASE_URL,
    publicUrl: e.PUBLIC_URL,
    trustProxyHops: e.TRUST_PROXY_HOPS,
    mediaStreamSecret: e.MEDIA_STREAM_SECRET,
    secretsKey: e.SECRETS_KEY,
    rateLimit: {
      orgPerSecond: e.RATE_LIMIT_ORG_PER_SECOND,
      keyPerSecond: e.RATE_LIMIT_KEY_PER_SECOND,
      orgInFlight: e.RATE_LIMIT_ORG_IN_FLIGHT,
      store: e.RATE_LIMIT_STORE ?? (e.REDIS_URL ? 'redis' : 'postgres'),
      redisUrl: e.REDIS_URL,
    },
    httpKeepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_S === undefined ? undefined : e.HTTP_KEEP_ALIVE_TIMEOUT_S * 1000,
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM },
    metrics: e.METRICS_PORT === undefined ? undefined : { host: e.METRICS_HOST, port: e.METRICS_PORT },
    tracing: tracingOf(e),
    agent: {
      idleProcesses: e.LIVEKIT_IDLE_PROCESSES,
      healthPort: e.AGENT_HEALTH_PORT,
      healthHost: e.AGENT_HEALTH_HOST,
      pocketsphinxBin: e.POCKETSPHINX_BIN,
      eotProcessNice: e.EOT_PROCESS_NICE,
      drainTimeoutMs: e.SHUTDOWN_DRAIN_S * 1000,
    },
    vendors: vendorSettingsOf(cleaned),
  };
}

/** Where traces go, as OpenTelemetry's variables say (the specification's rules for the two endpoint variables). */
function tracingOf(e: z.infer<typeof Env>): TracingSettings | undefined {
  if (e.OTEL_TRACES_EXPORTER === 'none') return undefined;
  const endpoint = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (e.OTEL_EXPORTER_OTLP_ENDPOINT && `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`);
  if (!endpoint) return undefined;
  return { endpoint, serviceName: e.OTEL_SERVICE_NAME, includeContent: e.TRACES_INCLUDE_CONTENT === 'true' };
}
