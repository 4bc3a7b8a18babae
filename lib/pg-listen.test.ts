import crypto from 'node:crypto';
import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { delay } from './async.js';
import { openChangeFeed, type ChangeFeed } from './pg-listen.js';
import { settledWithin } from './async.js';
import { until } from '../test/helpers/until.js';

// Against the test run's own Postgres. LISTEN/NOTIFY needs no schema, so the cluster's default database serves, and
// each test listens on channels of its own.

const channelName = () => `test_${crypto.randomBytes(6).toString('hex')}`;

describe('the LISTEN client', () => {
  let url: string;
  let admin: pg.Client;
  const listeners: ChangeFeed[] = [];
  beforeAll(async () => {
    url = inject('postgresUrl');
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
  });
  afterAll(async () => {
    await Promise.all(listeners.map((l) => l.close()));
    await admin.end();
  });

  const notify = (channel: string, payload: string) => admin.query('SELECT pg_notify($1, $2)', [channel, payload]);
  const backendsListeningOn = async (channel: string) =>
    (await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE query = $1', [`LISTEN "${channel}"`])).rows.map((r) => r.pid);

  function listen(channels: string[], onError: (error: unknown) => void = () => {}) {
    const heard: Record<string, string[]> = {};
    const resets: Record<string, number> = {};
    const handlers = Object.fromEntries(
      channels.map((channel) => {
        heard[channel] = [];
        resets[channel] = 0;
        return [channel, { onNotify: (payload: string) => heard[channel]!.push(payload), onReset: () => (resets[channel]! += 1) }];
      }),
    );
    const listener = openChangeFeed(url, onError);
    for (const [channel, h] of Object.entries(handlers)) listener.subscribe(channel, h);
    listeners.push(listener);
    return { listener, heard, resets };
  }

  it('hands each channel its own notifications, an empty payload included, and resets once at the first connect', async () => {
    const [a, b] = [channelName(), channelName()];
    const { heard, resets } = listen([a, b]);
    await until(() => resets[a] === 1 && resets[b] === 1);
    await notify(a, '7');
    await notify(b, '');
    await until(() => heard[a]!.length === 1 && heard[b]!.length === 1);
    expect(heard).toEqual({ [a]: ['7'], [b]: [''] });
    expect(resets).toEqual({ [a]: 1, [b]: 1 });
  });

  it('reconnects when its connection is killed, reports the loss, and resets when it drops and when it is back', async () => {
    const channel = channelName();
    const errors: unknown[] = [];
    const { heard, resets } = listen([channel], (error) => errors.push(error));
    await until(() => resets[channel] === 1);
    const [pid] = await backendsListeningOn(channel);
    const killed = await admin.query<{ ok: boolean }>('SELECT pg_terminate_backend($1) AS ok', [pid]);
    expect(killed.rows[0]!.ok).toBe(true);
    // One reset as the connection drops, one once it LISTENs again.
    await until(() => resets[channel] === 3);
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toMatch(/terminating connection/);
    const [again] = await backendsListeningOn(channel);
    expect(again).toBeDefined();
    expect(again).not.toBe(pid);
    // The reset after the reconnect comes once the LISTEN is in place: what is sent from then on is heard.
    await notify(channel, 'after');
    await until(() => heard[channel]!.includes('after'));
    expect(resets[channel]).toBe(3);
  });

  it('stops listening at close, and reconnects no more', async () => {
    const channel = channelName();
    const { listener, resets } = listen([channel]);
    await until(() => resets[channel] === 1);
    await listener.close();
    await until(async () => (await backendsListeningOn(channel)).length === 0);
    await delay(300); // longer than the first reconnect delay
    expect(await backendsListeningOn(channel)).toHaveLength(0);
    expect(resets[channel]).toBe(1);
  });

  it('serves channels subscribed later on the same one connection, resets each once its LISTEN is in place, and stops a subscription alone', async () => {
    const [a, b] = [channelName(), channelName()];
    const feed = openChangeFeed(url);
    listeners.push(feed);
    const heard: string[] = [];
    let resetsA = 0;
    let resetsB = 0;
    feed.subscribe(a, { onNotify: (p) => heard.push(`a:${p}`), onReset: () => (resetsA += 1) });
    await until(() => resetsA === 1);
    const [pid] = await backendsListeningOn(a);
    // A second subscription, to a new channel, once the connection listens: the same connection LISTENs on it too.
    const stopB = feed.subscribe(b, { onNotify: (p) => heard.push(`b:${p}`), onReset: () => (resetsB += 1) });
    await until(() => resetsB === 1);
    expect(await backendsListeningOn(b)).toEqual([pid]);
    // Another subscriber of a channel already heard is told at once that it listens.
    let resetsA2 = 0;
    feed.subscribe(a, { onNotify: (p) => heard.push(`a2:${p}`), onReset: () => (resetsA2 += 1) });
    await until(() => resetsA2 === 1);
    await notify(a, '1');
    await notify(b, '2');
    await until(() => heard.length === 3);
    expect(heard.sort()).toEqual(['a2:1', 'a:1', 'b:2']);
    stopB();
    await notify(b, '3');
    await notify(a, '4');
    await until(() => heard.length === 5);
    expect(heard.filter((h) => h.startsWith('b:'))).toEqual(['b:2']);
    expect(resetsA).toBe(1);
  });

  it('opens no connection until something subscribes', async () => {
    const sockets: net.Socket[] = [];
    const server = net.createServer((socket) => void sockets.push(socket.resume()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const feed = openChangeFeed(`postgres://nobody:secret@127.0.0.1:${(server.address() as net.AddressInfo).port}/none`, () => {}, { connectTimeoutMs: 200 });
    try {
      // Long enough for a connection opened at once to have arrived (the connect below arrives within milliseconds).
      await delay(300);
      expect(sockets).toHaveLength(0);
      feed.subscribe(channelName(), { onNotify: () => {}, onReset: () => {} });
      await until(() => sockets.length === 1, 5_000);
    } finally {
      await feed.close();
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('tells each error handler of its subscribers once a failure', async () => {
    const channel = channelName();
    const feed = openChangeFeed(url);
    listeners.push(feed);
    const errors: string[] = [];
    const onError = () => errors.push('shared');
    let resets = 0;
    // Channels are LISTENed to in the order subscribed: the connection's last query names `channel`.
    feed.subscribe(channelName(), { onNotify: () => {}, onReset: () => {}, onError: () => errors.push('own') });
    feed.subscribe(channel, { onNotify: () => {}, onReset: () => (resets += 1), onError });
    feed.subscribe(channel, { onNotify: () => {}, onReset: () => {}, onError });
    await until(() => resets === 1);
    const listening = await backendsListeningOn(channel);
    expect(listening).toHaveLength(1);
    await admin.query('SELECT pg_terminate_backend($1)', [listening[0]]);
    await until(() => resets === 3);
    expect(errors.sort()).toEqual(['own', 'shared']);
  });

  /** A hung database: the TCP connection opens, and nothing more ever comes. */
  async function hungServer() {
    const sockets: net.Socket[] = [];
    const server = net.createServer((socket) => void sockets.push(socket.resume()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `postgres://nobody:secret@127.0.0.1:${(server.address() as net.AddressInfo).port}/none`;
    const close = async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    };
    return { sockets, url, close };
  }

  it('gives up on a database that accepts the connection and never answers, tries again, and tries no more once closed', async () => {
    const hung = await hungServer();
    const errors: unknown[] = [];
    let resets = 0;
    const feed = openChangeFeed(hung.url, (error) => errors.push(error), { connectTimeoutMs: 200 });
    feed.subscribe(channelName(), { onNotify: () => {}, onReset: () => (resets += 1) });
    try {
      // Connect (200 ms), give up, wait 100 ms, connect again.
      await until(() => hung.sockets.length >= 2, 10_000);
      expect((errors[0] as Error).message).toMatch(/timeout/);
      expect(resets).toBeGreaterThanOrEqual(1);
      await feed.close();
      // The attempt under way at close ends within the connect timeout, and none follows it.
      await until(() => hung.sockets.every((s) => s.destroyed || s.readableEnded), 10_000);
      const attempts = hung.sockets.length;
      await delay(700);
      expect(hung.sockets).toHaveLength(attempts);
    } finally {
      await feed.close();
      await hung.close();
    }
  });

  it('closes at once while a connection is still being opened, without waiting for its timeout', async () => {
    const hung = await hungServer();
    const feed = openChangeFeed(hung.url, () => {}, { connectTimeoutMs: 60_000 });
    feed.subscribe(channelName(), { onNotify: () => {}, onReset: () => {} });
    try {
      await until(() => hung.sockets.length === 1, 10_000);
      // Waiting for the attempt would take a minute.
      expect(await settledWithin(feed.close(), 10_000)).toBe(true);
    } finally {
      await hung.close();
    }
  });
});
