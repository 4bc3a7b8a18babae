import net from 'node:net';
import { readConfig, type Config } from './config.js';

// Start-up failures an operator can fix are one sentence on stderr and exit code 1, not a stack trace.

/** A start-up failure whose message says, in one sentence, what is wrong and what to do. */
export class StartupError extends Error {
  override name = 'StartupError';
}

/** Prints why the process cannot start and exits with code 1. */
export function exitOnStartupFailure(error: unknown): never {
  if (error instanceof StartupError) console.error(`cannot start: ${error.message}`);
  else console.error('cannot start:', error);
  process.exit(1);
}

/** The environment's configuration, or the process stops with the offending variable's name. */
export function readConfigOrExit(): Config {
  try {
    return readConfig();
  } catch (error) {
    exitOnStartupFailure(new StartupError(error instanceof Error ? error.message : String(error)));
  }
}

/** The settings a listening socket comes from, as an operator's error names them. */
export interface ListenSettingNames {
  /** What the port is called in the message ("port", "metrics port"). */
  what: string;
  port: string;
  host: string;
  /** Said after "already in use". */
  inUseHint: string;
}

const SERVICE_PORT: ListenSettingNames = { what: 'port', port: 'PORT', host: 'HOST', inUseHint: ' (is the service already running?)' };

/** What an operator should read when HOST:PORT (or another listening setting) cannot be listened on; undefined for other errors. */
export function listenProblem(error: unknown, host: string, port: number, names: ListenSettingNames = SERVICE_PORT): StartupError | undefined {
  switch ((error as NodeJS.ErrnoException | undefined)?.code) {
    case 'EADDRINUSE':
      return new StartupError(`${names.what} ${port} on ${host} is already in use${names.inUseHint}: stop that process or set ${names.port} to a free port`);
    case 'EACCES':
      return new StartupError(`${names.what} ${port} on ${host} needs privileges this process does not have: set ${names.port} to 1024 or above`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new StartupError(`${names.host} ${host} is not an address of this machine: set ${names.host} to one (127.0.0.1, or 0.0.0.0 for every interface)`);
    default:
      return undefined;
  }
}

/**
 * Fails at once when HOST:PORT is taken, before the process starts a database or a worker it would then have to stop.
 * Port 0 (any free port) cannot be taken.
 */
export async function ensurePortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (error) => reject(listenProblem(error, host, port) ?? error));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/**
 * Where a person opens the service: PUBLIC_URL when set, else this machine's address as the browser on it reaches it
 * (a server listening on every address is reached at localhost).
 */
export function browserUrl(host: string, port: number, publicUrl?: string): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  const name = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/**
 * The one plain line `npm start` prints once it is ready, on stderr: the logs on stdout are JSON lines for a collector,
 * and the person at the terminal looks for the address to open.
 */
export function printReady(url: string): void {
  process.stderr.write(`Ready: open ${url} in a browser\n`);
}
