import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { SecretBox } from '../../lib/secret-box.js';
import { createTool } from '../../modules/tools/service.js';
import { callModelTest } from '../helpers/fixtures.js';
import { startFakeMcpServer, type FakeMcpServer } from '../fakes/mcp-server.js';
import type { OpenAIReply } from '../fakes/vendors/openai.js';
import { afterReply, createCall, localSettings, runTimeline, runtimeOrganization } from './call-harness.js';

// An mcp tool in a whole call: the team's MCP server (the official SDK, on 127.0.0.1) is connected to as the call
// starts, the tools chosen from it are offered to the model under the tool's name, a call of one reaches the server
// with the sealed credential, and the transcript records it like any tool call.

const TOKEN = 'mcp-call-token-0123456789';
const secrets = new SecretBox(crypto.randomBytes(32));
let server: FakeMcpServer;
beforeAll(async () => {
  server = await startFakeMcpServer(TOKEN);
});
afterAll(() => server.close());

let replies: (body: Record<string, unknown>) => OpenAIReply = () => ({ text: 'Hello.' });
const it = callModelTest('Order looked up.', (body) => replies(body));

describe("an assistant's MCP tool in a call", () => {
  it('offers the chosen server tools to the model, calls one with the credential, and records it in the transcript', async ({ db, llm }) => {
    const organizationId = await runtimeOrganization(db.prisma);
    const tool = await createTool({ db: db.prisma, secrets, policy: { allowPrivateTargets: true } }, organizationId, {
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
    let offered: { function: { name: string } }[] | undefined;
    replies = (body) => {
      const messages = (body.messages ?? []) as Array<{ role: string; content: unknown }>;
      offered ??= body.tools as typeof offered;
      const result = messages.find((m) => m.role === 'tool');
      return result
        ? { text: `Your order has ${JSON.parse(String(result.content)).status}.` }
        : { toolCalls: [{ name: 'orders_lookup_order', arguments: '{"order_id":"A-17"}' }] };
    };
    const call = await createCall(db.prisma, localSettings(llm.url, { assigned_tools: [tool.id] }));
    const run = await runTimeline(db.prisma, call.id, [{ atMs: 1_000, text: 'good morning' }], {
      hangupWhen: afterReply(1),
      secrets,
      allowPrivateToolTargets: true,
    });
    expect(run.result.status).toBe('completed');

    // Only the chosen tool of the server, under the tool's name.
    expect(offered?.map((t) => t.function.name)).toEqual(['orders_lookup_order']);
    expect(server.calls).toEqual([{ tool: 'lookup_order', args: { order_id: 'A-17' }, authorization: `Bearer ${TOKEN}` }]);
    const turns = await db.prisma.callTurn.findMany({ where: { callId: call.id }, orderBy: { position: 'asc' } });
    const reply = turns.find((t) => t.role === 'assistant' && t.toolCalls !== null)!;
    expect(reply.text).toBe('Your order has shipped.');
    expect(reply.toolCalls).toEqual([
      {
        name: 'orders_lookup_order',
        arguments: { order_id: 'A-17' },
        output: { order_id: 'A-17', status: 'shipped', eta: 'Friday' },
        is_error: false,
        at_ms: expect.any(Number),
        duration_ms: expect.any(Number),
      },
    ]);
    expect(JSON.stringify(turns)).not.toContain(TOKEN);
  }, 120_000);

  it('goes on without the tools of a server it cannot reach', async ({ db, llm }) => {
    const organizationId = await runtimeOrganization(db.prisma);
    const tool = await createTool({ db: db.prisma, secrets, policy: { allowPrivateTargets: true } }, organizationId, {
      name: 'gone',
      description: 'A server that is not there',
      type: 'mcp',
      enabled: true,
      parameters: { type: 'object', properties: {} },
      http: null,
      transfer: null,
      mcp: { url: 'http://127.0.0.1:9/mcp', secret_headers: {}, timeout_ms: 1000, tools: null },
      messages: { on_start: null, on_slow: null, slow_after_ms: 2_000, on_failure: null },
    });
    let offered: unknown = 'unset';
    replies = (body) => {
      if (offered === 'unset') offered = body.tools;
      return { text: 'How can I help?' };
    };
    const call = await createCall(db.prisma, localSettings(llm.url, { assigned_tools: [tool.id] }));
    const run = await runTimeline(db.prisma, call.id, [{ atMs: 1_000, text: 'good morning' }], {
      hangupWhen: afterReply(1),
      secrets,
      allowPrivateToolTargets: true,
    });
    expect(run.result.status).toBe('completed');
    expect(run.result.transcript.map((t) => t.text)).toEqual(['good morning', 'How can I help?']);
    expect(offered ?? []).toEqual([]);
  }, 120_000);
});
