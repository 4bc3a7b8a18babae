import crypto from 'node:crypto';
import { initializeLogger } from '@livekit/agents';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { SecretBox } from '../../lib/secret-box.js';
import { vendorAccessFromEnv } from '../../agent/providers/speech-providers.js';
import { JUDGE_PROMPT } from '../../agent/test-runs/judge.js';
import { startTestRunWorker } from '../../agent/test-runs/worker.js';
import { createAssistant, saveAssistantDraft } from '../../modules/assistants/service.js';
import { bootstrap } from '../../modules/organizations/bootstrap.js';
import { TestRunCreate } from '../../modules/test-runs/schemas.js';
import { createAssistantTestRun, getTestRun } from '../../modules/test-runs/service.js';
import { createTool } from '../../modules/tools/service.js';
import { dbTest } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';
import { startFakeMcpServer, type FakeMcpServer } from '../fakes/mcp-server.js';
import { startFakeOpenAI, type OpenAIReply } from '../fakes/vendors/openai.js';
import { LOOPBACK_VENDOR_HOSTS } from '../helpers/vendor-hosts.js';

// An mcp tool in a text test run: the server's chosen tools are offered as in a call, under the same names; a run
// mocks them by those names, or calls the server when it asks for the real tools.

initializeLogger({ pretty: false, level: 'silent' });

const TOKEN = 'mcp-run-token-0123456789';
const secrets = new SecretBox(crypto.randomBytes(32));
let server: FakeMcpServer;
beforeAll(async () => {
  server = await startFakeMcpServer(TOKEN);
});
afterAll(() => server.close());

type Messages = Array<{ role: string; content: unknown }>;
const it = dbTest.extend('setup', { scope: 'file' }, async ({ db }, { onCleanup }) => {
  const llm = await startFakeOpenAI((body) => {
    const messages = (body.messages ?? []) as Messages;
    if (String(messages[0]?.content ?? '') === JUDGE_PROMPT) return { text: '{"answer": "yes", "reason": "ok"}' };
    const last = messages.at(-1)!;
    if (last.role === 'tool') return { text: `Your order is ${JSON.parse(String(last.content)).status}.` } satisfies OpenAIReply;
    return { toolCalls: [{ name: 'orders_lookup_order', arguments: '{"order_id":"A-17"}' }] } satisfies OpenAIReply;
  });
  const boot = await bootstrap(db.prisma, { organizationName: 'MCP runs', email: 'mcp-runs@example.com' });
  const org = { organizationId: boot.organization_id, userId: boot.user_id };
  const tool = await createTool({ db: db.prisma, secrets, policy: { allowPrivateTargets: true } }, org.organizationId, {
    name: 'orders',
    description: 'The order desk',
    type: 'mcp',
    enabled: true,
    parameters: { type: 'object', properties: {} },
    http: null,
    transfer: null,
    mcp: { url: server.url, secret_headers: { Authorization: `Bearer ${TOKEN}` }, timeout_ms: 3000, tools: ['lookup_order'] },
    messages: { on_start: null, on_slow: null, slow_after_ms: 2_000, on_failure: null },
  });
  const assistant = await createAssistant(
    db.prisma,
    org,
    {
      name: 'Order desk',
      llm_provider: 'custom',
      llm_provider_config: { base_url: llm.url, model: 'fake-model', custom_config: { api_key: 'test-key' } },
      assigned_tools: [tool.id],
    } as never,
    undefined,
    LOOPBACK_VENDOR_HOSTS,
  );
  const worker = startTestRunWorker(db.prisma, {
    changes: db.changes,
    access: vendorAccessFromEnv({ VENDOR_PRIVATE_HOSTS: '127.0.0.1' }),
    secrets,
    allowPrivateToolTargets: true,
    pollIntervalMs: 200,
    leaseMs: 2_000,
  });
  onCleanup(async () => {
    await worker.stop();
    await llm.close();
  });
  return { org, assistantId: assistant.id, llm };
});

describe('an mcp tool in a test run', () => {
  it("is mocked by its function's name, or calls the server when the run asks for the real tool", async ({ db, setup }) => {
    const run = async (body: unknown) => {
      const queued = await createAssistantTestRun(db.prisma, setup.org.organizationId, setup.assistantId, TestRunCreate.parse(body));
      return until(
        async () => {
          const read = await getTestRun(db.prisma, setup.org.organizationId, queued.id);
          return ['completed', 'failed', 'cancelled'].includes(read.status) ? read : undefined;
        },
        { timeoutMs: 30_000, message: `test run ${queued.id} did not finish` },
      );
    };
    const mocked = await run({ script: ['Where is my order?'], tool_mocks: { orders_lookup_order: { status: 'lost' } } });
    expect(mocked.results[0]!.tool_calls).toEqual([
      { turn: 1, name: 'orders_lookup_order', arguments: { order_id: 'A-17' }, output: { status: 'lost' }, mocked: true, is_error: false },
    ]);
    expect(server.calls).toEqual([]);
    // The run records the version of the assistant it tested.
    expect(mocked.assistant_version).toBe(1);

    const real = await run({ script: ['Where is my order?'], use_real_tools: ['orders'] });
    expect(real.results[0]!.tool_calls).toEqual([
      {
        turn: 1,
        name: 'orders_lookup_order',
        arguments: { order_id: 'A-17' },
        output: expect.objectContaining({ status: 'shipped' }),
        mocked: false,
        is_error: false,
      },
    ]);
    expect(real.results[0]!.transcript.at(-1)).toMatchObject({ role: 'assistant', text: 'Your order is shipped.' });
    expect(server.calls).toEqual([{ tool: 'lookup_order', args: { order_id: 'A-17' }, authorization: `Bearer ${TOKEN}` }]);
  }, 120_000);

  it('tests the draft when the assistant has one, and the current version when asked', async ({ db, setup }) => {
    await saveAssistantDraft(
      db.prisma,
      setup.org.organizationId,
      setup.assistantId,
      { llm_settings: { system_prompt: 'You are the DRAFT order desk.' } },
      secrets,
      LOOPBACK_VENDOR_HOSTS,
    );
    const run = async (body: unknown) => {
      const queued = await createAssistantTestRun(db.prisma, setup.org.organizationId, setup.assistantId, TestRunCreate.parse(body));
      return until(
        async () => {
          const read = await getTestRun(db.prisma, setup.org.organizationId, queued.id);
          return ['completed', 'failed', 'cancelled'].includes(read.status) ? read : undefined;
        },
        { timeoutMs: 30_000, message: `test run ${queued.id} did not finish` },
      );
    };
    const systemPrompts = () => setup.llm.chats().map((c) => String(((c.messages ?? []) as Messages)[0]?.content ?? ''));
    const before = systemPrompts().length;
    const drafted = await run({ script: ['Where is my order?'], tool_mocks: { orders_lookup_order: { status: 'lost' } } });
    expect(drafted).toMatchObject({ status: 'completed', draft: true, assistant_version: 1 });
    expect(
      systemPrompts()
        .slice(before)
        .some((p) => p.includes('DRAFT order desk')),
    ).toBe(true);
    const middle = systemPrompts().length;
    const current = await run({ script: ['Where is my order?'], tool_mocks: { orders_lookup_order: { status: 'lost' } }, use_draft: false });
    expect(current).toMatchObject({ status: 'completed', draft: false, assistant_version: 1 });
    expect(
      systemPrompts()
        .slice(middle)
        .some((p) => p.includes('DRAFT')),
    ).toBe(false);
  }, 120_000);
});
