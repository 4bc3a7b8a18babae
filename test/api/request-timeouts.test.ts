import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect } from 'vitest';
import { IMPORT_BODY_LIMIT_BYTES } from '../../modules/contacts/schemas.js';
import { bodyDeadlineMs, DEFAULT_HTTP_TIMEOUTS, type HttpTimeouts } from '../../api/http/timeouts.js';
import { readConfig } from '../../lib/config.js';
import { createApiContext } from '../helpers/api.js';
import { apiTestWith } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';

// Slow clients over a real socket, with the bounds shrunk so that each case takes about a second: a body trickled a
// byte at a time is cut, headers trickled are cut, and a connection answered before its body was read is closed.

const TIMEOUTS: Partial<HttpTimeouts> = { bodyGraceMs: 1_000, minBodyBytesPerSecond: 4_000, headersMs: 700, checkIntervalMs: 100 };

interface Trickle {
  /** Everything the server sent. */
  text: () => string;
  /** When the server closed the connection (ms after the first byte was sent), or null while it is open. */
  closedAfterMs: () => number | null;
  stop: () => void;
}

/** Sends `head` at once, then `body` one byte every `everyMs`, until the server closes the connection or `stop`. */
function trickle(port: number, head: string, body: string, everyMs: number): Trickle {
  const socket = net.connect(port, '127.0.0.1');
  const started = Date.now();
  let received = '';
  let closedAt: number | null = null;
  let sent = 0;
  socket.on('data', (c) => (received += c));
  socket.on('error', () => {});
  socket.write(head);
  const timer = setInterval(() => {
    if (sent < body.length && !socket.destroyed) socket.write(body[sent++]!);
  }, everyMs);
  socket.on('close', () => {
    closedAt = Date.now() - started;
    clearInterval(timer);
  });
  return {
    text: () => received,
    closedAfterMs: () => closedAt,
    stop: () => {
      clearInterval(timer);
      socket.destroy();
    },
  };
}

async function waitClosed(t: Trickle, withinMs: number): Promise<number | null> {
  await until(() => t.closedAfterMs() !== null, { timeoutMs: withinMs, intervalMs: 20, message: 'the server kept the connection' });
  return t.closedAfterMs();
}

const statusOf = (text: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
const bodyOf = (text: string) => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));

const it = apiTestWith({ httpTimeouts: TIMEOUTS });

describe('slow clients', () => {
  let port: number;
  it.beforeAll(async ({ api }) => {
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    port = (api.app.server.address() as AddressInfo).port;
  });

  it('cut a body trickled one byte at a time at its deadline, with a 408 in the API error shape', async ({ api, tenant }) => {
    const body = JSON.stringify({ name: 'Trickled', description: 'x'.repeat(60) });
    const deadline = bodyDeadlineMs(body.length, { ...DEFAULT_HTTP_TIMEOUTS, ...TIMEOUTS });
    const head = `POST /api/assistants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tenant.key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    // 10 bytes a second: the whole body would take 8 s.
    const t = trickle(port, head, body, 100);
    try {
      const closedAfter = await waitClosed(t, 5_000);
      expect(closedAfter, 'the server kept the connection').not.toBeNull();
      expect(closedAfter!).toBeGreaterThanOrEqual(deadline - 50);
      expect(statusOf(t.text())).toBe(408);
      expect(bodyOf(t.text())).toMatchObject({ success: false, code: 'request_timeout' });
      expect(t.text()).toMatch(/connection: close/i);
    } finally {
      t.stop();
    }
    expect(await api.db.prisma.assistant.count({ where: { name: 'Trickled' } })).toBe(0);
  });

  it('accept a body slower than the grace period when it keeps the minimum rate', async ({ tenant }) => {
    const body = JSON.stringify({ name: 'Slow but steady', description: 'x'.repeat(3_900) });
    const head = `POST /api/assistants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tenant.key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    // ~4 KB in 4 parts over 1.2 s: past the 1 s grace, within grace + 4 KB at 4 KB/s (2 s).
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (c) => (received += c));
    const closed = new Promise((r) => socket.on('close', r));
    socket.write(head);
    const part = Math.ceil(body.length / 4);
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 300));
      socket.write(body.slice(i * part, (i + 1) * part));
    }
    await closed;
    expect(statusOf(received)).toBe(201);
  });

  it('cut a multipart upload trickled one byte at a time at its deadline, with a 408 in the API error shape', async ({ api, tenant }) => {
    const boundary = 'trickle-boundary';
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="t.txt"\r\nContent-Type: text/plain\r\n\r\n${'y'.repeat(60)}\r\n--${boundary}--\r\n`;
    const deadline = bodyDeadlineMs(body.length, { ...DEFAULT_HTTP_TIMEOUTS, ...TIMEOUTS });
    const head = `POST /api/documents/upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tenant.key}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\n\r\n`;
    const t = trickle(port, head, body, 100);
    try {
      const closedAfter = await waitClosed(t, 5_000);
      expect(closedAfter, 'the server kept the connection').not.toBeNull();
      expect(closedAfter!).toBeGreaterThanOrEqual(deadline - 50);
      expect(statusOf(t.text())).toBe(408);
      expect(bodyOf(t.text())).toMatchObject({ success: false, code: 'request_timeout' });
    } finally {
      t.stop();
    }
    expect(await api.db.prisma.document.count({ where: { filename: 't.txt' } })).toBe(0);
  });

  it('close the connection after a 401 answered before the body was read, however slowly the body still comes', async () => {
    const head = 'POST /api/assistants HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n';
    const t = trickle(port, head, '{"name":"' + 'x'.repeat(990) + '"}', 100);
    try {
      // Well before the body's own deadline (1 s + 1000 B at 4 KB/s): the answer does not wait for the body.
      const closedAfter = await waitClosed(t, 3_000);
      expect(statusOf(t.text())).toBe(401);
      expect(t.text()).toMatch(/connection: close/i);
      expect(closedAfter, 'the server kept the connection').not.toBeNull();
      expect(closedAfter!).toBeLessThan(1_000);
    } finally {
      t.stop();
    }
  });

  it('close the connection after any early answer to an unread body (an unknown route)', async () => {
    const t = trickle(port, 'POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n', 'x'.repeat(500), 100);
    try {
      expect(await waitClosed(t, 3_000)).not.toBeNull();
      expect(statusOf(t.text())).toBe(404);
    } finally {
      t.stop();
    }
  });

  it('cut headers trickled one byte at a time, with a 408 in the API error shape', async () => {
    const t = trickle(port, 'GET /healthz HTTP/1.1\r\n', 'X-Slow: ' + 'y'.repeat(200), 100);
    try {
      expect(await waitClosed(t, 3_000), 'the server kept the connection').not.toBeNull();
      expect(statusOf(t.text())).toBe(408);
      expect(bodyOf(t.text())).toMatchObject({ success: false, code: 'request_timeout' });
    } finally {
      t.stop();
    }
  });

  it('keep a connection that sends nothing wrong open for the next request (keep-alive)', async ({ tenant }) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (c) => (received += c));
    const request = `GET /api/assistants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tenant.key}\r\n\r\n`;
    socket.write(request + request);
    await until(() => (received.match(/HTTP\/1\.1 200/g) ?? []).length >= 2, { intervalMs: 20 });
    expect((received.match(/HTTP\/1\.1 200/g) ?? []).length).toBe(2);
    expect(received).not.toMatch(/connection: close/i);
    socket.destroy();
  });
});

describe('the default bounds', () => {
  it('leave room for the largest legitimate body, an 8 MiB contact import at the minimum rate, inside the request bound', () => {
    const t = DEFAULT_HTTP_TIMEOUTS;
    expect(bodyDeadlineMs(IMPORT_BODY_LIMIT_BYTES, t)).toBeLessThan(t.requestMs);
    // Node requires the header bound to be the smaller.
    expect(t.headersMs).toBeLessThan(t.requestMs);
    // The balancer closes idle connections first (see api/http/timeouts.ts).
    expect(t.keepAliveMs).toBeGreaterThan(60_000);
  });

  it('take the keep-alive bound from HTTP_KEEP_ALIVE_TIMEOUT_S, for a balancer that keeps idle connections longer', async () => {
    expect(readConfig({ HTTP_KEEP_ALIVE_TIMEOUT_S: '620' }).httpKeepAliveTimeoutMs).toBe(620_000);
    expect(readConfig({}).httpKeepAliveTimeoutMs).toBeUndefined();
    expect(() => readConfig({ HTTP_KEEP_ALIVE_TIMEOUT_S: '0' })).toThrow(/HTTP_KEEP_ALIVE_TIMEOUT_S/);
    const ctx = await createApiContext({ httpTimeouts: { keepAliveMs: 620_000 } });
    try {
      expect(ctx.app.server.keepAliveTimeout).toBe(620_000);
      expect(ctx.app.server.headersTimeout).toBe(DEFAULT_HTTP_TIMEOUTS.headersMs);
      expect(ctx.app.server.requestTimeout).toBe(DEFAULT_HTTP_TIMEOUTS.requestMs);
    } finally {
      await ctx.close();
    }
  });
});

describe('a multipart upload sent at once', () => {
  it('is read as fast as it comes, well inside a deadline of 1 s plus 1 MB a second (it took ~40 s a megabyte when a second reader held the request back)', async () => {
    const ctx = await createApiContext({ httpTimeouts: { bodyGraceMs: 1_000, minBodyBytesPerSecond: 1_000_000 } });
    try {
      await ctx.app.listen({ port: 0, host: '127.0.0.1' });
      const tenant = await ctx.tenant('Uploads');
      const text = `${'Refunds are made within thirty days of purchase. '.repeat(40_000)}`;
      const form = new FormData();
      form.append('file', new Blob([text], { type: 'text/plain' }), 'policy.txt');
      const res = await fetch(`http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}/api/documents/upload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.key}` },
        body: form,
      });
      expect(res.status).toBe(201);
      expect(((await res.json()) as { data: { size_bytes: number } }).data.size_bytes).toBe(Buffer.byteLength(text));
    } finally {
      await ctx.close();
    }
  });
});
