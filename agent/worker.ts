import { loadSecretsKey, SecretBox } from '../lib/secret-box.js';
import { AgentServer, log, ServerOptions } from '@livekit/agents';
import { fileURLToPath } from 'node:url';
import type { PrismaClient } from '../prisma/client.js';
import type { Config } from '../lib/config.js';
import { withTimeout } from '../lib/async.js';
import { startCallRecovery } from './call/recovery.js';
import { startTestRunWorker, type TestRunWorkerOptions } from './test-runs/worker.js';
import { handOverToJobProcesses } from './livekit-job-handover.js';
import { LocalCallRunner } from './local-runner.js';
import { initializeAgentLogger } from './logging.js';
import { vendorAccessOf } from './providers/speech-providers.js';
import { configureEotProcess } from './turn/eot-process.js';
import type { UnstartedCallLimits } from '../modules/calls/index.js';
import type { ChangeFeed } from '../lib/pg-listen.js';
import { FULL_LOAD, workerLoad } from './load/process-load.js';

// The agent worker in one of two modes. With LiveKit configured (LIVEKIT_URL, LIVEKIT_API_KEY, LIVEKIT_API_SECRET) it
// registers with LiveKit, takes dispatched jobs (one job = one call, in its own process), reports load, and drains on
// shutdown. Without, it runs calls in this process for the built-in transports.

/** How long closing the LiveKit connection may take once calls have drained. */
export const CLOSE_TIMEOUT_MS = 5_000;
/** LiveKit stops sending jobs to a worker at this load (agent/load/process-load.ts). */
export const LOAD_THRESHOLD = FULL_LOAD;

/** What of the process's configuration the worker and its calls use. */
export type WorkerConfig = Pick<
  Config,
  'dataDir' | 'logLevel' | 'livekit' | 'agent' | 'vendors' | 'secretsKey' | 'webhookAllowPrivateTargets' | 'carrier' | 'carrierApiBaseUrl' | 'publicUrl'
> &
  Partial<Pick<Config, 'tracing'>>;

export interface AgentWorker {
  mode: 'local' | 'livekit';
  /** Present in local mode: the entry point for the built-in transports. */
  runner?: LocalCallRunner;
  stop(options?: { drainTimeoutMs?: number }): Promise<void>;
}

export interface AgentWorkerOptions {
  prisma: PrismaClient;
  /** The database this process opened (the embedded cluster's URL included): LiveKit job processes connect to it. */
  databaseUrl: string;
  /** The process's change feed (prisma/database.ts): queued test runs are claimed at once. */
  changes?: ChangeFeed;
  config: WorkerConfig;
  /**
   * The sweep that ends calls whose process died (agent/call/recovery.ts) and calls that never started and no longer can
   * (modules/calls/unstarted.ts); on by default. Every worker runs it, LiveKit or local: wherever calls run there is one.
   */
  callRecovery?: { intervalMs?: number; staleAfterMs?: number; unstartedLimits?: Partial<UnstartedCallLimits> } | false;
  /** The test-run job (agent/test-runs/), on by default in both modes: text conversations, run in this process. */
  testRuns?: Partial<Pick<TestRunWorkerOptions, 'concurrency' | 'leaseMs' | 'pollIntervalMs'>> | false;
}

export async function startAgentWorker(options: AgentWorkerOptions): Promise<AgentWorker> {
  const { config } = options;
  initializeAgentLogger(config.logLevel);
  configureEotProcess({ nice: config.agent.eotProcessNice, logLevel: config.logLevel });
  const access = vendorAccessOf(config);
  // It reads the recordings calls spool under the same DATA_DIR, and stores their tracks where calls store theirs; the
  // analysis of a recovered call uses the keys calls use.
  const secrets = new SecretBox(loadSecretsKey(config.secretsKey, config.dataDir));
  const recovery =
    options.callRecovery === false ? undefined : startCallRecovery(options.prisma, { dataDir: config.dataDir, access, secrets, ...options.callRecovery });
  const testRuns =
    options.testRuns === false
      ? undefined
      : startTestRunWorker(options.prisma, {
          changes: options.changes,
          access,
          secrets: new SecretBox(loadSecretsKey(config.secretsKey, config.dataDir)),
          allowPrivateToolTargets: config.webhookAllowPrivateTargets ?? false,
          ...options.testRuns,
        });
  if (!config.livekit) {
    const runner = new LocalCallRunner(options.prisma, config.dataDir, {
      access,
      secrets,
      allowPrivateToolTargets: config.webhookAllowPrivateTargets ?? false,
      carrier: config.carrier,
      carrierApiBaseUrl: config.carrierApiBaseUrl,
      publicUrl: config.publicUrl,
      startTurnModel: true,
    });
    return {
      mode: 'local',
      runner,
      stop: async (o) => {
        // Runs under way go back to the queue at once, while the calls drain.
        await Promise.all([runner.drain(o?.drainTimeoutMs ?? config.agent.drainTimeoutMs), testRuns?.stop()]);
        await recovery?.stop();
      },
    };
  }
  handOverToJobProcesses({
    databaseUrl: options.databaseUrl,
    dataDir: config.dataDir,
    vendors: { ...config.vendors, privateHosts: [...config.vendors.privateHosts] },
    agent: { pocketsphinxBin: config.agent.pocketsphinxBin },
    ...(config.secretsKey ? { secretsKey: config.secretsKey } : {}),
    allowPrivateToolTargets: config.webhookAllowPrivateTargets ?? false,
    livekit: { url: config.livekit.url, apiKey: config.livekit.apiKey, apiSecret: config.livekit.apiSecret },
    ...(config.tracing ? { tracing: config.tracing } : {}),
  });
  const server = new AgentServer(
    new ServerOptions({
      agent: fileURLToPath(new URL('./livekit-job-entry.mjs', import.meta.url)),
      wsURL: config.livekit.url,
      apiKey: config.livekit.apiKey,
      apiSecret: config.livekit.apiSecret,
      // Named, so LiveKit sends a worker only the calls the API dispatches explicitly (and SIP dispatch rules name it).
      agentName: config.livekit.agentName,
      loadThreshold: LOAD_THRESHOLD,
      // The machine's CPU and the busiest job process's, instead of the framework's machine CPU alone: a call's process
      // saturating its core makes its audio late while the machine as a whole looks half idle.
      loadFunc: async () => workerLoad(),
      drainTimeout: config.agent.drainTimeoutMs,
      production: true,
      numIdleProcesses: config.agent.idleProcesses,
      port: config.agent.healthPort,
      host: config.agent.healthHost,
    }),
  );
  const running = server.run();
  running.catch(() => {});
  return {
    mode: 'livekit',
    stop: async (o) => {
      await Promise.all([server.drain(o?.drainTimeoutMs ?? config.agent.drainTimeoutMs).catch(() => {}), testRuns?.stop()]);
      // The framework's close waits for every job offer it accepted to be assigned, and an assignment that never comes
      // (LiveKit gave the job to another worker, or lost it) would hold the shutdown for ever: the wait is bounded.
      const closed = await withTimeout(
        server.close().then(() => true),
        CLOSE_TIMEOUT_MS,
      );
      if (!closed) log().warn({ timeoutMs: CLOSE_TIMEOUT_MS }, 'worker closed with a job offer still unassigned');
      await recovery?.stop();
    },
  };
}
