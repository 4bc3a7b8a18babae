import Fastify from 'fastify';
import fs from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../../api/app.js';
import { bootstrap } from '../../modules/organizations/index.js';
import { createPrismaClient } from '../../prisma/client.js';
import { startEmbeddedPostgres } from '../../prisma/embedded-postgres.js';
import { migrate } from '../../prisma/migrate.js';
import { openChangeFeed } from '../../lib/pg-listen.js';

// Child process of bench/api/run.ts. `api` mode: the real API on its own embedded Postgres, with one organisation,
// key and assistant; prints {url, key, id, body}. `bare` mode: a bare Fastify route that returns a given JSON body.

// The ready line goes to fd 3, a pipe of the parent's; stdout (the request logs) is /dev/null.
function ready(info: Record<string, unknown>): void {
  const out = createWriteStream('', { fd: 3 });
  out.end(`${JSON.stringify(info)}\n`);
}

const mode = process.argv[2];
if (mode === 'api') {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-api-'));
  await fs.chmod(dir, 0o755);
  const cluster = await startEmbeddedPostgres(dir, { persistent: false });
  await migrate(cluster.url);
  const prisma = createPrismaClient(cluster.url);
  // No cap on requests per connection, as the bare route has none: past the API's cap (1,000) Node answers 503 and asks
  // the client to reconnect, which autocannon does not do, so a fast enough run measured refusals, not the API.
  const app = await buildApp({
    prisma,
    changes: openChangeFeed(cluster.url),
    logLevel: process.env.BENCH_LOG_LEVEL ?? 'info',
    httpTimeouts: { maxRequestsPerSocket: 0 },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  // Request logs go to /dev/null in the benchmark, but are produced as in production.
  const { api_key } = await bootstrap(prisma, { organizationName: 'Bench', email: 'bench@example.com' });
  const created = await app.inject({
    method: 'POST',
    url: '/api/assistants',
    headers: { authorization: `Bearer ${api_key}` },
    payload: { name: 'Bench', llm_settings: { system_prompt: 'You are a receptionist. '.repeat(40) }, stt_settings: { keyterms: ['Acme', 'Widget'] } },
  });
  const { id } = created.json() as { id: number };
  const { port } = app.server.address() as AddressInfo;
  ready({ url: `http://127.0.0.1:${port}`, key: api_key, id, body: created.body });
  process.on('SIGTERM', async () => {
    await app.close();
    await prisma.$disconnect();
    await cluster.stop();
    process.exit(0);
  });
} else if (mode === 'bare') {
  const body = JSON.parse(process.argv[3] ?? '{}') as unknown;
  const app = Fastify();
  app.get('/api/assistants/:assistant_id', async () => body);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  ready({ url: `http://127.0.0.1:${port}` });
  process.on('SIGTERM', async () => {
    await app.close();
    process.exit(0);
  });
} else {
  throw new Error('usage: servers.ts api | bare <json>');
}
