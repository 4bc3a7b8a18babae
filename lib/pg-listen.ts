import pg from 'pg';
import { settledWithin } from './async.js';
import { backoffMs } from './backoff.js';

export interface ChangeListener {
  close(): Promise<void>;
}

/** Reconnect delays after the LISTEN connection drops: quick at first, then every 5 s until the database is back. */
const RECONNECT_DELAYS_MS = [100, 500, 1_000, 5_000];
/**
 * 5 s to connect, and as long for each LISTEN: a local or same-region Postgres answers in milliseconds, so one that takes
 * longer is treated as down and tried again, instead of leaving the listener waiting on it for ever.
 */
const CONNECT_TIMEOUT_MS = 5_000;
/** 2 s for the goodbye at close: milliseconds on a healthy database; on a hung one, shutdown must not hang with it. */
const CLOSE_TIMEOUT_MS = 2_000;

export interface ChannelHandlers {
  /** A notification on the channel; its payload is '' when it was sent without one. */
  onNotify: (payload: string) => void;
  /**
   * The connection dropped, or was (re)made: notifications sent while it was down are lost, so drop what was cached.
   * Called when it drops and again once it LISTENs anew, so a notification sent after that call is heard.
   */
  onReset: () => void;
}

export interface ListenOptions {
  /** Bound on opening the connection and on each LISTEN (default 5 s). */
  connectTimeoutMs?: number;
}

/**
 * Holds ONE connection that LISTENs on every channel of `channels` and hands each notification's payload to its
 * channel's `onNotify`. When the connection drops, notifications sent meanwhile are lost, so every `onReset` is called
 * when it drops, and once the connection is back (and right after the first connect): each caller drops whatever it
 * cached. A lost or unopened connection is reported to `onError` and tried again.
 */
export function listenForChanges(
  databaseUrl: string,
  channels: Record<string, ChannelHandlers>,
  onError?: (error: unknown) => void,
  options: ListenOptions = {},
): ChangeListener {
  const connectTimeoutMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  const resetAll = () => {
    for (const channel of Object.values(channels)) channel.onReset();
  };
  let closed = false;
  // The connection being opened or listening. Events of an older one, already given up on, change nothing.
  let current: pg.Client | undefined;
  let listening = false;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;

  const giveUp = (client: pg.Client) => {
    if (client !== current) return;
    current = undefined;
    listening = false;
    client.end().catch(() => {});
    if (closed) return;
    resetAll();
    failures += 1;
    const delay = backoffMs(RECONNECT_DELAYS_MS, failures, { afterLast: 'repeat_last' })!;
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, delay);
    timer.unref();
  };

  const connect = async () => {
    const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: connectTimeoutMs, query_timeout: connectTimeoutMs });
    current = client;
    // pg may announce one failure twice (an 'end' and a rejected connect, in either order): it is reported once.
    let reported = false;
    const fail = (error?: unknown) => {
      if (error !== undefined && !reported && !closed) {
        reported = true;
        onError?.(error);
      }
      giveUp(client);
    };
    client.on('notification', (message) => channels[message.channel]?.onNotify(message.payload ?? ''));
    client.on('error', fail);
    client.on('end', () => fail());
    try {
      await client.connect();
      for (const channel of Object.keys(channels)) await client.query(`LISTEN "${channel}"`);
    } catch (error) {
      fail(error);
      return;
    }
    if (client !== current) return; // lost while the LISTENs were answered, and already being replaced
    if (closed) {
      // close() came while this connection was being opened, and left it to end here.
      current = undefined;
      await client.end().catch(() => {});
      return;
    }
    listening = true;
    failures = 0;
    resetAll();
  };

  void connect();
  return {
    close: async () => {
      closed = true;
      if (timer) clearTimeout(timer);
      // A connection still being opened ends itself once open, within the connect timeout.
      if (!listening || !current) return;
      const client = current;
      current = undefined;
      listening = false;
      await settledWithin(client.end(), CLOSE_TIMEOUT_MS);
    },
  };
}
