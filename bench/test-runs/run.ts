import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { initializeLogger } from '@livekit/agents';
import { vendorAccessFromEnv } from '../../agent/providers/speech-providers.js';
import { startTestRunWorker } from '../../agent/test-runs/worker.js';
import { SecretBox, SECRETS_KEY_BYTES } from '../../lib/secret-box.js';
import { openChangeFeed } from '../../lib/pg-listen.js';
import { createAssistant } from '../../modules/assistants/index.js';
import { bootstrap } from '../../modules/organizations/index.js';
import { createAssistantTestRun, getTestRun, TestRunCreate } from '../../modules/test-runs/index.js';
import { createTool } from '../../modules/tools/index.js';
import { createPrismaClient } from '../../prisma/client.js';
import { startEmbeddedPostgres } from '../../prisma/embedded-postgres.js';
import { migrate } from '../../prisma/migrate.js';
import { startFakeOpenAI } from '../../test/fakes/vendors/openai.js';

// A text test run of 10 scripted turns (one of them calling a mocked tool) against an instant model: a loopback
// OpenAI-compatible server that answers at once. What is measured is our overhead: queueing, the worker's claim (woken
// by NOTIFY), the session, the recording and the judging, and the writes. Target: under 1 s for the run.
// `npm run bench:test-runs`. Options: RUNS (default 10), TURNS (10).

const RUNS = Number(process.env.RUNS ?? 10);
const TURNS = Number(process.env.TURNS ?? 10);
/** A run that has not finished in 30 s is stuck, not slow. */
const RUN_TIMEOUT_MS = 30_000;

initializeLogger({ pretty: false, level: 'silent' });

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `p50 ${percentile(sorted, 50).toFixed(0)} ms, p95 ${percentile(sorted, 95).toFixed(0)} ms, max ${sorted.at(-1)!.toFixed(0)} ms`;
};

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-test-runs-'));
await fs.chmod(dir, 0o755);
const cluster = await startEmbeddedPostgres(dir, { persistent: false });
await migrate(cluster.url);
const prisma = createPrismaClient(cluster.url);

const llm = await startFakeOpenAI((body) => {
  const messages = body.messages as Array<{ role: string; content: unknown }>;
  const last = messages.at(-1)!;
  if (last.role === 'tool') return { text: 'Your order has shipped.' };
  if (String(last.content).includes('order')) return { toolCalls: [{ name: 'lookup_order', arguments: '{"order_id":"A-17"}' }] };
  return { text: 'Certainly, I can help with that.' };
});
const secrets = new SecretBox(crypto.randomBytes(SECRETS_KEY_BYTES));
const owner = await bootstrap(prisma, { organizationName: 'Bench', email: `bench-${Date.now()}@example.com` });
const org = { organizationId: owner.organization_id, userId: owner.user_id };
const tool = await createTool({ db: prisma, secrets, policy: { allowPrivateTargets: true } }, org.organizationId, {
  name: 'lookup_order',
  description: 'Looks an order up',
  type: 'http',
  enabled: true,
  parameters: { type: 'object', properties: { order_id: { type: 'string' } } },
  http: { method: 'GET', url: 'https://orders.example.com/{{args.order_id}}', headers: {}, query: {}, body: null, secret_headers: {}, timeout_ms: 2_000 },
  transfer: null,
  messages: { on_start: null, on_slow: null, slow_after_ms: 2_000, on_failure: null },
});
const assistant = await createAssistant(
  prisma,
  org,
  {
    name: 'Bench',
    llm_provider: 'custom',
    llm_provider_config: { base_url: llm.url, model: 'instant', custom_config: { api_key: 'bench' } },
    llm_settings: { system_prompt: 'You are the order desk.' },
    assigned_tools: [tool.id],
  } as never,
  secrets,
  { privateHosts: [{ host: '127.0.0.1', port: null }] },
);
const changes = openChangeFeed(cluster.url);
const worker = startTestRunWorker(prisma, {
  changes,
  access: vendorAccessFromEnv({ VENDOR_PRIVATE_HOSTS: '127.0.0.1' }),
  secrets,
  allowPrivateToolTargets: false,
});

const script = Array.from({ length: TURNS }, (_, i) => (i === Math.floor(TURNS / 2) ? 'Where is my order A-17?' : `Question number ${i + 1}, please.`));
const request = TestRunCreate.parse({
  script,
  tool_mocks: { lookup_order: { status: 'shipped' } },
  assertions: [
    { type: 'tool_called', name: 'lookup_order', arguments: { order_id: 'A-17' } },
    { type: 'reply_contains', text: 'shipped' },
    { type: 'reply_matches', pattern: '^certainly' },
    { type: 'turn_count', min: TURNS, max: TURNS },
  ],
});

const wall: number[] = [];
const claim: number[] = [];
const execution: number[] = [];
const turnLatency: number[] = [];
const ttft: number[] = [];
let passed = 0;
// One run to warm up (module loading, first connections), not counted.
for (let i = 0; i <= RUNS; i++) {
  const t0 = performance.now();
  const queued = await createAssistantTestRun(prisma, org.organizationId, assistant.id, request);
  let run = queued;
  const deadline = Date.now() + RUN_TIMEOUT_MS;
  while (!['completed', 'failed', 'cancelled'].includes(run.status)) {
    if (Date.now() > deadline) throw new Error(`test run ${run.id} did not finish in ${RUN_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
    run = await getTestRun(prisma, org.organizationId, queued.id);
  }
  const elapsed = performance.now() - t0;
  if (run.status !== 'completed') throw new Error(`test run ${run.id} ${run.status}: ${run.error}`);
  if (i === 0) continue;
  wall.push(elapsed);
  claim.push(Date.parse(run.started_at!) - Date.parse(run.created_at));
  execution.push(Date.parse(run.completed_at!) - Date.parse(run.started_at!));
  for (const t of run.results[0]!.turns) {
    turnLatency.push(t.latency_ms);
    if (t.llm_ttft_ms !== null) ttft.push(t.llm_ttft_ms);
  }
  if (run.pass_rate === 1) passed += 1;
}

console.log(`test runs: ${RUNS} runs of ${TURNS} scripted turns (one mocked tool call), instant loopback model, 4 assertions`);
console.log(`  queued to completed (read by polling): ${summary(wall)}  target < 1000 ms`);
console.log(`  queued to claimed (NOTIFY wake):       ${summary(claim)}`);
console.log(`  claimed to completed:                  ${summary(execution)}`);
console.log(`  per turn, user text to end of reply:   ${summary(turnLatency)}`);
console.log(`  per turn, model time to first token:   ${summary(ttft)}`);
console.log(`  runs that passed every assertion:      ${passed} of ${RUNS}`);

await worker.stop();
await changes.close();
await llm.close();
await prisma.$disconnect();
await cluster.stop();
await fs.rm(dir, { recursive: true, force: true });
