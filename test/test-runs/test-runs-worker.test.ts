import os from 'node:os';
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { initializeLogger } from '@livekit/agents';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { SecretBox } from '../../lib/secret-box.js';
import { vendorAccessFromEnv } from '../../agent/providers/speech-providers.js';
import { JUDGE_PROMPT } from '../../agent/test-runs/judge.js';
import { startTestRunWorker, type TestRunWorker } from '../../agent/test-runs/worker.js';
import { createAssistant } from '../../modules/assistants/service.js';
import { bootstrap } from '../../modules/organizations/bootstrap.js';
import { EXHAUSTED_ERROR, finishTestRun, MAX_ATTEMPTS, releaseTestRun } from '../../modules/test-runs/queue.js';
import { TestRunCreate, type RepetitionOut } from '../../modules/test-runs/schemas.js';
import { cancelTestRun, createAssistantTestRun, createPlaybookTestRun, getTestRun } from '../../modules/test-runs/service.js';
import { createPlaybook } from '../../modules/playbooks/service.js';
import { PlaybookCreate } from '../../modules/playbooks/schemas.js';
import { PlaybookTestRunCreate } from '../../modules/test-runs/schemas.js';
import { createTool } from '../../modules/tools/service.js';
import { dbTest } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';
import { startFakeOpenAI, type FakeOpenAI, type OpenAIReply } from '../fakes/vendors/openai.js';
import { LOOPBACK_VENDOR_HOSTS } from '../helpers/vendor-hosts.js';

// Test runs executed end to end: a worker's job loop claims them (woken by NOTIFY), runs text conversations against
// the OpenAI fake on loopback with the tools mocked, judges the assertions and writes the result with its event.

initializeLogger({ pretty: false, level: 'silent' });

const secrets = new SecretBox(crypto.randomBytes(32));
type Messages = Array<{ role: string; content: unknown }>;
const systemOf = (body: Record<string, unknown>) => String(((body.messages ?? []) as Messages)[0]?.content ?? '');
const lastOf = (body: Record<string, unknown>) => ((body.messages ?? []) as Messages).at(-1)!;

/** What the assistant's model answers; the simulated user and the judge have their own below. */
let assistantReplies: (body: Record<string, unknown>) => OpenAIReply = () => ({ text: 'Hello.' });
let userReplies: (index: number) => OpenAIReply = () => ({ text: 'Bye. [DONE]' });
let judgeReply: OpenAIReply = { text: '{"answer": "yes", "reason": "The assistant confirmed the booking."}' };
let userIndex = 0;

const asked: string[] = [];
let toolServer: http.Server;
let toolBase: string;
beforeAll(async () => {
  toolServer = http.createServer((req, res) => {
    asked.push(req.url!);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'delivered', source: 'real' }));
  });
  await new Promise<void>((resolve) => toolServer.listen(0, '127.0.0.1', resolve));
  toolBase = `http://127.0.0.1:${(toolServer.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => toolServer.close(() => resolve())));

interface Setup {
  llm: FakeOpenAI;
  worker: TestRunWorker;
  org: { organizationId: number; userId: number };
  assistantId: number;
}

const it = dbTest.extend('setup', { scope: 'file' }, async ({ db }, { onCleanup }): Promise<Setup> => {
  const llm = await startFakeOpenAI((body) => {
    const system = systemOf(body);
    if (system.startsWith('You are role-playing')) return userReplies(userIndex++);
    if (system === JUDGE_PROMPT) return judgeReply;
    return assistantReplies(body);
  });
  const boot = await bootstrap(db.prisma, { organizationName: 'Test runs', email: 'runs@example.com' });
  const org = { organizationId: boot.organization_id, userId: boot.user_id };
  const tool = await createTool({ db: db.prisma, secrets, policy: { allowPrivateTargets: true } }, org.organizationId, {
    name: 'lookup_order',
    description: 'Looks an order up',
    type: 'http',
    enabled: true,
    parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
    http: {
      method: 'GET',
      url: `${toolBase}/orders/{{args.order_id}}`,
      headers: {},
      query: { account: '{{var.account}}' },
      body: null,
      secret_headers: {},
      timeout_ms: 2_000,
    },
    transfer: null,
    messages: { on_start: null, on_slow: null, slow_after_ms: 2_000, on_failure: null },
  });
  const assistant = await createAssistant(
    db.prisma,
    org,
    {
      name: 'Order desk',
      llm_provider: 'custom',
      llm_provider_config: { base_url: llm.url, model: 'fake-model', custom_config: { api_key: 'test-key' } },
      llm_settings: { system_prompt: 'You are the order desk of {{var.shop}}.' },
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
  return { llm, worker, org, assistantId: assistant.id };
});

const queue = (db: { prisma: import('../../prisma/client.js').PrismaClient }, setup: Setup, body: unknown, assistantId = setup.assistantId) =>
  createAssistantTestRun(db.prisma, setup.org.organizationId, assistantId, TestRunCreate.parse(body));

const finished = (db: { prisma: import('../../prisma/client.js').PrismaClient }, setup: Setup, id: number, timeoutMs = 15_000) =>
  until(
    async () => {
      const run = await getTestRun(db.prisma, setup.org.organizationId, id);
      return ['completed', 'failed', 'cancelled'].includes(run.status) ? run : undefined;
    },
    { timeoutMs, message: `test run ${id} did not finish` },
  );

const orderDesk =
  (afterTool: () => string) =>
  (body: Record<string, unknown>): OpenAIReply => {
    const last = lastOf(body);
    if (last.role === 'tool') return { text: afterTool() };
    if (String(last.content).includes('order')) return { toolCalls: [{ name: 'lookup_order', arguments: '{"order_id":"A-17"}' }] };
    return { text: 'Hello, how can I help?' };
  };

describe('a scripted test run', () => {
  it('runs every repetition with the tool mocked, judges the assertions, reports a pass rate of 0.5, and records its event', async ({ db, setup }) => {
    let answers = 0;
    assistantReplies = orderDesk(() => (answers++ % 2 === 0 ? 'Your order has shipped.' : 'I could not find that order.'));
    const run = await queue(db, setup, {
      script: ['Hi there', 'Where is my order A-17?'],
      variables: { shop: 'Acme' },
      tool_mocks: { lookup_order: { status: 'shipped', eta: 'Friday' } },
      assertions: [
        { type: 'tool_called', name: 'lookup_order', arguments: { order_id: 'A-17' } },
        { type: 'tool_not_called', name: 'lookup_order', turn: 1 },
        { type: 'reply_contains', text: 'SHIPPED', turn: 2 },
        { type: 'reply_matches', pattern: '^hello' },
        { type: 'turn_count', min: 2, max: 2 },
      ],
      repeat: 2,
    });
    const done = await finished(db, setup, run.id);
    expect(done).toMatchObject({ status: 'completed', pass_rate: 0.5, attempts: 1, error: null });
    // The two repetitions run at once: whichever was answered first passed.
    expect(done.results.map((r) => r.repetition)).toEqual([1, 2]);
    const first = done.results.find((r) => r.passed)!;
    const second = done.results.find((r) => !r.passed)!;
    expect(second).toBeDefined();
    expect(first.ended_by).toBe('script');
    expect(first.transcript).toEqual([
      { role: 'user', text: 'Hi there', turn: 1 },
      { role: 'assistant', text: 'Hello, how can I help?', turn: 1 },
      { role: 'user', text: 'Where is my order A-17?', turn: 2 },
      { role: 'assistant', text: 'Your order has shipped.', turn: 2 },
    ]);
    expect(first.tool_calls).toEqual([
      { turn: 2, name: 'lookup_order', arguments: { order_id: 'A-17' }, output: { status: 'shipped', eta: 'Friday' }, mocked: true, is_error: false },
    ]);
    expect(second.assertions.map((a) => [a.type, a.passed])).toEqual([
      ['tool_called', true],
      ['tool_not_called', true],
      ['reply_contains', false],
      ['reply_matches', true],
      ['turn_count', true],
    ]);
    expect(second.assertions[2]!.reason).toContain('does not contain');
    expect(first.turns.map((t) => t.turn)).toEqual([1, 2]);
    for (const t of first.turns) expect(t.latency_ms).toBeGreaterThanOrEqual(0);
    expect(first.usage.assistant.requests).toBe(3);
    expect(first.usage.assistant.prompt_tokens).toBeGreaterThan(0);
    expect(done.totals).toMatchObject({ repetitions: 2, passed: 1, usage: { total: { requests: 6 } } });
    expect(asked).toEqual([]);

    // The prompt was rendered with the run's variable, as a call renders it.
    expect(setup.llm.chats().some((c) => systemOf(c).includes('Acme'))).toBe(true);

    const events = await db.prisma.event.findMany({ where: { organizationId: setup.org.organizationId, type: 'test_run.completed' } });
    const event = events.find((e) => (e.payload as { test_run_id: number }).test_run_id === run.id);
    expect(event?.payload).toMatchObject({
      test_run_id: run.id,
      assistant_id: setup.assistantId,
      status: 'completed',
      pass_rate: 0.5,
      repetitions: 2,
      passed: 1,
      usage: { requests: 6 },
    });
  }, 120_000);

  it('runs up to 3 repetitions at once, and stores them in order', async ({ db, setup }) => {
    const arrivals: number[] = [];
    assistantReplies = () => {
      arrivals.push(Date.now());
      return { text: 'Later.', delayMs: 1_000 };
    };
    const run = await finished(db, setup, (await queue(db, setup, { script: ['Hi'], repeat: 4 })).id);
    expect(run.results.map((r) => r.repetition)).toEqual([1, 2, 3, 4]);
    // Three conversations asked the model within moments of each other, each answer taking a second; the fourth after.
    expect(arrivals).toHaveLength(4);
    expect(arrivals[2]! - arrivals[0]!).toBeLessThan(900);
    expect(arrivals[3]! - arrivals[0]!).toBeGreaterThanOrEqual(900);
  }, 120_000);

  it('answers a tool without a mock with a generic success, and a mocked error as a failure', async ({ db, setup }) => {
    assistantReplies = orderDesk(() => 'Done.');
    const generic = await finished(db, setup, (await queue(db, setup, { script: ['Where is my order?'] })).id);
    expect(generic.results[0]!.tool_calls[0]).toMatchObject({ output: { success: true }, mocked: true, is_error: false });
    const failing = await finished(
      db,
      setup,
      (await queue(db, setup, { script: ['Where is my order?'], tool_mocks: { lookup_order: { error: 'order service down' } } })).id,
    );
    expect(failing.results[0]!.tool_calls[0]).toMatchObject({ output: 'order service down', mocked: true, is_error: true });
    expect(asked).toEqual([]);
  }, 120_000);

  it('calls the real HTTP tool only when asked, with the run’s variables', async ({ db, setup }) => {
    assistantReplies = orderDesk(() => 'It was delivered.');
    const run = await finished(
      db,
      setup,
      (await queue(db, setup, { script: ['Where is my order?'], variables: { account: 'acme-1' }, use_real_tools: ['lookup_order'] })).id,
    );
    expect(asked).toEqual(['/orders/A-17?account=acme-1']);
    expect(run.results[0]!.tool_calls[0]).toMatchObject({
      name: 'lookup_order',
      output: { status: 'delivered', source: 'real' },
      mocked: false,
      is_error: false,
    });
    asked.length = 0;
  }, 120_000);
});

describe('the prompt of each reply, as in a call', () => {
  it("keeps only the last turns the assistant's history budget allows (rag_settings), as calls do", async ({ db, setup }) => {
    const brief = await createAssistant(
      db.prisma,
      setup.org,
      {
        name: 'Brief desk',
        llm_provider: 'custom',
        llm_provider_config: { base_url: setup.llm.url, model: 'fake-model', custom_config: { api_key: 'test-key' } },
        llm_settings: { system_prompt: 'You are the brief desk.' },
        rag_settings: { history_strategy: 'sliding_window', max_history_turns: 1 },
      } as never,
      undefined,
      LOOPBACK_VENDOR_HOSTS,
    );
    assistantReplies = () => ({ text: 'Noted.' });
    const before = setup.llm.chats().length;
    const run = await finished(db, setup, (await queue(db, setup, { script: ['First question', 'Second question', 'Third question'] }, brief.id)).id);
    expect(run.status).toBe('completed');
    const asked = setup.llm
      .chats()
      .slice(before)
      .filter((body) => systemOf(body).startsWith('You are the brief desk'));
    const third = asked.find((body) => String(lastOf(body).content).includes('Third question'))!;
    const users = ((third.messages ?? []) as Messages).filter((m) => m.role === 'user').map((m) => String(m.content));
    expect(users.some((said) => said.includes('Third question'))).toBe(true);
    expect(users.some((said) => said.includes('First question'))).toBe(false);
  });
});

describe('the opening', () => {
  it('opens with the assistant’s welcome, rendered with the run’s variables, as turn 0', async ({ db, setup }) => {
    assistantReplies = () => ({ text: 'Sure.' });
    const welcoming = await createAssistant(
      db.prisma,
      setup.org,
      {
        name: 'Welcoming',
        llm_provider: 'custom',
        llm_provider_config: { base_url: setup.llm.url, model: 'fake-model', custom_config: { api_key: 'test-key' } },
        llm_settings: { welcome_message: 'Welcome to {{var.shop}}.' },
      } as never,
      secrets,
      LOOPBACK_VENDOR_HOSTS,
    );
    const run = await finished(
      db,
      setup,
      (
        await queue(
          db,
          setup,
          { script: ['Hi'], variables: { shop: 'Acme' }, assertions: [{ type: 'reply_contains', text: 'acme', turn: null }] },
          welcoming.id,
        )
      ).id,
    );
    const rep = run.results[0]!;
    expect(rep.transcript).toEqual([
      { role: 'assistant', text: 'Welcome to Acme.', turn: 0 },
      { role: 'user', text: 'Hi', turn: 1 },
      { role: 'assistant', text: 'Sure.', turn: 1 },
    ]);
    expect(rep.turns.map((t) => [t.turn, t.llm_ttft_ms === null])).toEqual([
      [0, true],
      [1, false],
    ]);
    expect(run.pass_rate).toBe(1);
  }, 120_000);

  it('lets the assistant open from its prompt when asked and it has no welcome', async ({ db, setup }) => {
    userIndex = 0;
    userReplies = () => ({ text: 'Bye. [DONE]' });
    assistantReplies = (body) => (lastOf(body).role === 'system' ? { text: 'Good evening, order desk.' } : { text: 'Goodbye.' });
    const run = await finished(db, setup, (await queue(db, setup, { simulated_user: { persona: 'p', goal: 'g', assistant_speaks_first: true } })).id);
    const rep = run.results[0]!;
    expect(rep.transcript[0]).toEqual({ role: 'assistant', text: 'Good evening, order desk.', turn: 0 });
    expect(rep.transcript.slice(1).map((t) => t.text)).toEqual(['Bye.', 'Goodbye.']);
    const userChat = setup.llm
      .chats()
      .filter((c) => systemOf(c).startsWith('You are role-playing'))
      .at(-1)!;
    expect(JSON.stringify(userChat.messages)).toContain('Good evening, order desk.');
  }, 120_000);
});

describe('a simulated user and a judge', () => {
  it('lets the simulated user speak until it is done, and asks the judge its question', async ({ db, setup }) => {
    userIndex = 0;
    userReplies = (i) => (i === 0 ? { text: 'I would like a table for four tonight.' } : { text: 'Perfect, thank you. Bye! [DONE]' });
    assistantReplies = (body) => (String(lastOf(body).content).includes('table') ? { text: 'Booked: four people at eight.' } : { text: 'You are welcome.' });
    const run = await finished(
      db,
      setup,
      (
        await queue(db, setup, {
          simulated_user: { persona: 'A busy parent', goal: 'Book a table for four', max_turns: 5 },
          assertions: [
            { type: 'judge', question: 'Did the assistant book the table?' },
            { type: 'turn_count', max: 3 },
          ],
        })
      ).id,
    );
    expect(run.status).toBe('completed');
    const rep = run.results[0]!;
    expect(rep.ended_by).toBe('user_done');
    expect(rep.transcript).toEqual([
      { role: 'user', text: 'I would like a table for four tonight.', turn: 1 },
      { role: 'assistant', text: 'Booked: four people at eight.', turn: 1 },
      { role: 'user', text: 'Perfect, thank you. Bye!', turn: 2 },
      { role: 'assistant', text: 'You are welcome.', turn: 2 },
    ]);
    expect(rep.assertions).toEqual([
      { index: 0, type: 'judge', passed: true, reason: 'The assistant confirmed the booking.' },
      { index: 1, type: 'turn_count', passed: true, reason: '2 user turn(s); expected at most 3' },
    ]);
    expect(rep.usage.simulated_user.requests).toBe(2);
    expect(rep.usage.judge.requests).toBe(1);
    expect(run.pass_rate).toBe(1);
    // The simulated user read the assistant's reply as the other side of the call; the judge read the transcript.
    const userChat = setup.llm
      .chats()
      .filter((c) => systemOf(c).startsWith('You are role-playing'))
      .at(-1)!;
    expect(JSON.stringify(userChat.messages)).toContain('Booked: four people at eight.');
    const judgeChat = setup.llm.chats().find((c) => systemOf(c) === JUDGE_PROMPT)!;
    expect(String(lastOf(judgeChat).content)).toContain('Assistant: Booked: four people at eight.');
  }, 120_000);

  it('stops at max_turns, and a judge that says no fails the repetition', async ({ db, setup }) => {
    userIndex = 0;
    userReplies = () => ({ text: 'Hm, I am not sure.' });
    assistantReplies = () => ({ text: 'Can I help?' });
    judgeReply = { text: '{"answer": "no", "reason": "Nothing was booked."}' };
    const run = await finished(
      db,
      setup,
      (
        await queue(db, setup, {
          simulated_user: { persona: 'p', goal: 'g', max_turns: 3, first_message: 'Hello?' },
          assertions: [{ type: 'judge', question: 'Was a table booked?' }],
        })
      ).id,
    );
    const rep = run.results[0]!;
    expect(rep.ended_by).toBe('max_turns');
    expect(rep.transcript.filter((t) => t.role === 'user').map((t) => t.text)).toEqual(['Hello?', 'Hm, I am not sure.', 'Hm, I am not sure.']);
    expect(rep.usage.simulated_user.requests).toBe(2);
    expect(rep.assertions[0]).toMatchObject({ passed: false, reason: 'Nothing was booked.' });
    expect(run.pass_rate).toBe(0);
    judgeReply = { text: '{"answer": "yes", "reason": "The assistant confirmed the booking."}' };
  }, 120_000);
});

describe('a playbook', () => {
  it('starts inside the playbook, in the assistant named, and checks the values it collected', async ({ db, setup }) => {
    const playbook = await createPlaybook(
      db.prisma,
      setup.org.organizationId,
      PlaybookCreate.parse({
        name: 'Returns',
        goal: 'Take a return',
        instructions: ['Ask for the order number'],
        collect: [{ name: 'order_number', type: 'string', required: true }],
        mode: 'handoff',
      }),
    );
    assistantReplies = (body) => {
      const last = lastOf(body);
      if (last.role === 'tool') return { text: 'Thanks, I have noted order A-17.' };
      if (String(last.content).includes('A-17')) return { toolCalls: [{ name: 'save_values', arguments: '{"order_number":"A-17"}' }] };
      return { text: 'What is your order number?' };
    };
    const queued = await createPlaybookTestRun(
      db.prisma,
      setup.org.organizationId,
      playbook.id,
      PlaybookTestRunCreate.parse({
        script: ['I want to return something', 'It is A-17'],
        assistant_id: setup.assistantId,
        assertions: [
          { type: 'value_collected', name: 'order_number', expected: 'a-17' },
          { type: 'value_collected', name: 'Returns.order_number' },
          { type: 'tool_called', name: 'save_values', turn: 2 },
        ],
      }),
    );
    const run = await finished(db, setup, queued.id);
    expect(run).toMatchObject({ status: 'completed', playbook_id: playbook.id, assistant_id: setup.assistantId, pass_rate: 1 });
    const rep = run.results[0]!;
    expect(rep.collected).toEqual({ Returns: { values: { order_number: 'A-17' }, missing: [] } });
    expect(rep.tool_calls).toEqual([
      {
        turn: 2,
        name: 'save_values',
        arguments: { order_number: 'A-17' },
        output: { saved: ['order_number'], still_missing: [] },
        mocked: false,
        is_error: false,
      },
    ]);
    // The first request was the playbook's agent: its procedure was in the prompt.
    const first = setup.llm.chats().find((c) => JSON.stringify(c.messages).includes('I want to return something'))!;
    expect(systemOf(first)).toContain('Ask for the order number');
  }, 120_000);
});

describe('leases, failures and cancellation', () => {
  it('takes over a run whose worker died, and fences the dead worker’s late write', async ({ db, setup }) => {
    assistantReplies = () => ({ text: 'Hello again.' });
    // Queued and claimed by a worker that died: running, its lease expired, one attempt spent.
    const run = await db.prisma.testRun.create({
      data: {
        organizationId: setup.org.organizationId,
        assistantId: setup.assistantId,
        status: 'running',
        request: TestRunCreate.parse({ script: ['Hi'] }) as never,
        attempts: 1,
        leaseToken: 'dead-worker',
        leaseExpiresAt: new Date(Date.now() - 1_000),
        startedAt: new Date(),
      },
    });
    const done = await finished(db, setup, run.id);
    expect(done).toMatchObject({ status: 'completed', attempts: 2, pass_rate: 1 });
    const late = await finishTestRun(
      db.prisma,
      { id: run.id, leaseToken: 'dead-worker', organizationId: setup.org.organizationId },
      { status: 'failed', results: [], error: 'late', totals: null },
    );
    expect(late).toBe(false);
    expect((await getTestRun(db.prisma, setup.org.organizationId, run.id)).status).toBe('completed');
  }, 120_000);

  it('resumes a run handed back by a stopping worker after its stored repetitions, without counting the attempt', async ({ db, setup }) => {
    assistantReplies = () => ({ text: 'Second time.' });
    const stored: RepetitionOut = {
      repetition: 1,
      passed: true,
      ended_by: 'script',
      transcript: [
        { role: 'user', text: 'Hi', turn: 1 },
        { role: 'assistant', text: 'First time.', turn: 1 },
      ],
      tool_calls: [],
      collected: {},
      assertions: [],
      turns: [{ turn: 1, latency_ms: 5, llm_ttft_ms: 2 }],
      usage: {
        assistant: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, requests: 1 },
        simulated_user: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, requests: 0 },
        judge: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, requests: 0 },
      },
      error: null,
    };
    // Held by a worker whose lease is still good: no other worker may take it until it is handed back.
    const run = await db.prisma.testRun.create({
      data: {
        organizationId: setup.org.organizationId,
        assistantId: setup.assistantId,
        status: 'running',
        request: TestRunCreate.parse({ script: ['Hi'], repeat: 2 }) as never,
        results: [stored] as never,
        attempts: 1,
        leaseToken: 'stopping-worker',
        leaseExpiresAt: new Date(Date.now() + 60_000),
      },
    });
    expect(await releaseTestRun(db.prisma, { id: run.id, leaseToken: 'someone-else' })).toBe(false);
    expect(await releaseTestRun(db.prisma, { id: run.id, leaseToken: 'stopping-worker' })).toBe(true);
    const done = await finished(db, setup, run.id);
    expect(done).toMatchObject({ status: 'completed', attempts: 1, pass_rate: 1 });
    expect(done.results.map((r) => r.transcript.at(-1)!.text)).toEqual(['First time.', 'Second time.']);
    expect(done.totals).toMatchObject({ repetitions: 2, usage: { assistant: { requests: 2 } } });
  }, 120_000);

  it('fails a run interrupted on its last attempt, with the reason and its event', async ({ db, setup }) => {
    const run = await db.prisma.testRun.create({
      data: {
        organizationId: setup.org.organizationId,
        assistantId: setup.assistantId,
        status: 'running',
        request: TestRunCreate.parse({ script: ['Hi'] }) as never,
        attempts: MAX_ATTEMPTS,
        leaseToken: 'dead-again',
        leaseExpiresAt: new Date(Date.now() - 1_000),
      },
    });
    setup.worker.wake();
    const done = await finished(db, setup, run.id);
    expect(done).toMatchObject({ status: 'failed', error: EXHAUSTED_ERROR, attempts: MAX_ATTEMPTS, pass_rate: null });
    const event = await db.prisma.event.findFirst({ where: { type: 'test_run.completed', payload: { path: ['test_run_id'], equals: run.id } } });
    expect(event?.payload).toMatchObject({ status: 'failed', error: EXHAUSTED_ERROR });
  }, 120_000);

  it('records a model that fails for good as the repetition’s error, and completes the run', async ({ db, setup }) => {
    assistantReplies = () => ({ status: 500, message: 'overloaded' });
    const run = await finished(db, setup, (await queue(db, setup, { script: ['Hi', 'Again'], repeat: 2 })).id);
    expect(run).toMatchObject({ status: 'completed', pass_rate: 0 });
    for (const rep of run.results) {
      expect(rep).toMatchObject({ ended_by: 'error', passed: false });
      expect(rep.error).toEqual(expect.any(String));
      expect(rep.transcript).toEqual([{ role: 'user', text: 'Hi', turn: 1 }]);
    }
  }, 120_000);

  it('fails a run whose assistant has no credential for its model', async ({ db, setup }) => {
    const keyless = await createAssistant(db.prisma, setup.org, { name: 'Keyless', llm_provider: 'openai' } as never);
    const done = await finished(db, setup, (await queue(db, setup, { script: ['Hi'] }, keyless.id)).id);
    expect(done.status).toBe('failed');
    expect(done.error).toContain('OPENAI_API_KEY');
  }, 120_000);

  it('fails a run whose LLM URL resolves to a loopback host the operator has not allowed, sending it nothing', async ({ db, setup }) => {
    // The fake LLM under this machine's host name: a name, so the create accepts it; it resolves to loopback.
    const inside = new URL(setup.llm.url);
    inside.hostname = os.hostname();
    const pointed = await createAssistant(db.prisma, setup.org, {
      name: 'Pointed inside',
      llm_provider: 'custom',
      llm_provider_config: { base_url: inside.href, model: 'fake-model', custom_config: { api_key: 'stored-vendor-key' } },
    } as never);
    const before = setup.llm.chats().length;
    const done = await finished(db, setup, (await queue(db, setup, { script: ['Hi'] }, pointed.id)).id);
    expect(done.status).toBe('failed');
    expect(done.error).toContain('llm_provider_config.base_url');
    expect(setup.llm.chats().length).toBe(before);
  }, 120_000);

  it('stops a running run when it is cancelled, and writes nothing after', async ({ db, setup }) => {
    assistantReplies = () => ({ text: 'Slowly.', delayMs: 3_000 });
    const run = await queue(db, setup, { script: ['Hi', 'Again'] });
    await until(async () => (await getTestRun(db.prisma, setup.org.organizationId, run.id)).status === 'running', { message: 'not started' });
    const cancelled = await cancelTestRun(db.prisma, setup.org.organizationId, run.id);
    expect(cancelled.status).toBe('cancelled');
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    const after = await getTestRun(db.prisma, setup.org.organizationId, run.id);
    expect(after).toMatchObject({ status: 'cancelled', error: 'cancelled by request', results: [] });
    expect(await db.prisma.event.count({ where: { type: 'test_run.completed', payload: { path: ['test_run_id'], equals: run.id } } })).toBe(0);
  }, 120_000);
});
