import { listenProblem, type ListenSettingNames } from '../startup.js';
import { reportDatabaseQueues, type QueueDatabase } from './database-gauges.js';
import { startMetricsServer, type MetricsServer } from './server.js';

// The process's metrics for the operator: the instruments the API and the calls record into, and the endpoint that
// serves them. docs/operations.md says what each means and what to watch.

export {
  callStarted,
  dialStarted,
  observeEotInference,
  observeFrameLateness,
  observeHttpResponse,
  observeTurnLatency,
  observeVadInference,
  registry,
  watchConnectionPool,
  type ConnectionPool,
} from './registry.js';
export { reportDatabaseQueues, startMetricsServer, type MetricsServer, type QueueDatabase };

/** How a refused endpoint is named to the operator: by its own settings, not the API's PORT and HOST. */
const METRICS_PORT: ListenSettingNames = { what: 'metrics port', port: 'METRICS_PORT', host: 'METRICS_HOST', inUseHint: '' };

/**
 * The endpoint of a service process (API, agent worker, or both in `npm start`) when METRICS_PORT is set, reporting the
 * database's queues beside the process's own figures; undefined when it is not set. A port in use fails the start.
 */
export async function startProcessMetrics(settings: { host: string; port: number } | undefined, prisma: QueueDatabase): Promise<MetricsServer | undefined> {
  if (!settings) return undefined;
  const stopReporting = reportDatabaseQueues(prisma);
  try {
    const server = await startMetricsServer(settings);
    return {
      url: server.url,
      async close() {
        stopReporting();
        await server.close();
      },
    };
  } catch (error) {
    stopReporting();
    // Each process on a host needs a port of its own.
    throw listenProblem(error, settings.host, settings.port, METRICS_PORT) ?? error;
  }
}
