import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildApp } from '../../api/app.js';
import { bootstrap } from '../../modules/organizations/index.js';
import { createPrismaClient } from '../../prisma/client.js';
import { startEmbeddedPostgres } from '../../prisma/embedded-postgres.js';
import { migrate } from '../../prisma/migrate.js';
import { openChangeFeed } from '../../lib/pg-listen.js';

// Whether a key can tell "another organisation's assistant" from "no such assistant" by how long the 404 takes.
// The real API (in-process, `inject`) on an embedded Postgres: organisation A owns an assistant that its own reads
// keep in the read cache; organisation B asks for that id and for an id nobody has, interleaved, BENCH_REQUESTS times
// each (default 2000). Prints the median and p90 of both in ms and their ratio (1.0: indistinguishable).

const requests = Number(process.env.BENCH_REQUESTS ?? 2000);

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-404-'));
await fs.chmod(dir, 0o755);
const cluster = await startEmbeddedPostgres(dir, { persistent: false });
try {
  await migrate(cluster.url);
  const prisma = createPrismaClient(cluster.url);
  const changes = openChangeFeed(cluster.url);
  const app = await buildApp({ prisma, changes, logLevel: 'silent' });
  await app.ready();
  const owner = await bootstrap(prisma, { organizationName: 'Owner', email: 'owner@example.com' });
  const stranger = await bootstrap(prisma, { organizationName: 'Stranger', email: 'stranger@example.com' });
  const get = (key: string, id: number) => app.inject({ method: 'GET', url: `/api/assistants/${id}`, headers: { authorization: `Bearer ${key}` } });
  const created = await app.inject({
    method: 'POST',
    url: '/api/assistants',
    headers: { authorization: `Bearer ${owner.api_key}` },
    payload: { name: 'Cached' },
  });
  const id = (created.json() as { id: number }).id;

  const timed = async (key: string, assistantId: number) => {
    const start = performance.now();
    const res = await get(key, assistantId);
    const ms = performance.now() - start;
    if (res.statusCode !== 404) throw new Error(`expected 404, got ${res.statusCode}`);
    return ms;
  };
  const theirs: number[] = [];
  const missing: number[] = [];
  for (let i = 0; i < 200; i++) await timed(stranger.api_key, 2_147_483_646); // warm-up
  for (let i = 0; i < requests; i++) {
    // The owner's read keeps the entry in the cache, as a busy assistant's would be.
    await get(owner.api_key, id);
    theirs.push(await timed(stranger.api_key, id));
    missing.push(await timed(stranger.api_key, 2_147_483_646));
  }
  const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)]!;
  const row = (name: string, xs: number[]) => `${name.padEnd(34)} p50 ${pct(xs, 0.5).toFixed(3)} ms   p90 ${pct(xs, 0.9).toFixed(3)} ms`;
  console.log(`GET /api/assistants/{id} answered 404, ${requests} requests each`);
  console.log(row("another organisation's (cached)", theirs));
  console.log(row('an id nobody has', missing));
  console.log(`ratio of medians (theirs / missing): ${(pct(theirs, 0.5) / pct(missing, 0.5)).toFixed(2)}`);
  await app.close();
  await changes.close();
  await prisma.$disconnect();
} finally {
  await cluster.stop();
}
