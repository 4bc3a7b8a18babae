import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { bootstrap } from '../../modules/organizations/index.js';
import { createWebhookEndpoint, recordEvent, startWebhookDelivery } from '../../modules/webhooks/index.js';
import { createPrismaClient } from '../../prisma/client.js';
import { startEmbeddedPostgres } from '../../prisma/embedded-postgres.js';
import { migrate } from '../../prisma/migrate.js';
import { openChangeFeed } from '../../lib/pg-listen.js';
import { SecretBox, SECRETS_KEY_BYTES } from '../../lib/secret-box.js';

// Webhook delivery throughput and event-to-delivery delay, on one machine: embedded Postgres, delivery workers in this
// process, and a receiver on 127.0.0.1 that answers 200 at once. `npm run bench:webhooks`.
// Options: BURST_EVENTS (default 5000), STEADY_RATE per second (200), STEADY_SECONDS (10), WORKERS (2), CONCURRENCY (32).

const BURST_EVENTS = Number(process.env.BURST_EVENTS ?? 5_000);
const STEADY_RATE = Number(process.env.STEADY_RATE ?? 200);
const STEADY_SECONDS = Number(process.env.STEADY_SECONDS ?? 10);
const WORKERS = Number(process.env.WORKERS ?? 2);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 32);
/** The longest a phase may take before the run is declared stuck. */
const PHASE_TIMEOUT_MS = 120_000;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-webhooks-'));
await fs.chmod(dir, 0o755);
const cluster = await startEmbeddedPostgres(dir, { persistent: false });
await migrate(cluster.url);
// One pool per worker's share plus the event writers.
const prisma = createPrismaClient(cluster.url, { maxConnections: 20 });

const arrivals = new Map<string, number>();
let requests = 0;
let onArrival: (() => void) | null = null;
const server = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    requests += 1;
    const id = String(request.headers['webhook-id']);
    if (!arrivals.has(id)) arrivals.set(id, Date.now());
    response.writeHead(200).end();
    onArrival?.();
  });
});
server.keepAliveTimeout = 10_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server.address() as AddressInfo).port;

const secrets = new SecretBox(crypto.randomBytes(SECRETS_KEY_BYTES));
const owner = await bootstrap(prisma, { organizationName: 'Bench', email: `bench-${Date.now()}@example.com` });
await createWebhookEndpoint(
  prisma,
  owner.organization_id,
  { url: `http://127.0.0.1:${port}/hook`, event_types: ['call.completed'], enabled: true, description: null },
  { allowPrivateTargets: true },
  secrets,
);
// One feed, as each worker of a process shares its process's.
const changes = openChangeFeed(cluster.url);
const startWorkers = () =>
  Array.from({ length: WORKERS }, () => startWebhookDelivery(prisma, { changes, allowPrivateTargets: true, concurrency: CONCURRENCY, secrets }));

const payload = {
  call_sid: 'CA0',
  status: 'completed',
  direction: 'outbound',
  summary: 'The caller booked a table for two at seven.',
  outcomes: { booked: true },
  transcript: Array.from({ length: 10 }, (_, i) => ({
    role: i % 2 ? 'user' : 'assistant',
    text: 'A sentence of about this length.',
    start_ms: i * 2000,
    end_ms: i * 2000 + 1500,
    interrupted: false,
  })),
  recordings: [],
};

function waitFor(ids: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not all ${ids.length} events arrived in ${PHASE_TIMEOUT_MS} ms`)), PHASE_TIMEOUT_MS);
    const check = () => {
      if (ids.every((id) => arrivals.has(id))) {
        clearTimeout(timer);
        onArrival = null;
        resolve();
      }
    };
    onArrival = check;
    check();
  });
}

function delays(recorded: Map<string, number>): number[] {
  return [...recorded].map(([id, at]) => arrivals.get(id)! - at).sort((a, b) => a - b);
}

// Backlog: events queued while no worker runs, then drained; throughput is events over the time from the workers'
// start to the last arrival, which is the delivery rate alone.
const backlog = new Map<string, number>();
for (let done = 0; done < BURST_EVENTS; done += 100) {
  const n = Math.min(100, BURST_EVENTS - done);
  const committed = await prisma.$transaction(async (tx) => {
    const events = [];
    for (let i = 0; i < n; i++) events.push(await recordEvent(tx, owner.organization_id, 'call.completed', payload));
    return events;
  });
  for (const e of committed) backlog.set(e.id, 0);
}
const drainStart = Date.now();
const workers = startWorkers();
await waitFor([...backlog.keys()]);
const drainMs = Math.max(...[...backlog.keys()].map((id) => arrivals.get(id)!)) - drainStart;

// Burst: events committed as fast as possible in transactions of 100 while the workers run; throughput is events
// over the time from the first commit to the last arrival.
const burst = new Map<string, number>();
const burstStart = Date.now();
for (let done = 0; done < BURST_EVENTS; done += 100) {
  const n = Math.min(100, BURST_EVENTS - done);
  const committed = await prisma.$transaction(async (tx) => {
    const events = [];
    for (let i = 0; i < n; i++) events.push(await recordEvent(tx, owner.organization_id, 'call.completed', payload));
    return events;
  });
  const at = Date.now();
  for (const e of committed) burst.set(e.id, at);
}
await waitFor([...burst.keys()]);
const burstMs = Math.max(...[...burst.keys()].map((id) => arrivals.get(id)!)) - burstStart;
const burstDelays = delays(burst);

// Steady: one event per transaction at a fixed rate, the way calls end; the delay is commit to arrival.
const steady = new Map<string, number>();
const total = STEADY_RATE * STEADY_SECONDS;
const steadyStart = Date.now();
const pending: Promise<void>[] = [];
for (let i = 0; i < total; i++) {
  const due = steadyStart + (i * 1000) / STEADY_RATE;
  const wait = due - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  pending.push(
    recordEvent(prisma, owner.organization_id, 'call.completed', payload).then((e) => {
      steady.set(e.id, Date.now());
    }),
  );
}
await Promise.all(pending);
await waitFor([...steady.keys()]);
const steadyDelays = delays(steady);

console.log(
  `webhook delivery benchmark: ${WORKERS} workers x ${CONCURRENCY} concurrent attempts, receiver on 127.0.0.1, Node ${process.version}, ${os.cpus().length} CPUs`,
);
console.log(`backlog ${BURST_EVENTS} events queued, then drained: ${Math.round((BURST_EVENTS * 1000) / drainMs)} events/s delivered`);
console.log(
  `burst   ${BURST_EVENTS} events: ${Math.round((BURST_EVENTS * 1000) / burstMs)} events/s delivered; delay from commit to delivery p50 ${percentile(burstDelays, 50)} ms, p99 ${percentile(burstDelays, 99)} ms`,
);
console.log(
  `steady  ${STEADY_RATE} events/s for ${STEADY_SECONDS} s: delay from commit to delivery p50 ${percentile(steadyDelays, 50)} ms, p99 ${percentile(steadyDelays, 99)} ms`,
);
console.log(`requests received ${requests} for ${arrivals.size} distinct events`);

await Promise.all(workers.map((w) => w.stop()));
await changes.close();
server.closeAllConnections();
server.close();
await prisma.$disconnect();
await cluster.stop();
await fs.rm(dir, { recursive: true, force: true });
