import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiContext, type ApiContext, type Tenant } from '../helpers/api.js';

// The platform as an MCP server, driven by the official SDK's client over Streamable HTTP on 127.0.0.1, as a coding
// agent drives it: it lists what it may do, builds and changes an assistant, queues a test run and reads it, reads the
// resources, and gets the REST API's refusals as tool errors. A key sees its own organisation only, as in the REST API.

let api: ApiContext;
let base: string;
let acme: Tenant;
let globex: Tenant;

beforeAll(async () => {
  api = await createApiContext();
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  acme = await api.tenant('Acme');
  globex = await api.tenant('Globex');
}, 180_000);
afterAll(async () => {
  await api?.close();
});

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: 'coding-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}

type ToolAnswer = { content: { type: string; text: string }[]; structuredContent?: Record<string, any>; isError?: boolean };
const call = (client: Client, name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<ToolAnswer>;

describe('the platform as an MCP server', () => {
  it('offers its tools, with their input schemas and read-only hints, and its resources', async () => {
    const client = await connect(acme.key);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        'list_assistants',
        'create_assistant',
        'update_assistant',
        'create_tool',
        'add_document',
        'start_test_run',
        'get_test_run',
        'get_call',
        'query_analytics',
      ]),
    );
    const getAssistant = tools.find((t) => t.name === 'get_assistant')!;
    expect(getAssistant.inputSchema).toMatchObject({ type: 'object', properties: { assistant_id: { type: 'integer' } }, required: ['assistant_id'] });
    expect(getAssistant.annotations?.readOnlyHint).toBe(true);
    expect(tools.find((t) => t.name === 'create_assistant')!.annotations?.readOnlyHint).toBe(false);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain('voice-platform://openapi.json');
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(
      expect.arrayContaining(['voice-platform://assistants/{assistant_id}', 'voice-platform://calls/{call_sid}', 'voice-platform://test-runs/{test_run_id}']),
    );
    await client.close();
  });

  it('builds an assistant, changes it, queues a test run and reads it back, all stored for the key’s organisation', async () => {
    const client = await connect(acme.key);
    const created = await call(client, 'create_assistant', { settings: { name: 'Built by an agent', llm_settings: { welcome_message: 'Hi there.' } } });
    expect(created.isError).toBeUndefined();
    const id = created.structuredContent!.id as number;
    const row = await api.db.prisma.assistant.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ name: 'Built by an agent', organizationId: acme.organizationId });

    const changed = await call(client, 'update_assistant', { assistant_id: id, changes: { llm_settings: { temperature: 0.2 } } });
    expect(changed.structuredContent).toMatchObject({ id, llm_settings: { welcome_message: 'Hi there.', temperature: 0.2 } });

    const read = await client.readResource({ uri: `voice-platform://assistants/${id}` });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id, name: 'Built by an agent' });

    const queued = await call(client, 'start_test_run', { assistant_id: id, test: { script: ['Hello', 'What are your hours?'] } });
    expect(queued.isError, queued.content[0]!.text).toBeUndefined();
    const runId = queued.structuredContent!.data.id as number;
    const run = await call(client, 'get_test_run', { test_run_id: runId });
    expect(run.structuredContent).toMatchObject({ data: { id: runId, assistant_id: id, status: expect.any(String) } });
    const listed = await call(client, 'list_assistants', { per_page: 100 });
    expect((listed.structuredContent!.data as { id: number }[]).map((a) => a.id)).toContain(id);

    // The loop an agent runs: change the draft, test it, publish it; live calls never see the draft before.
    const drafted = await call(client, 'save_draft', { assistant_id: id, changes: { llm_settings: { temperature: 0.7 } } });
    expect(drafted.structuredContent).toMatchObject({ data: { based_on_version: 2, settings: { llm_settings: { temperature: 0.7 } } } });
    expect((await call(client, 'get_assistant', { assistant_id: id })).structuredContent).toMatchObject({ version: 2, llm_settings: { temperature: 0.2 } });
    expect((await call(client, 'publish_draft', { assistant_id: id })).structuredContent).toMatchObject({ version: 3, llm_settings: { temperature: 0.7 } });
    const versions = await call(client, 'list_versions', { assistant_id: id });
    expect((versions.structuredContent!.data as { number: number }[]).map((v) => v.number)).toEqual([3, 2, 1]);
    expect((await call(client, 'restore_version', { assistant_id: id, version: 1 })).structuredContent).toMatchObject({
      version: 4,
      llm_settings: { temperature: 0.5 },
    });
    await client.close();
  });

  it('answers a refused request as a tool error carrying the API’s 422 detail, storing nothing', async () => {
    const client = await connect(acme.key);
    const before = await api.db.prisma.assistant.count();
    const refused = await call(client, 'create_assistant', { settings: { name: 'Too hot', llm_settings: { temperature: 3 } } });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toMatch(/^HTTP 422: /);
    expect(refused.structuredContent!.detail[0]).toMatchObject({ loc: ['body', 'llm_settings', 'temperature'] });
    expect(await api.db.prisma.assistant.count()).toBe(before);
    // Arguments that do not fit the tool's schema are refused by the protocol before anything runs.
    const wrong = await call(client, 'get_assistant', { assistant_id: 'seven' });
    expect(wrong.isError).toBe(true);
    await client.close();
  });

  it("lets one organisation's key neither read nor change another's assistant, by tool or by resource", async () => {
    const mine = await connect(acme.key);
    const { structuredContent } = await call(mine, 'create_assistant', { settings: { name: 'Acme only' } });
    const id = structuredContent!.id as number;
    const theirs = await connect(globex.key);
    const read = await call(theirs, 'get_assistant', { assistant_id: id });
    expect(read).toMatchObject({ isError: true });
    expect(read.content[0]!.text).toMatch(/^HTTP 404: /);
    const changed = await call(theirs, 'update_assistant', { assistant_id: id, changes: { name: 'Taken' } });
    expect(changed.isError).toBe(true);
    await expect(theirs.readResource({ uri: `voice-platform://assistants/${id}` })).rejects.toThrow(/404/);
    const listed = await call(theirs, 'list_assistants', {});
    expect((listed.structuredContent!.data as { id: number }[]).map((a) => a.id)).not.toContain(id);
    expect((await api.db.prisma.assistant.findUniqueOrThrow({ where: { id } })).name).toBe('Acme only');
    await mine.close();
    await theirs.close();
  });

  it('refuses a client without a valid key before any MCP message is read', async () => {
    await expect(connect('vak_not_a_key')).rejects.toThrow(/Invalid or revoked API key/);
    const res = await fetch(`${base}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
  });
});

describe("the MCP server under the API's limits", () => {
  let limited: ApiContext;
  let url: string;
  let tenant: Tenant;

  beforeAll(async () => {
    // One request of the organisation in progress at a time, and 3 a second for its key, counted in this process.
    limited = await createApiContext({ rateLimit: { orgPerSecond: 0, keyPerSecond: 3, orgInFlight: 1, store: 'memory' } });
    await limited.app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(limited.app.server.address() as AddressInfo).port}/api/mcp`;
    tenant = await limited.tenant('Limited');
  }, 180_000);
  afterAll(async () => {
    await limited?.close();
  });

  it('counts a tool call once, as its MCP message: one in flight at a time works, past the key’s rate the message gets the API’s 429, and its operation is never counted again', async () => {
    const client = new Client({ name: 'coding-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${tenant.key}` } } }));
    // The MCP message holds no in-flight slot of its own, so its operation gets the organisation's one slot. Each call
    // is one request against the key's rate, so the fourth message within a second is refused; a refusal is held until
    // the next second, where the next call fits again. The operation, counted with its message, is never refused.
    const outcomes: string[] = [];
    for (let i = 0; i < 20 && !(outcomes.includes('ok') && outcomes.includes('message refused')); i++) {
      const answer = await call(client, 'list_assistants', {}).catch((error: Error) => error);
      if (answer instanceof Error) outcomes.push(/rate_limited/.test(answer.message) ? 'message refused' : answer.message);
      else outcomes.push(!answer.isError ? 'ok' : /^HTTP 429: .*rate_limited/.test(answer.content[0]!.text) ? 'operation refused' : answer.content[0]!.text);
    }
    expect(outcomes).toContain('ok');
    expect(outcomes).toContain('message refused');
    expect(outcomes).not.toContain('operation refused');
    expect(outcomes.every((o) => ['ok', 'message refused'].includes(o))).toBe(true);
    await client.close();
  });
});
