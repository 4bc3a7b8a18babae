import { createPrismaClient } from '../../prisma/client.js';
import { afterReply, runTimeline } from './call-harness.js';

// A call's process on its own, for the crash test: it runs a scripted call (`CALL_ID`; the caller asks the time
// `SPEAKS_AT_MS` after the welcome; the recording is spooled under `DATA_DIR`) and is killed with SIGKILL while the call
// runs, as a crashed job process or a lost machine would end it. Nobody hangs up: the kill ends it. The call runs on the
// wall clock: the test judges its heartbeat by its own clock, as another worker would.
const prisma = createPrismaClient(process.env.DATABASE_URL!, { maxConnections: 2 });
process.stdout.write('running\n');
await runTimeline(prisma, Number(process.env.CALL_ID), [{ after: afterReply(1), atMs: Number(process.env.SPEAKS_AT_MS ?? 500), text: 'what time is it' }], {
  heartbeatIntervalMs: 200,
  realTime: true,
  ...(process.env.DATA_DIR ? { dataDir: process.env.DATA_DIR } : {}),
});
