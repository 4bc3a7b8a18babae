import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

// A webhook receiver on 127.0.0.1 that checks every request the way docs/webhooks.md tells receivers to, written
// from that description rather than from the sender's code.

export interface Received {
  id: string;
  timestamp: string;
  signatures: string[];
  body: string;
  json: { id: string; type: string; timestamp: string; data: Record<string, unknown> };
  receivedAt: number;
}

export type Reply = { status: number; delayMs?: number } | 'hold';

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Distinct webhook-id values received. */
  ids(): Set<string>;
  /** Resolves when `predicate` holds, checking on every request; rejects after `timeoutMs`. */
  until(predicate: (received: Received[]) => boolean, timeoutMs?: number): Promise<void>;
  /** Ends requests being held open. */
  releaseHeld(status?: number): void;
  close(): Promise<void>;
}

/** Standard Webhooks verification: HMAC-SHA256 over `id.timestamp.body` with the base64-decoded secret. */
export function signatureValid(secret: string, message: { id: string; timestamp: string; body: string }, signature: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = crypto.createHmac('sha256', key).update(`${message.id}.${message.timestamp}.${message.body}`).digest('base64');
  const [version, value] = signature.split(',');
  if (version !== 'v1' || value === undefined) return false;
  const a = Buffer.from(value);
  const b = Buffer.from(expected);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

export async function startReceiver(options: { port?: number; reply?: (index: number) => Reply } = {}): Promise<Receiver> {
  const received: Received[] = [];
  const held: http.ServerResponse[] = [];
  const waiters = new Set<() => void>();
  const reply: (index: number) => Reply = options.reply ?? (() => ({ status: 200 }));
  let count = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const header = (name: string) => String(request.headers[name] ?? '');
      received.push({
        id: header('webhook-id'),
        timestamp: header('webhook-timestamp'),
        signatures: header('webhook-signature').split(' ').filter(Boolean),
        body,
        json: JSON.parse(body),
        receivedAt: Date.now(),
      });
      for (const wake of [...waiters]) wake();
      const how = reply(count++);
      if (how === 'hold') {
        held.push(response);
        return;
      }
      const send = () => response.writeHead(how.status, { 'content-type': 'text/plain' }).end('ok');
      if (how.delayMs) setTimeout(send, how.delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    ids: () => new Set(received.map((r) => r.id)),
    until(predicate, timeoutMs = 15_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!predicate(received)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`receiver condition not met within ${timeoutMs} ms (received ${received.length})`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    releaseHeld(status = 200) {
      for (const response of held.splice(0)) if (!response.writableEnded) response.writeHead(status).end();
    },
    async close() {
      for (const response of held.splice(0)) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
