import { openDatabase } from '../prisma/database.js';
import { readConfig } from '../shared/config.js';
import { onShutdown } from '../shared/process.js';
import { startApi } from './server.js';

// The API alone (`npm run api`). `npm start` runs it together with the agent worker (main.ts).
const config = readConfig();
const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
const app = await startApi(config, db);
onShutdown(async () => {
  await app.close();
  await db.close();
});
