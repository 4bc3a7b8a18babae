import { afterAll, beforeAll, describe, expect } from 'vitest';
import { apiTest } from '../helpers/fixtures.js';
import { startFakeMcpServer, type FakeMcpServer } from '../fakes/mcp-server.js';

// An mcp tool through the API: the server and its credential stored (the credential sealed, shown masked), the
// server's tools listed for the team to choose from (through the outbound-target guard, with the credential), and
// every way the listing can fail answered with what went wrong.

const TOKEN = 'mcp-token-0123456789';
let server: FakeMcpServer;
beforeAll(async () => {
  server = await startFakeMcpServer(TOKEN);
});
afterAll(() => server.close());

const mcpTool = (url: string, extra: Record<string, unknown> = {}) => ({
  name: 'orders',
  description: 'The order desk',
  type: 'mcp',
  mcp: { url, secret_headers: { Authorization: `Bearer ${TOKEN}` }, timeout_ms: 3000, ...extra },
});

const open = apiTest.extend('apiOptions', { scope: 'file' }, { allowPrivateWebhookTargets: true });
const guarded = apiTest.extend('apiOptions', { scope: 'file' }, { allowPrivateWebhookTargets: false });

describe('an mcp tool', () => {
  open('stores its server with the credential sealed and masked, and lists the tools the server offers', async ({ api, tenant }) => {
    const created = await api.call(tenant, 'POST', '/api/tools', mcpTool(server.url, { tools: ['lookup_order'] }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data.mcp).toEqual({ url: server.url, secret_headers: { Authorization: '****6789' }, timeout_ms: 3000, tools: ['lookup_order'] });
    const row = await api.db.prisma.tool.findUniqueOrThrow({ where: { id: created.body.data.id } });
    expect(JSON.stringify(row)).not.toContain(TOKEN);

    const listed = await api.call(tenant, 'GET', `/api/tools/${created.body.data.id}/mcp-tools`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.error).toBeNull();
    expect(listed.body.data.tools).toEqual([
      { name: 'lookup_order', description: 'Finds an order by its id', input_schema: expect.objectContaining({ type: 'object' }), offered: true },
      { name: 'cancel_order', description: 'Cancels an order', input_schema: expect.objectContaining({ type: 'object' }), offered: false },
    ]);
    expect(listed.body.data.tools[0].input_schema.properties.order_id).toMatchObject({ type: 'string' });
  });

  open('answers a server that refuses the credential, or is not there, as a listing with its error', async ({ api, tenant }) => {
    const wrong = await api.call(tenant, 'POST', '/api/tools', {
      ...mcpTool(server.url),
      name: 'wrong_key',
      mcp: { url: server.url, secret_headers: { Authorization: 'Bearer nope-nope-nope' } },
    });
    const refused = await api.call(tenant, 'GET', `/api/tools/${wrong.body.data.id}/mcp-tools`);
    expect(refused.body.data).toMatchObject({ tools: [], error: expect.stringContaining('could not be reached') });
    const gone = await api.call(tenant, 'POST', '/api/tools', { ...mcpTool('http://127.0.0.1:9/mcp'), name: 'gone' });
    const unreachable = await api.call(tenant, 'GET', `/api/tools/${gone.body.data.id}/mcp-tools`);
    expect(unreachable.status).toBe(200);
    expect(unreachable.body.data.error).toMatch(/could not be reached/);
    const http = await api.call(tenant, 'POST', '/api/tools', { name: 'plain', type: 'end_call' });
    expect((await api.call(tenant, 'GET', `/api/tools/${http.body.data.id}/mcp-tools`)).status).toBe(409);
  });

  guarded('refuses a private server address where the service does not allow private targets, and needs its server', async ({ api, tenant }) => {
    const refused = await api.call(tenant, 'POST', '/api/tools', mcpTool(server.url));
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'mcp', 'url'] })]);
    const bare = await api.call(tenant, 'POST', '/api/tools', { name: 'bare', type: 'mcp' });
    expect(bare.status).toBe(422);
    expect(bare.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'mcp'], msg: 'An mcp tool needs its server' })]);
    expect(server.calls).toEqual([]);
  });
});
