import { createPrismaClient } from '../../prisma/client.js';
import { runTimeline } from './call-harness.js';

// A call's process on its own, for the crash test: it runs a scripted call (`CALL_ID`, fake LLM at `LLM_URL`) and is
// killed with SIGKILL while the call runs, as a crashed job process or a lost machine would end it.
const prisma = createPrismaClient(process.env.DATABASE_URL!, { maxConnections: 2 });
process.stdout.write('running\n');
await runTimeline(prisma, Number(process.env.CALL_ID), [{ atMs: 1500, text: 'what time is it' }], { hangupAtMs: 60_000, heartbeatIntervalMs: 200 });
