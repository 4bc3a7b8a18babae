import pg from 'pg';
import { settledWithin } from './async.js';
import { backoffMs } from './backoff.js';

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
  /**
   * The connection was lost or could not be opened (it is tried again): each subscriber says in its own words what
   * goes on meanwhile. A function given by several subscriptions is called once a failure.
   */
  onError?: (error: unknown) => void;
}

export interface ListenOptions {
  /** Bound on opening the connection and on each LISTEN (default 5 s). */
  connectTimeoutMs?: number;
}

/**
 * A process's one LISTEN connection, shared by every part that wants to hear of changes (caches, background jobs).
 * Postgres delivers a notification to each session that LISTENs, so one connection a process, not one a listener,
 * keeps the cluster's connection count flat however many jobs a process runs.
 */
export interface ChangeFeed {
  /**
   * Hears `channel`. `onReset` is called once the LISTEN is in place (at once when it already was), whenever the
   * connection drops, and when it is back. Answers a function that stops this subscription.
   */
  subscribe(channel: string, handlers: ChannelHandlers): () => void;
  /** Ends the connection; later subscriptions hear nothing. */
  close(): Promise<void>;
}

/**
 * Opens the connection on the first subscription, so that a process which never subscribes (the CLI) never opens it.
 * A lost or unopened connection is reported to `onError` and tried again, quickly at first.
 */
export function openChangeFeed(databaseUrl: string, onError?: (error: unknown) => void, options: ListenOptions = {}): ChangeFeed {
  const connectTimeoutMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  const subscribers = new Map<string, Set<ChannelHandlers>>();
  let closed = false;
  // The connection being opened or listening. Events of an older one, already given up on, change nothing.
  let current: pg.Client | undefined;
  let listening = false;
  // Channels the current connection has a LISTEN for (or one under way).
  const heard = new Set<string>();
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;
  // LISTENs for channels first subscribed while the connection listens, one after another: a client given a query
  // while one is under way queues it, and pg deprecates that (a warning printed by every `npm start`).
  let listens: Promise<void> = Promise.resolve();

  const each = (fn: (h: ChannelHandlers, channel: string) => void) => {
    for (const [channel, set] of subscribers) for (const h of [...set]) fn(h, channel);
  };

  const report = (error: unknown) => {
    const told = new Set<(error: unknown) => void>(onError ? [onError] : []);
    each((h) => h.onError && told.add(h.onError));
    for (const tell of told) tell(error);
  };

  const giveUp = (client: pg.Client) => {
    if (client !== current) return;
    current = undefined;
    listening = false;
    heard.clear();
    client.end().catch(() => {});
    if (closed) return;
    each((h) => h.onReset());
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
        report(error);
      }
      giveUp(client);
    };
    client.on('notification', (message) => {
      for (const h of [...(subscribers.get(message.channel) ?? [])]) h.onNotify(message.payload ?? '');
    });
    client.on('error', fail);
    client.on('end', () => fail());
    try {
      await client.connect();
      // Channels subscribed while these LISTENs are answered are listened to by the loop too.
      for (const channel of subscribers.keys()) {
        heard.add(channel);
        await client.query(`LISTEN "${channel}"`);
      }
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
    each((h) => h.onReset());
  };

  /** A channel first subscribed while the connection listens: LISTEN on it, then tell its subscribers. */
  const listenOn = async (client: pg.Client, channel: string) => {
    // A connection given up on while this waited its turn LISTENs on nothing more: its replacement LISTENs on all.
    if (client !== current) return;
    try {
      await client.query(`LISTEN "${channel}"`);
    } catch (error) {
      if (client === current) {
        report(error);
        giveUp(client);
      }
      return;
    }
    if (client === current && listening) for (const h of [...(subscribers.get(channel) ?? [])]) h.onReset();
  };

  return {
    subscribe(channel, handlers) {
      if (closed) return () => {};
      let set = subscribers.get(channel);
      if (!set) subscribers.set(channel, (set = new Set()));
      set.add(handlers);
      if (!current && !timer) void connect();
      else if (current && listening) {
        // Told on a later tick, as at every other reset: the subscriber has finished subscribing by then.
        if (heard.has(channel)) queueMicrotask(() => set.has(handlers) && handlers.onReset());
        else {
          const client = current;
          heard.add(channel);
          listens = listens.then(() => listenOn(client, channel));
        }
      }
      // Otherwise the connection being opened LISTENs on it and resets every subscriber once it does.
      return () => {
        set.delete(handlers);
        // The channel stays LISTENed to: a notification nobody hears costs nothing, and an UNLISTEN racing a new
        // subscription could leave that one deaf.
      };
    },
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
