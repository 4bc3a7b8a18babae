import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { SecretBox } from '../../lib/secret-box.js';
import { createTool } from '../../modules/tools/service.js';
import type { ToolCreateIn } from '../../modules/tools/schemas.js';
import { callModelTest } from '../helpers/fixtures.js';
import type { OpenAIReply } from '../fakes/vendors/openai.js';
import { messagesOf } from '../fakes/vendors/call-model.js';
import { afterAssistantSaid, afterReply, createCall, localSettings, runTimeline, runtimeOrganization } from './call-harness.js';

// A tool call while a caller waits, in whole audio calls: a slow lookup is covered by its spoken messages (and no idle
// prompt), and a caller who speaks during a lookup cancels it: the request is aborted at once, the call of it is
// recorded as cancelled, and the caller's words are answered.

const secrets = new SecretBox(crypto.randomBytes(32));

/** Requests the tool server received, and whether each was answered or abandoned by the client. */
const requests: Array<{ path: string; outcome: 'answered' | 'aborted' | 'open' }> = [];
let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const entry = { path: req.url!, outcome: 'open' as 'answered' | 'aborted' | 'open' };
    requests.push(entry);
    const delayMs = Number(new URL(req.url!, 'http://x').searchParams.get('delay_ms') ?? 0);
    const timer = setTimeout(() => {
      entry.outcome = 'answered';
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ slots: ['9:00', '11:30'] }));
    }, delayMs);
    res.on('close', () => {
      clearTimeout(timer);
      if (entry.outcome === 'open') entry.outcome = 'aborted';
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

let replies: (messages: Array<{ role: string; content: unknown }>) => OpenAIReply = () => ({ text: 'Hello.' });
const it = callModelTest('Slots looked up.', (body) => replies(messagesOf(body)));

function slotsTool(delayMs: number, messages: Partial<ToolCreateIn['messages']>): ToolCreateIn {
  return {
    mcp: null,
    name: 'find_slots',
    description: 'Finds free appointment slots',
    type: 'http',
    enabled: true,
    parameters: { type: 'object', properties: {} },
    http: { method: 'GET', url: `${base}/slots?delay_ms=${delayMs}`, headers: {}, query: {}, body: null, secret_headers: {}, timeout_ms: 20_000 },
    transfer: null,
    messages: { on_start: null, on_slow: null, slow_after_ms: 2_000, on_failure: null, ...messages },
  };
}

const userTexts = (messages: Array<{ role: string; content: unknown }>) => messages.filter((m) => m.role === 'user').map((m) => String(m.content));

describe('a tool call while the caller waits', () => {
  it('speaks its start and slow messages over a slow lookup, prompts no idle caller, and stores the call with the tool call', async ({ db, llm }) => {
    const organizationId = await runtimeOrganization(db.prisma);
    const tool = await createTool({ db: db.prisma, secrets, policy: { allowPrivateTargets: true } }, organizationId, {
      ...slotsTool(6_500, { on_start: 'Let me check.', on_slow: 'Still looking, one moment.', slow_after_ms: 1_500 }),
      name: 'find_slots_slow',
    });
    replies = (messages) => {
      const result = messages.find((m) => m.role === 'tool');
      if (result) return { text: 'I have nine or eleven thirty.' };
      return userTexts(messages).length > 0 ? { toolCalls: [{ name: 'find_slots_slow', arguments: '{}' }] } : { text: 'Hello.' };
    };
    // An idle timeout shorter than the lookup: without the busy check the caller would be asked if they are there.
    const call = await createCall(db.prisma, localSettings(llm.url, { assigned_tools: [tool.id], idle_timeout: 2, max_idle_messages: 2 }));
    // The caller hangs up once the answer has been spoken: counting replies would also count any the busy machine adds.
    const run = await runTimeline(db.prisma, call.id, [{ atMs: 800, text: 'book an appointment' }], {
      hangupWhen: afterAssistantSaid('I have nine or eleven thirty.'),
      secrets,
      allowPrivateToolTargets: true,
    });
    expect(run.result.status).toBe('completed');

    const turns = await db.prisma.callTurn.findMany({ where: { callId: call.id }, orderBy: { position: 'asc' } });
    const said = turns.filter((t) => t.role === 'assistant').map((t) => t.text);
    expect(said).toContain('Let me check.');
    expect(said).toContain('Still looking, one moment.');
    expect(said).toContain('I have nine or eleven thirty.');
    // Both messages before the answer, and no idle prompt while the lookup ran.
    expect(said.indexOf('Still looking, one moment.')).toBeLessThan(said.indexOf('I have nine or eleven thirty.'));
    expect(said.slice(0, said.indexOf('I have nine or eleven thirty.')).some((t) => /still there/i.test(t))).toBe(false);
    // The messages are on the transcript as what they are, without a reply's latency, which stays the answer's.
    const byText = (text: string) => turns.find((t) => t.text === text)!;
    expect(byText('Let me check.')).toMatchObject({ toolMessage: 'on_start', metrics: null });
    expect(byText('Still looking, one moment.')).toMatchObject({ toolMessage: 'on_slow', metrics: null });
    expect(byText('I have nine or eleven thirty.').toolMessage).toBeNull();
    const withTool = turns.find((t) => t.toolCalls !== null)!;
    expect(withTool.toolCalls).toEqual([
      {
        name: 'find_slots_slow',
        arguments: {},
        output: { slots: ['9:00', '11:30'] },
        is_error: false,
        at_ms: expect.any(Number),
        http_status: 200,
        duration_ms: expect.any(Number),
      },
    ]);
    expect((withTool.toolCalls as Array<{ duration_ms: number }>)[0]!.duration_ms).toBeGreaterThanOrEqual(6_500);
  }, 120_000);

  it('is cancelled when the caller speaks during it: the request is aborted, recorded as cancelled, and the caller answered', async ({ db, llm }) => {
    const organizationId = await runtimeOrganization(db.prisma);
    const tool = await createTool({ db: db.prisma, secrets, policy: { allowPrivateTargets: true } }, organizationId, {
      ...slotsTool(15_000, {}),
      name: 'find_slots_hanging',
    });
    replies = (messages) => {
      const users = userTexts(messages);
      if (users.some((u) => u.includes('what time'))) return { text: 'It is ten past nine.' };
      return users.length > 0 ? { toolCalls: [{ name: 'find_slots_hanging', arguments: '{}' }] } : { text: 'Hello.' };
    };
    const before = requests.length;
    /** The lookup is running: the tool server holds its request open. */
    const lookingUp = () => requests.slice(before).some((r) => r.outcome === 'open');
    const call = await createCall(db.prisma, localSettings(llm.url, { assigned_tools: [tool.id] }));
    // A second into the lookup the caller asks something else; once that has been answered, they hang up.
    const run = await runTimeline(
      db.prisma,
      call.id,
      [
        { atMs: 800, text: 'book an appointment' },
        { after: lookingUp, atMs: 1_000, text: 'what time is it' },
      ],
      { hangupWhen: afterReply(1), secrets, allowPrivateToolTargets: true },
    );
    expect(run.result.status).toBe('completed');

    const mine = requests.slice(before);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.outcome).toBe('aborted');
    const turns = await db.prisma.callTurn.findMany({ where: { callId: call.id }, orderBy: { position: 'asc' } });
    const calls = turns.flatMap((t) => (t.toolCalls as Array<Record<string, unknown>> | null) ?? []);
    expect(calls).toEqual([
      expect.objectContaining({
        name: 'find_slots_hanging',
        is_error: true,
        cancelled: true,
        output: 'Cancelled: the caller spoke while the tool was running.',
      }),
    ]);
    expect(calls[0]!.duration_ms).toBeLessThan(10_000);
    const said = turns.filter((t) => t.role === 'assistant').map((t) => t.text);
    expect(said).toContain('It is ten past nine.');
  }, 120_000);
});
