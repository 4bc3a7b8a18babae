import type { AddressInfo } from 'node:net';
import { audioRunnerOf } from './agent/audio-link.js';
import { startAgentWorker } from './agent/worker.js';
import { startApi } from './api/server.js';
import { openDatabase } from './prisma/database.js';
import { readConfig } from './shared/config.js';
import { onShutdown, survivePromiseLeaks } from './shared/process.js';

// `npm start`: the whole service in one process on one database (embedded Postgres under DATA_DIR when DATABASE_URL is
// unset): the API and an agent worker. Production runs `npm run api` and `npm run agent` as separate processes on a
// shared Postgres, as many of each as load needs.
const config = readConfig();
const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
const worker = await startAgentWorker({ prisma: db.prisma, databaseUrl: db.url, dataDir: config.dataDir, logLevel: config.logLevel });
// The built-in transports hand their calls to this process's worker (when it runs calls locally, without LiveKit).
const app = await startApi(config, db, { callAudioRunner: worker.runner ? audioRunnerOf(worker.runner) : undefined });
const { port } = app.server.address() as AddressInfo;
app.log.info({ url: `http://${config.host}:${port}`, embeddedDatabase: db.embedded, agentMode: worker.mode }, 'service started');
survivePromiseLeaks();
onShutdown(async () => {
  // Order matters: stop taking requests, let running calls finish, then close the database they write to.
  await app.close();
  await worker.stop();
  await db.close();
  app.log.info('service stopped');
});
