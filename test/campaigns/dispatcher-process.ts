import pino from 'pino';
import { createPrismaClient } from '../../prisma/client.js';
import { campaignTick } from '../../modules/campaigns/dispatcher.js';

// A campaign dispatcher alone in its own process, ticking without pause on the clock CLOCK names, for the test that
// kills it with SIGKILL at an arbitrary moment: it prints "ready", then each tick's count of queued calls.
const prisma = createPrismaClient(process.env.DATABASE_URL!, { maxConnections: 2 });
const log = pino({ level: 'silent' });
const now = new Date(process.env.CLOCK!);
process.stdout.write('ready\n');
for (;;) {
  const report = await campaignTick(prisma, log, now);
  process.stdout.write(`queued ${report.queued}\n`);
}
