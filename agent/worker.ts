import { AgentServer, log, ServerOptions } from '@livekit/agents';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { PrismaClient } from '../prisma/client.js';
import { DEFAULT_AGENT_NAME } from '../lib/config.js';
import { startCallRecovery } from './call/recovery.js';
import { LocalCallRunner } from './local-runner.js';
import { initializeAgentLogger } from './logging.js';
import type { UnstartedCallLimits } from '../modules/calls/unstarted.js';

// The agent worker in one of two modes. With LIVEKIT_URL (and LIVEKIT_API_KEY / LIVEKIT_API_SECRET) it registers with
// LiveKit, takes dispatched jobs (one job = one call, in its own process), reports load, and drains on shutdown.
// Without, it runs calls in this process for the built-in transports.

/** A call is given this long to end by itself when the worker stops; calls average a few minutes. */
export const DRAIN_TIMEOUT_MS = 10 * 60 * 1000;
/** How long closing the LiveKit connection may take once calls have drained. */
export const CLOSE_TIMEOUT_MS = 5_000;
/** LiveKit stops sending jobs to a worker above this load (fraction of CPU). */
export const LOAD_THRESHOLD = 0.75;

export interface WorkerEnv {
  LIVEKIT_URL?: string | undefined;
  LIVEKIT_API_KEY?: string | undefined;
  LIVEKIT_API_SECRET?: string | undefined;
  LIVEKIT_AGENT_NAME?: string | undefined;
  /** Job processes kept warm (VAD loaded) ahead of dispatches; each holds ~150 MB. */
  LIVEKIT_IDLE_PROCESSES?: string | undefined;
  /** The worker's health server (`/` for probes, `/worker` for its state); the framework's default port is 8081. */
  AGENT_HEALTH_PORT?: string | undefined;
  /** Its address; 0.0.0.0 in a container so the orchestrator's probe reaches it. */
  AGENT_HEALTH_HOST?: string | undefined;
}

/** The framework's own default in production; set AGENT_HEALTH_PORT to run several workers on one host. */
export const DEFAULT_HEALTH_PORT = 8081;

export interface AgentWorker {
  mode: 'local' | 'livekit';
  /** Present in local mode: the entry point for the built-in transports. */
  runner?: LocalCallRunner;
  stop(options?: { drainTimeoutMs?: number }): Promise<void>;
}

export interface AgentWorkerOptions {
  prisma: PrismaClient;
  databaseUrl: string;
  dataDir: string;
  env?: WorkerEnv;
  logLevel?: string;
  /**
   * The sweep that ends calls whose process died (agent/call/recovery.ts) and calls that never started and no longer can
   * (modules/calls/unstarted.ts); on by default. Every worker runs it, LiveKit or local: wherever calls run there is one.
   */
  callRecovery?: { intervalMs?: number; staleAfterMs?: number; unstartedLimits?: Partial<UnstartedCallLimits> } | false;
}

export async function startAgentWorker(options: AgentWorkerOptions): Promise<AgentWorker> {
  const env = options.env ?? process.env;
  initializeAgentLogger(options.logLevel ?? 'info');
  // It reads the recordings calls spool under the same DATA_DIR, and stores their tracks where calls store theirs.
  const recovery = options.callRecovery === false ? undefined : startCallRecovery(options.prisma, { dataDir: options.dataDir, ...options.callRecovery });
  if (!env.LIVEKIT_URL) {
    const runner = new LocalCallRunner(options.prisma, options.dataDir);
    return {
      mode: 'local',
      runner,
      stop: async (o) => {
        await runner.drain(o?.drainTimeoutMs ?? DRAIN_TIMEOUT_MS);
        await recovery?.stop();
      },
    };
  }
  // Job processes open their own database connection from this variable (the embedded cluster's URL included).
  process.env.DATABASE_URL = options.databaseUrl;
  process.env.DATA_DIR = options.dataDir;
  const server = new AgentServer(
    new ServerOptions({
      agent: fileURLToPath(new URL('./livekit-job-entry.mjs', import.meta.url)),
      wsURL: env.LIVEKIT_URL,
      apiKey: env.LIVEKIT_API_KEY,
      apiSecret: env.LIVEKIT_API_SECRET,
      // Named, so LiveKit sends a worker only the calls the API dispatches explicitly (and SIP dispatch rules name it).
      agentName: env.LIVEKIT_AGENT_NAME || DEFAULT_AGENT_NAME,
      loadThreshold: LOAD_THRESHOLD,
      drainTimeout: DRAIN_TIMEOUT_MS,
      production: true,
      numIdleProcesses: Number(env.LIVEKIT_IDLE_PROCESSES ?? 2),
      // The framework reads 0 as "its default", so an ephemeral port cannot be asked for: each worker on a host needs
      // its own port.
      port: Number(env.AGENT_HEALTH_PORT ?? DEFAULT_HEALTH_PORT),
      host: env.AGENT_HEALTH_HOST ?? '127.0.0.1',
    }),
  );
  const running = server.run();
  running.catch(() => {});
  return {
    mode: 'livekit',
    stop: async (o) => {
      await server.drain(o?.drainTimeoutMs ?? DRAIN_TIMEOUT_MS).catch(() => {});
      // The framework's close waits for every job offer it accepted to be assigned, and an assignment that never comes
      // (LiveKit gave the job to another worker, or lost it) would hold the shutdown for ever: the wait is bounded.
      const closed = await Promise.race([server.close().then(() => true), delay(CLOSE_TIMEOUT_MS).then(() => false)]);
      if (!closed) log().warn({ timeoutMs: CLOSE_TIMEOUT_MS }, 'worker closed with a job offer still unassigned');
      await recovery?.stop();
    },
  };
}
