import pg from 'pg';

export interface ChangeListener {
  close(): Promise<void>;
}

/** Reconnect delays after the LISTEN connection drops: quick at first, then every 5 s until the database is back. */
const RECONNECT_DELAYS_MS = [100, 500, 1_000, 5_000];

export interface ChannelHandlers {
  onNotify: (payload: string) => void;
  /** The connection was (re)made: notifications sent while it was down are lost, so drop what was cached. */
  onReset: () => void;
}

/**
 * Holds ONE connection that LISTENs on every channel of `channels` and hands each notification's payload to its
 * channel's `onNotify`. When the connection drops, notifications sent meanwhile are lost, so every `onReset` is called
 * once the connection is back (and right after the first connect): each caller drops whatever it cached.
 */
export function listenForChanges(
  databaseUrl: string,
  channels: Record<string, ChannelHandlers>,
  onError?: (error: unknown) => void,
): ChangeListener {
  const handlers = {
    onReset: () => {
      for (const channel of Object.values(channels)) channel.onReset();
    },
    onError,
  };
  let closed = false;
  let client: pg.Client | undefined;
  let attempt = 0;
  let timer: NodeJS.Timeout | undefined;

  const connect = async () => {
    if (closed) return;
    const next = new pg.Client({ connectionString: databaseUrl });
    next.on('notification', (message) => {
      if (message.payload) channels[message.channel]?.onNotify(message.payload);
    });
    next.on('error', (error) => {
      handlers.onError?.(error);
      retry(next);
    });
    next.on('end', () => retry(next));
    try {
      await next.connect();
      for (const channel of Object.keys(channels)) await next.query(`LISTEN "${channel}"`);
      if (closed) {
        await next.end().catch(() => {});
        return;
      }
      client = next;
      attempt = 0;
      handlers.onReset();
    } catch (error) {
      handlers.onError?.(error);
      retry(next);
    }
  };

  const retry = (failed: pg.Client) => {
    if (closed || (client && client !== failed) || timer) return;
    client = undefined;
    failed.end().catch(() => {});
    handlers.onReset();
    const delay = RECONNECT_DELAYS_MS[Math.min(attempt, RECONNECT_DELAYS_MS.length - 1)]!;
    attempt += 1;
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, delay);
    timer.unref();
  };

  void connect();
  return {
    close: async () => {
      closed = true;
      if (timer) clearTimeout(timer);
      await client?.end().catch(() => {});
    },
  };
}
