import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { SecretBox } from '../../lib/secret-box.js';
import { createTool } from '../../modules/tools/service.js';
import { callModelTest } from '../helpers/fixtures.js';
import type { OpenAIReply } from '../fakes/vendors/openai.js';
import { afterReply, createCall, localSettings, runTimeline, runtimeOrganization } from './call-harness.js';

// An assistant's stored HTTP tool in a whole audio call: offered to the model, called with the call's variable and the
// tool's credential, its result given back to the model, and the call of it on the transcript with status and duration.

const SECRET = 'sk_live_runtime_tool_0042';
const secrets = new SecretBox(crypto.randomBytes(32));
const asked: Array<{ url: string; authorization: string | undefined }> = [];

let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    asked.push({ url: req.url!, authorization: req.headers.authorization });
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'shipped', eta: 'Friday' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

let replies: (body: Record<string, unknown>) => OpenAIReply = () => ({ text: 'Hello.' });
const it = callModelTest('Order looked up.', (body) => replies(body));

describe("an assistant's HTTP tool in a call", () => {
  it('is offered to the model, called with the call variable and its credential, and recorded with status and duration', async ({ db, llm }) => {
    const organizationId = await runtimeOrganization(db.prisma);
    const tool = await createTool({ db: db.prisma, secrets, policy: { allowPrivateTargets: true } }, organizationId, {
      name: 'lookup_order',
      description: 'Looks an order up',
      type: 'http',
      enabled: true,
      parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
      http: {
        method: 'GET',
        url: `${base}/orders/{{args.order_id}}`,
        headers: {},
        query: { account: '{{var.account}}' },
        body: null,
        secret_headers: { Authorization: `Bearer ${SECRET}` },
        timeout_ms: 2_000,
      },
      transfer: null,
      messages: { on_start: null, on_slow: null, slow_after_ms: 2_000, on_failure: null },
    });
    let offered: unknown;
    replies = (body) => {
      const messages = (body.messages ?? []) as Array<{ role: string; content: unknown }>;
      offered ??= body.tools;
      const result = messages.find((m) => m.role === 'tool');
      return result
        ? { text: `Your order has ${JSON.parse(String(result.content)).status === 'shipped' ? 'shipped' : 'not shipped'}.` }
        : { toolCalls: [{ name: 'lookup_order', arguments: '{"order_id":"A-17"}' }] };
    };
    const call = await createCall(db.prisma, localSettings(llm.url, { assigned_tools: [tool.id] }), { variables: { account: 'acme' } });
    // The caller hangs up once the one reply, after the lookup, has been spoken.
    const run = await runTimeline(db.prisma, call.id, [{ atMs: 1_000, text: 'good morning' }], {
      hangupWhen: afterReply(1),
      secrets,
      allowPrivateToolTargets: true,
    });
    expect(run.result.status).toBe('completed');

    expect(JSON.stringify(offered)).toContain('lookup_order');
    expect(asked).toEqual([{ url: '/orders/A-17?account=acme', authorization: `Bearer ${SECRET}` }]);
    const turns = await db.prisma.callTurn.findMany({ where: { callId: call.id }, orderBy: { position: 'asc' } });
    const reply = turns.find((t) => t.role === 'assistant' && t.toolCalls !== null)!;
    expect(reply.text).toBe('Your order has shipped.');
    expect(reply.toolCalls).toEqual([
      {
        name: 'lookup_order',
        arguments: { order_id: 'A-17' },
        output: { status: 'shipped', eta: 'Friday' },
        is_error: false,
        at_ms: expect.any(Number),
        http_status: 200,
        duration_ms: expect.any(Number),
      },
    ]);
    expect(JSON.stringify(turns)).not.toContain(SECRET);
  }, 120_000);
});
