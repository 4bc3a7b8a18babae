import type { AddressInfo } from 'node:net';
import { buildApp } from '../../api/app.js';
import { createPrismaClient } from '../../prisma/client.js';
import { onShutdown } from '../../lib/process.js';

// The API alone in its own process, for tests that count its file descriptors and signal it: it prints its port once
// listening, and "stopped" once closed on SIGTERM.
const prisma = createPrismaClient(process.env.DATABASE_URL!, { maxConnections: 2 });
const app = await buildApp({ prisma, logLevel: 'silent' });
await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening ${(app.server.address() as AddressInfo).port}\n`);
onShutdown(
  async () => {
    await app.close();
    await prisma.$disconnect();
    process.stdout.write('stopped\n');
  },
  () => {},
);
