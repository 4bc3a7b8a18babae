import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import type { AgentWorker } from './agent/worker.js';
import type { MetricsServer } from './lib/metrics/index.js';
import type { Tracing } from './lib/tracing/index.js';
import { onShutdownClosingLast, survivePromiseLeaks } from './lib/process.js';
import { browserUrl, ensurePortFree, exitOnStartupFailure, listenProblem, printReady, readConfigOrExit } from './lib/startup.js';

// `npm start`: the whole service in one process on one database (embedded Postgres under DATA_DIR when DATABASE_URL is
// unset): the API and an agent worker. Production runs `npm run api` and `npm run agent` as separate processes on a
// shared Postgres, as many of each as load needs.
const config = readConfigOrExit();
// A port in use stops the start before a database or worker exists that would have to be stopped again.
await ensurePortFree(config.host, config.port).catch(exitOnStartupFailure);
// Loaded after the checks: the API and the speech framework take seconds to load, and a refusal should not wait. The
// database opens meanwhile (on a fresh DATA_DIR, creating the cluster takes seconds too): its processes and this one's
// loading share the machine's cores instead of taking turns.
const { openDatabase } = await import('./prisma/database.js');
const opening = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
const loading = Promise.all([
  import('./agent/io/audio-link.js'),
  import('./agent/worker.js'),
  import('./api/server.js'),
  import('./lib/metrics/index.js'),
  import('./agent/tracing.js'),
]).then(
  (modules) => ({ modules }),
  // Held until the database is open, so that a failure stops it too.
  (error: unknown) => ({ error }),
);
let worker: AgentWorker | undefined;
let app: FastifyInstance | undefined;
let metrics: MetricsServer | undefined;
let tracing: Tracing | undefined;
// Handlers from the first moment a database may be running, so that no signal leaves it behind.
onShutdownClosingLast(
  opening,
  async () => {
    // Order matters. Running calls finish first (SHUTDOWN_DRAIN_S at most, then they end as `worker_shutdown`): the
    // worker refuses new ones meanwhile, and the API keeps serving what running calls need (their audio sockets, the
    // carrier's status callbacks). Closing the API first cut every browser and carrier call at once. Then the API stops
    // taking requests, and the database they write to closes last.
    await worker?.stop();
    await app?.close();
    await metrics?.close();
    // Last: the spans of what just finished are sent before the process goes.
    await tracing?.stop();
  },
  () => (app?.log.info.bind(app.log) ?? console.error)('service stopped'),
);
const db = await opening.catch(exitOnStartupFailure);
const loaded = await loading;
if ('error' in loaded) {
  await db.close();
  exitOnStartupFailure(loaded.error);
}
const [{ audioRunnerOf }, { startAgentWorker }, { startApi }, { startProcessMetrics }, { startAgentTracing }] = loaded.modules;
try {
  // Before the API is built (its request spans are added only when traces are exported) and before any call runs.
  if (config.tracing) tracing = await startAgentTracing(config.tracing, 'voice-platform');
  metrics = await startProcessMetrics(config.metrics, db.prisma);
  worker = await startAgentWorker({ prisma: db.prisma, databaseUrl: db.url, changes: db.changes, config });
  // The built-in transports hand their calls to this process's worker (when it runs calls locally, without LiveKit).
  app = await startApi(config, db, { callAudioRunner: worker.runner ? audioRunnerOf(worker.runner) : undefined });
} catch (error) {
  // Nothing has run yet: leave no worker or database behind (the database keeps running for other processes using it).
  await worker?.stop({ drainTimeoutMs: 0 });
  await metrics?.close();
  await tracing?.stop();
  await db.close();
  exitOnStartupFailure(listenProblem(error, config.host, config.port) ?? error);
}
const { port } = app.server.address() as AddressInfo;
app.log.info(
  { url: `http://${config.host}:${port}`, metrics: metrics?.url, embeddedDatabase: db.embedded, databaseFiles: db.cluster?.directory, agentMode: worker.mode },
  'service started',
);
printReady(browserUrl(config.host, port, config.publicUrl));
if (db.cluster?.origin === 'adopted') {
  app.log.warn({ databaseFiles: db.cluster.directory }, 'took over an embedded database a process that ended left running; it stops with this one');
}
survivePromiseLeaks();
