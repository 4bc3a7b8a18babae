import { initializeLogger } from '@livekit/agents';
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentTracing } from '../../agent/tracing.js';
import { SecretBox } from '../../lib/secret-box.js';
import type { Tracing } from '../../lib/tracing/index.js';
import { createApiContext, type ApiContext, type Tenant } from '../helpers/api.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../fakes/otlp-receiver.js';
import { type FakeOpenAI } from '../fakes/vendors/openai.js';
import { afterReply, localSettings, runTimeline } from '../runtime/call-harness.js';
import { messagesOf, startFakeCallModel } from '../fakes/vendors/call-model.js';

// Traces exported over OTLP to a collector's receiver on 127.0.0.1: a server span per API request joined to the
// caller's trace, and one trace per call from the request that created it through the call's run (the framework's
// turn spans, the tool call, the finalisation), with what was said kept off every span unless the operator asks.

initializeLogger({ pretty: false, level: 'silent' });

const CALLER_WORDS = 'good morning';
const ORDER = 'A-17';
const REPLY = 'Your order has shipped.';
const secrets = new SecretBox(crypto.randomBytes(32));

let receiver: OtlpReceiver;
let tracing: Tracing;
let api: ApiContext;
let acme: Tenant;
let llm: FakeOpenAI;
let shop: http.Server;
let shopUrl: string;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  tracing = await startAgentTracing({ endpoint: `${receiver.url}/v1/traces`, serviceName: 'voice-under-test', includeContent: false }, 'voice-platform');
  // Built once tracing runs, as the service builds its API: the request spans are added only then.
  api = await createApiContext({
    secrets,
    allowPrivateWebhookTargets: true,
    callAudioRunner: {
      open: () => {
        throw new Error('run by the test');
      },
    },
  });
  acme = await api.tenant('Acme');
  shop = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'shipped' })));
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
  llm = await startFakeCallModel('Order looked up.', (body) =>
    messagesOf(body).some((m) => m.role === 'tool')
      ? { text: REPLY }
      : { toolCalls: [{ name: 'lookup_order', arguments: JSON.stringify({ order_id: ORDER }) }] },
  );
}, 60_000);
afterAll(async () => {
  await tracing?.stop();
  await api?.close();
  await llm?.close();
  await new Promise<void>((resolve) => (shop ? shop.close(() => resolve()) : resolve()));
  await receiver?.close();
});

/** Everything exported so far: the processor batches, so the test flushes it rather than waiting for the interval. */
async function exported(): Promise<ReceivedSpan[]> {
  await tracing.provider.forceFlush();
  return receiver.spans;
}

const traceParent = (traceId: string, spanId: string) => `00-${traceId}-${spanId}-01`;
const randomHex = (bytes: number) => crypto.randomBytes(bytes).toString('hex');

describe('traces over OTLP', () => {
  it("exports a server span per API request, named by its route template and joined to the caller's traceparent", async () => {
    const traceId = randomHex(16);
    const parentId = randomHex(8);
    const res = await api.app.inject({
      method: 'GET',
      url: '/api/assistants?limit=5',
      headers: { authorization: `Bearer ${acme.key}`, traceparent: traceParent(traceId, parentId) },
    });
    expect(res.statusCode).toBe(200);
    const spans = await exported();
    const span = spans.find((s) => s.traceId === traceId);
    expect(span).toMatchObject({
      name: 'GET /api/assistants',
      parentSpanId: parentId,
      kind: 2,
      attributes: { 'http.request.method': 'GET', 'http.route': '/api/assistants', 'http.response.status_code': 200 },
      resource: { 'service.name': 'voice-under-test' },
    });
    // Sent as OTLP/HTTP protobuf, and never with the URL, whose query can carry numbers and emails.
    expect(receiver.contentTypes).toContain('application/x-protobuf');
    expect(JSON.stringify(span)).not.toContain('limit=5');
  });

  it('marks a request that failed on the server as an error, and names an unmatched one by its method alone', async () => {
    const traceId = randomHex(16);
    const res = await api.app.inject({ method: 'GET', url: '/api/no-such-thing', headers: { traceparent: traceParent(traceId, randomHex(8)) } });
    expect(res.statusCode).toBe(404);
    const span = (await exported()).find((s) => s.traceId === traceId);
    expect(span?.name).toBe('GET');
    expect(span?.attributes['http.response.status_code']).toBe(404);
    expect(span?.attributes['http.route']).toBeUndefined();
  });

  it('follows a call in one trace from the request that created it through its turns, its tool call and its record, without what was said', async () => {
    const tool = await api.call(acme, 'POST', '/api/tools', {
      name: 'lookup_order',
      description: 'Looks an order up',
      type: 'http',
      parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
      http: { method: 'GET', url: `${shopUrl}/orders/{{args.order_id}}`, timeout_ms: 2_000 },
    });
    expect(tool.status).toBe(201);
    const assistant = await api.call(acme, 'POST', '/api/assistants', localSettings(llm.url, { name: 'Orders', assigned_tools: [tool.body.data.id] }));
    expect(assistant.status).toBe(201);

    const traceId = randomHex(16);
    const created = await api.app.inject({
      method: 'POST',
      url: '/api/web-calls/browser',
      headers: { authorization: `Bearer ${acme.key}`, traceparent: traceParent(traceId, randomHex(8)) },
      payload: { assistant_id: assistant.body.id },
    });
    expect(created.statusCode).toBe(201);
    const callSid = created.json().data.call_sid as string;
    const row = await api.db.prisma.call.findFirstOrThrow({ where: { callSid } });
    // The worker takes the call up from its row, as a local runner or a LiveKit job does.
    const run = await runTimeline(api.db.prisma, row.id, [{ atMs: 1_000, text: CALLER_WORDS }], {
      hangupWhen: afterReply(1),
      secrets,
      allowPrivateToolTargets: true,
    });
    expect(run.result.status).toBe('completed');

    const spans = (await exported()).filter((s) => s.traceId === traceId);
    const byName = (name: string) => spans.filter((s) => s.name === name);
    const [request] = byName('POST /api/web-calls/browser');
    const [call] = byName('call');
    expect(request).toBeDefined();
    // The call's span continues the request's trace, named by its id and transport.
    expect(call).toMatchObject({
      parentSpanId: request!.spanId,
      attributes: { 'call.sid': callSid, 'call.transport': 'browser', 'call.direction': 'inbound' },
    });
    // The framework's session, and its turns below it, are in the call's trace.
    const [session] = byName('agent_session');
    expect(session?.parentSpanId).toBe(call!.spanId);
    expect(spans.filter((s) => s.parentSpanId === session!.spanId).length).toBeGreaterThan(0);
    // Ours: the tool call by name with how it went, and the record written with its recording and analysis.
    expect(byName('tool_call')[0]?.attributes).toMatchObject({ 'tool.name': 'lookup_order', 'tool.outcome': 'ok' });
    const [finalize] = byName('call.finalize');
    expect(finalize).toMatchObject({ parentSpanId: call!.spanId, attributes: { 'call.status': 'completed' } });
    expect(byName('call.analysis')[0]?.parentSpanId).toBe(finalize!.spanId);
    // Nothing the caller said, no tool argument and no reply is on any span of the trace.
    const text = JSON.stringify(spans);
    expect(text).not.toContain(CALLER_WORDS);
    expect(text).not.toContain(ORDER);
    expect(text).not.toContain(REPLY);
  }, 120_000);
});
