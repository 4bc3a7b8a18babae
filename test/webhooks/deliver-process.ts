import { startWebhookDelivery } from '../../modules/webhooks/delivery-worker.js';
import { createPrismaClient } from '../../prisma/client.js';
import { SecretBox } from '../../lib/secret-box.js';
import { openChangeFeed } from '../../lib/pg-listen.js';

// A delivering process on its own, for the crash test: it is killed with SIGKILL mid-attempt and another is started.
const url = process.env.DATABASE_URL!;
const prisma = createPrismaClient(url, { maxConnections: 2 });
const changes = openChangeFeed(url);
const worker = startWebhookDelivery(prisma, {
  changes,
  allowPrivateTargets: true,
  pollIntervalMs: 100,
  requestTimeoutMs: Number(process.env.REQUEST_TIMEOUT_MS),
  leaseMs: Number(process.env.LEASE_MS),
  retryScheduleMs: [200, 400],
  // The key of the API that sealed the signing secrets, as SECRETS_KEY gives it to every process.
  secrets: new SecretBox(Buffer.from(process.env.SECRETS_KEY!, 'base64')),
});
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void worker
    .stop()
    .then(() => changes.close())
    .then(() => prisma.$disconnect())
    .then(() => process.exit(0));
});
