import { StartupError } from '../startup.js';
import { reportDatabaseQueues, type QueueDatabase } from './database-gauges.js';
import { startMetricsServer, type MetricsServer } from './server.js';

// The process's metrics for the operator: the instruments the API and the calls record into, and the endpoint that
// serves them. docs/operations.md says what each means and what to watch.

export { callStarted, dialStarted, observeEotInference, observeHttpResponse, observeTurnLatency, registry } from './registry.js';
export { reportDatabaseQueues, startMetricsServer, type MetricsServer, type QueueDatabase };

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
    throw metricsListenProblem(error, settings) ?? error;
  }
}

/** The endpoint's port or address refused, said in terms of its own settings (not the API's PORT and HOST). */
function metricsListenProblem(error: unknown, { host, port }: { host: string; port: number }): StartupError | undefined {
  switch ((error as NodeJS.ErrnoException | undefined)?.code) {
    case 'EADDRINUSE':
      return new StartupError(`metrics port ${port} on ${host} is already in use: set METRICS_PORT to a free port (each process on a host needs its own)`);
    case 'EACCES':
      return new StartupError(`metrics port ${port} on ${host} needs privileges this process does not have: set METRICS_PORT to 1024 or above`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new StartupError(`METRICS_HOST ${host} is not an address of this machine: set it to one (127.0.0.1, or 0.0.0.0 for every interface)`);
    default:
      return undefined;
  }
}
