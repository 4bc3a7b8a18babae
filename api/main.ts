import type { FastifyInstance } from 'fastify';
import type { MetricsServer } from '../lib/metrics/index.js';
import type { Tracing } from '../lib/tracing/index.js';
import { onShutdownClosingLast } from '../lib/process.js';
import { ensurePortFree, exitOnStartupFailure, listenProblem, readConfigOrExit } from '../lib/startup.js';

// The API alone (`npm run api`). `npm start` runs it together with the agent worker (main.ts).
const config = readConfigOrExit();
// A port in use stops the start before a database exists that would have to be stopped again.
await ensurePortFree(config.host, config.port).catch(exitOnStartupFailure);
// Loaded after the checks: the API takes seconds to load, and a refusal should not wait for it.
const [{ openDatabase }, { startApi }, { startProcessMetrics }, { startTracing }] = await Promise.all([
  import('../prisma/database.js'),
  import('./server.js'),
  import('../lib/metrics/index.js'),
  import('../lib/tracing/index.js'),
]);
// Before the app is built: its request spans are added only when traces are exported.
const tracing: Tracing | undefined = config.tracing && (await startTracing(config.tracing, 'voice-api'));
const opening = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
let app: FastifyInstance | undefined;
let metrics: MetricsServer | undefined;
onShutdownClosingLast(opening, async () => {
  await app?.close();
  await metrics?.close();
  // Last: the spans of the requests that just finished are sent before the process goes.
  await tracing?.stop();
});
const db = await opening.catch(exitOnStartupFailure);
try {
  metrics = await startProcessMetrics(config.metrics, db.prisma);
  app = await startApi(config, db);
} catch (error) {
  await metrics?.close();
  await db.close();
  exitOnStartupFailure(listenProblem(error, config.host, config.port) ?? error);
}
