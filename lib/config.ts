import path from 'node:path';
import { z } from 'zod';

// Process configuration from the environment, checked once at start-up so a typo fails loudly instead of later.

/** Where the embedded database, recordings and their spools live when DATA_DIR is not set. */
export const DEFAULT_DATA_DIR = './.data';

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
  /** LiveKit server (rooms, agent dispatch, SIP); unset: calls run on the built-in transports only. */
  LIVEKIT_URL: z.string().url().optional(),
  LIVEKIT_API_KEY: z.string().min(1).optional(),
  LIVEKIT_API_SECRET: z.string().min(1).optional(),
  LIVEKIT_AGENT_NAME: z.string().min(1).optional(),
  /** The carrier account's auth token: Media Streams voice webhooks must carry its signature. */
  TWILIO_AUTH_TOKEN: z.string().min(1).optional(),
  /** The public base URL (https://voice.example.com) carriers and browsers reach the service at. */
  PUBLIC_URL: z.string().url().optional(),
  /** Signs media-socket tokens; set it when several API processes sit behind one address. */
  MEDIA_STREAM_SECRET: z.string().min(16).optional(),
  // Read by the end-of-turn model's own process (agent/turn/eot-process-entry.mjs); checked here so a bad value stops start-up.
  EOT_PROCESS_NICE: z.coerce.number().int().min(0).max(19).optional(),
  // Counted per API process (docs/api.md, "Rate limits"); 0 turns a limit off. 100/s per organisation is Stripe's
  // live-mode default; 50/s per key leaves half of it to the organisation's other integrations while one runs a bulk
  // contact sync (180,000 creates an hour; larger syncs use the CSV import). One process answered 74 to 190 contact
  // lists a second on a shared 2-CPU machine (docs/benchmarks.md), so the rate alone does not stop one tenant taking
  // most of a process: the in-flight cap does, by bounding what one tenant holds of the database pool at any moment.
  RATE_LIMIT_ORG_PER_SECOND: z.coerce.number().int().min(0).default(100),
  RATE_LIMIT_KEY_PER_SECOND: z.coerce.number().int().min(0).default(50),
  /** Requests of one organisation answered at once per process: 5 is half the 10 database connections, one query each. */
  RATE_LIMIT_ORG_IN_FLIGHT: z.coerce.number().int().min(0).default(5),
  /** Seconds an idle keep-alive connection is kept (default 72); above the load balancer's own idle timeout. */
  HTTP_KEEP_ALIVE_TIMEOUT_S: z.coerce.number().int().min(1).max(3600).optional(),
});

export interface Config {
  databaseUrl: string | undefined;
  dataDir: string;
  port: number;
  host: string;
  logLevel: string;
  keyCacheTtlMs: number;
  webhookAllowPrivateTargets?: boolean;
  livekit?: { url: string; apiKey: string; apiSecret: string; agentName: string } | undefined;
  twilioAuthToken?: string | undefined;
  publicUrl?: string | undefined;
  mediaStreamSecret?: string | undefined;
  rateLimit: { orgPerSecond: number; keyPerSecond: number; orgInFlight: number };
  httpKeepAliveTimeoutMs?: number | undefined;
}

/** The agent name of workers and dispatches when LIVEKIT_AGENT_NAME is unset. */
export const DEFAULT_AGENT_NAME = 'voice-assistant';

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
  const result = Env.safeParse(cleaned);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid environment: ${problems}`);
  }
  const e = result.data;
  if (e.LIVEKIT_URL && (!e.LIVEKIT_API_KEY || !e.LIVEKIT_API_SECRET)) {
    throw new Error('invalid environment: LIVEKIT_URL needs LIVEKIT_API_KEY and LIVEKIT_API_SECRET');
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
    publicUrl: e.PUBLIC_URL,
    mediaStreamSecret: e.MEDIA_STREAM_SECRET,
    rateLimit: { orgPerSecond: e.RATE_LIMIT_ORG_PER_SECOND, keyPerSecond: e.RATE_LIMIT_KEY_PER_SECOND, orgInFlight: e.RATE_LIMIT_ORG_IN_FLIGHT },
    httpKeepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_S === undefined ? undefined : e.HTTP_KEEP_ALIVE_TIMEOUT_S * 1000,
  };
}
