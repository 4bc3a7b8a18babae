import { onShutdownClosingLast, survivePromiseLeaks } from '../lib/process.js';
import { exitOnStartupFailure, readConfigOrExit, StartupError } from '../lib/startup.js';
import type { AgentWorker } from './worker.js';
import type { MetricsServer } from '../lib/metrics/index.js';

// `npm run agent`: an agent worker on its own, for scaling calls apart from the API. It takes its calls from LiveKit;
// without LiveKit, calls reach a worker only inside `npm start`, through the built-in transports of the same process.
const config = readConfigOrExit();
if (!config.livekit) {
  exitOnStartupFailure(
    new StartupError(
      'npm run agent takes its calls from a LiveKit server: set LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET, or run `npm start`, whose worker runs calls from the built-in transports',
    ),
  );
}
// Loaded after the check: the speech framework takes seconds to load, and a refusal should not wait for it.
const [{ log }, { openDatabase }, { startAgentWorker }, { startProcessMetrics }, { startAgentTracing }] = await Promise.all([
  import('@livekit/agents'),
  import('../prisma/database.js'),
  import('./worker.js'),
  import('../lib/metrics/index.js'),
  import('./tracing.js'),
]);
const tracing = config.tracing && (await startAgentTracing(config.tracing, 'voice-agent'));
const opening = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
let worker: AgentWorker | undefined;
let metrics: MetricsServer | undefined;
onShutdownClosingLast(opening, async () => {
  await worker?.stop();
  await metrics?.close();
  await tracing?.stop();
});
const db = await opening.catch(exitOnStartupFailure);
try {
  metrics = await startProcessMetrics(config.metrics, db.prisma);
  worker = await startAgentWorker({ prisma: db.prisma, databaseUrl: db.url, changes: db.changes, config });
} catch (error) {
  await metrics?.close();
  await db.close();
  exitOnStartupFailure(error);
}
log().info({ mode: worker.mode, metrics: metrics?.url }, 'agent worker started');
survivePromiseLeaks();
