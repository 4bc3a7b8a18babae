import { startApi } from './api/server.js';
import { openDatabase } from './prisma/database.js';
import { readConfig } from './shared/config.js';
import { onShutdown } from './shared/process.js';

// `npm start`: the whole service in one process on one database (embedded Postgres under DATA_DIR when DATABASE_URL is
// unset). Production runs `npm run api` and agent workers as separate processes on a shared Postgres.
const config = readConfig();
const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
const app = await startApi(config, db);
app.log.info({ url: `http://${config.host}:${app.server.address() && typeof app.server.address() === 'object' ? (app.server.address() as { port: number }).port : config.port}`, embeddedDatabase: db.embedded }, 'service started');
onShutdown(async () => {
  await app.close();
  await db.close();
});
