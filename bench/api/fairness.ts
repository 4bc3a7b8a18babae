import autocannon from 'autocannon';
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { buildApp } from '../../api/app.js';
import type { RateLimitOptions } from '../../api/http/rate-limit.js';
import { bootstrap } from '../../modules/organizations/index.js';
import { createPrismaClient } from '../../prisma/client.js';
import { startEmbeddedPostgres } from '../../prisma/embedded-postgres.js';
import { migrate } from '../../prisma/migrate.js';
import { openChangeFeed } from '../../lib/pg-listen.js';
import { readConfig } from '../../lib/config.js';

// Fairness between organisations on one API process: organisation B reads a list endpoint at a steady, modest rate
// while organisation A floods the same endpoint with many connections. B's latency is measured idle, then under the
// flood, for each limit configuration in turn (limits off, rate limits only, the defaults with the in-flight cap),
// each in its own API process on one shared embedded Postgres. Prints B's p50/p99 idle and flooded and their ratio.
//
// BENCH_SECONDS (default 10) per measurement; BENCH_FLOOD_CONNECTIONS (default 100) for A; BENCH_VICTIM_RATE
// (default 20 requests/s: a modest neighbour, well under the default 50/s key limit) for B; BENCH_CONTACTS (default
// 1000) per organisation; BENCH_PATH (default /api/contacts); RATE_LIMIT_* as for the service. The API logs every
// request at info, as in production, into /dev/null.
//
// Child modes of this same file: `server <databaseUrl> <rateLimit JSON>` and `flood <url> <key> <seconds> <connections>`.

const mode = process.argv[2];
if (mode === 'server') await serve(process.argv[3]!, JSON.parse(process.argv[4]!) as RateLimitOptions);
else if (mode === 'flood') await flood(process.argv[3]!, process.argv[4]!, Number(process.argv[5]), Number(process.argv[6]));
else await main();

async function serve(databaseUrl: string, rateLimit: RateLimitOptions): Promise<void> {
  const prisma = createPrismaClient(databaseUrl);
  const changes = openChangeFeed(databaseUrl);
  const app = await buildApp({ prisma, changes, logLevel: process.env.BENCH_LOG_LEVEL ?? 'info', rateLimit });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  process.send!({ url: `http://127.0.0.1:${port}` });
  process.on('SIGTERM', async () => {
    await app.close();
    await prisma.$disconnect();
    process.exit(0);
  });
}

async function flood(url: string, key: string, seconds: number, connections: number): Promise<void> {
  const result = await autocannon({ url, headers: { authorization: `Bearer ${key}` }, connections, duration: seconds, pipelining: 1 });
  const answered = result['2xx'];
  const limited = result.statusCodeStats?.['429']?.count ?? 0;
  const other = Object.entries(result.statusCodeStats ?? {})
    .filter(([code]) => code !== '429' && !code.startsWith('2'))
    .map(([code, { count }]) => `${code} x ${count}`)
    .join(', ');
  process.send!({ answeredPerS: answered / seconds, limitedPerS: limited / seconds, errors: result.errors, other: other || 'none' });
}

function spawnSelf(args: string[]): ChildProcess {
  return fork(new URL(import.meta.url).pathname, args, { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
}

function firstMessage<T>(child: ChildProcess, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('child gave no answer in time')), timeoutMs);
    child.once('message', (m) => {
      clearTimeout(timer);
      resolve(m as T);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`child exited (${code})`));
    });
  });
}

interface Latencies {
  p50: number;
  p99: number;
  count: number;
  failed: number;
}

/** Open loop: one request every 1000/rate ms whether or not earlier ones have answered, so a stall is measured. */
async function victim(url: string, key: string, seconds: number, ratePerS: number): Promise<Latencies> {
  const intervalMs = 1000 / ratePerS;
  const total = Math.round(seconds * ratePerS);
  const times: number[] = [];
  let failed = 0;
  const pending: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const wait = start + i * intervalMs - performance.now();
    if (wait > 0) await delay(wait);
    const sent = performance.now();
    pending.push(
      fetch(url, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(30_000) }).then(
        async (res) => {
          await res.arrayBuffer();
          if (res.status === 200) times.push(performance.now() - sent);
          else failed++;
        },
        () => {
          failed++;
        },
      ),
    );
  }
  await Promise.all(pending);
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)] ?? NaN;
  return { p50: at(0.5), p99: at(0.99), count: times.length, failed };
}

async function main(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const floodConnections = Number(process.env.BENCH_FLOOD_CONNECTIONS ?? 100);
  const victimRate = Number(process.env.BENCH_VICTIM_RATE ?? 20);
  const contacts = Number(process.env.BENCH_CONTACTS ?? 1000);
  const listPath = process.env.BENCH_PATH ?? '/api/contacts';
  // The service's configuration: RATE_LIMIT_* in the environment change the limited rows.
  const defaults = readConfig(process.env).rateLimit;
  const configs: { name: string; rateLimit: RateLimitOptions }[] = [
    { name: 'limits off', rateLimit: { orgPerSecond: 0, keyPerSecond: 0, orgInFlight: 0 } },
    { name: `rate limits only (${defaults.orgPerSecond}/s org, ${defaults.keyPerSecond}/s key)`, rateLimit: { ...defaults, orgInFlight: 0 } },
    { name: `defaults (+ ${defaults.orgInFlight} in flight per org)`, rateLimit: defaults },
  ];
  // Start-up, seeding and each measurement with its margins; past this the run is stuck, not slow.
  const watchdog = setTimeout(
    () => {
      console.error('fairness benchmark exceeded its time budget');
      process.exit(1);
    },
    120_000 + configs.length * (2 * seconds + 30) * 1000,
  );
  watchdog.unref();

  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-fairness-'));
  await fs.chmod(dir, 0o755);
  const cluster = await startEmbeddedPostgres(dir, { persistent: false });
  const children: ChildProcess[] = [];
  try {
    await migrate(cluster.url);
    const prisma = createPrismaClient(cluster.url);
    const [a, b] = [
      await bootstrap(prisma, { organizationName: 'Flooder', email: 'a@example.com' }),
      await bootstrap(prisma, { organizationName: 'Neighbour', email: 'b@example.com' }),
    ];
    for (const org of [a, b]) {
      await prisma.contact.createMany({
        data: Array.from({ length: contacts }, (_, i) => ({
          organizationId: org.organization_id,
          firstName: `First${i}`,
          lastName: `Last${i}`,
          email: `c${i}@example.com`,
          phoneNumber: `+1415555${String(i).padStart(4, '0')}`,
        })),
      });
    }
    await prisma.$disconnect();
    console.log(
      `GET ${listPath}: ${contacts} contacts per organisation; B at ${victimRate} requests/s (open loop), A with ${floodConnections} connections; ` +
        `${seconds} s per measurement; ${os.cpus().length} CPUs, Node ${process.version}`,
    );

    for (const config of configs) {
      const server = spawnSelf(['server', cluster.url, JSON.stringify(config.rateLimit)]);
      children.push(server);
      const { url } = await firstMessage<{ url: string }>(server, 60_000);
      // Warm the key cache, JIT and connection pool of this process for both organisations.
      await victim(`${url}${listPath}`, b.api_key, 1, victimRate);
      await victim(`${url}${listPath}`, a.api_key, 1, victimRate);
      await delay(1100);

      const idle = await victim(`${url}${listPath}`, b.api_key, seconds, victimRate);
      const flooder = spawnSelf(['flood', `${url}${listPath}`, a.api_key, String(seconds + 2), String(floodConnections)]);
      children.push(flooder);
      const floodResult = firstMessage<{ answeredPerS: number; limitedPerS: number; errors: number; other: string }>(flooder, (seconds + 60) * 1000);
      await delay(1000); // the flood reaches full speed before B is measured
      const flooded = await victim(`${url}${listPath}`, b.api_key, seconds, victimRate);
      const aResult = await floodResult;
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));

      const ms = (x: number) => `${x.toFixed(1)} ms`;
      const line =
        `${config.name.padEnd(48)} B idle p50 ${ms(idle.p50)} p99 ${ms(idle.p99)} | flooded p50 ${ms(flooded.p50)} p99 ${ms(flooded.p99)}` +
        ` | p99 ratio ${(flooded.p99 / idle.p99).toFixed(1)} | B refused ${idle.failed + flooded.failed} of ${idle.count + flooded.count + idle.failed + flooded.failed}` +
        ` | A answered ${aResult.answeredPerS.toFixed(0)}/s, 429 ${aResult.limitedPerS.toFixed(0)}/s, other ${aResult.other}, errors ${aResult.errors}`;
      console.log(line);
    }
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
    await cluster.stop();
    await fs.rm(dir, { recursive: true, force: true });
  }
}
