import pg from 'pg';

export interface ChangeListener {
  close(): Promise<void>;
}

/** Reconnect delays after the LISTEN connection drops: quick at first, then every 5 s until the database is back. */
const RECONNECT_DELAYS_MS = [100, 500, 1_000, 5_000];

/**
 * Holds one connection that LISTENs on `channel` and hands each notification's payload to `onNotify`. When the
 * connection drops, notifications sent meanwhile are lost, so `onReset` is called once the connection is back (and
 * right after the first connect): the caller drops whatever it cached.
 */
export function listenForChanges(
  databaseUrl: string,
  channel: string,
  handlers: { onNotify: (payload: string) => void; onReset: () => void; onError?: (error: unknown) => void },
): ChangeListener {
  let closed = false;
  let client: pg.Client | undefined;
  let attempt = 0;
  let timer: NodeJS.Timeout | undefined;

  const connect = async () => {
    if (closed) return;
    const next = new pg.Client({ connectionString: databaseUrl });
    next.on('notification', (message) => {
      if (message.channel === channel && message.payload) handlers.onNotify(message.payload);
    });
    next.on('error', (error) => {
      handlers.onError?.(error);
      retry(next);
    });
    next.on('end', () => retry(next));
    try {
      await next.connect();
      await next.query(`LISTEN "${channel}"`);
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
