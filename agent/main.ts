import { openDatabase } from '../prisma/database.js';
import { readConfig } from '../shared/config.js';
import { onShutdown, survivePromiseLeaks } from '../shared/process.js';
import { startAgentWorker } from './worker.js';

// `npm run agent`: an agent worker on its own, for scaling calls apart from the API.
const config = readConfig();
const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
const worker = await startAgentWorker({ prisma: db.prisma, databaseUrl: db.url, dataDir: config.dataDir, logLevel: config.logLevel });
console.error(JSON.stringify({ msg: 'agent worker started', mode: worker.mode }));
survivePromiseLeaks();
onShutdown(async () => {
  await worker.stop();
  await db.close();
});
