import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { ToolTestResult } from '../../modules/tools/schemas.js';
import { apiTestWith } from '../helpers/fixtures.js';

// Trying an HTTP tool against a real server on loopback: what is sent, how values are encoded, what counts as a
// failure, and that no credential comes back.

const SECRET = 'sk_live_tool_secret_5678';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let server: http.Server;
let base: string;
const seen: Seen[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const path = req.url!.split('?')[0]!;
      if (path.startsWith('/orders/'))
        return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'shipped', eta: 'Friday' }));
      if (path === '/echo') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ headers: req.headers, body }));
      if (path === '/broken') return res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error');
      if (path === '/soft-error') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'order not found' }));
      if (path === '/slow') return void setTimeout(() => res.writeHead(200).end('late'), 3_000);
      if (path === '/huge') return res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(200_000));
      if (path === '/redirect') return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const it = apiTestWith({ allowPrivateWebhookTargets: true });
// The tools' server is on loopback: the operator allows private targets here, as for a local deployment.

let named = 0;
async function tool(api: { call: Function }, tenant: unknown, http: Record<string, unknown>, parameters: Record<string, unknown> = {}) {
  const res = await api.call(tenant, 'POST', '/api/tools', {
    name: `try_${named++}`,
    type: 'http',
    parameters: { type: 'object', properties: parameters },
    http,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.id as number;
}

const tryTool = (api: { call: Function }, tenant: unknown, id: number, body?: unknown) => api.call(tenant, 'POST', `/api/tools/${id}/test`, body);

describe('trying an HTTP tool', () => {
  it('fills the path, query and headers from arguments, variables and the contact, each encoded, and sends the credential unseen', async ({ api, tenant }) => {
    const contact = await api.call(tenant, 'POST', '/api/contacts', { email: 'ada@example.com', first_name: 'Ada' });
    const id = await tool(
      api,
      tenant,
      {
        method: 'GET',
        url: `${base}/orders/{{args.order_id}}`,
        query: { email: '{{contact.email}}', ref: '{{var.ref}}' },
        headers: { 'X-Caller': '{{contact.first_name}}' },
        secret_headers: { Authorization: `Bearer ${SECRET}` },
      },
      { order_id: { type: 'string' } },
    );
    seen.length = 0;
    const res = await tryTool(api, tenant, id, { arguments: { order_id: 'A/1 7?' }, variables: { ref: 'x&y=1' }, contact_id: contact.body.data.id });
    expect(res.status).toBe(200);
    const result = ToolTestResult.parse(res.body.data);
    const [path, query] = seen[0]!.url.split('?');
    expect(path).toBe('/orders/A%2F1%207%3F');
    expect(query!.split('&').sort()).toEqual(['email=ada%40example.com', 'ref=x%26y%3D1']);
    expect(seen[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(seen[0]!.headers['x-caller']).toBe('Ada');
    expect(result).toMatchObject({ status: 200, is_error: false, error: null, missing: [], output: '{"status":"shipped","eta":"Friday"}' });
    expect(result.request.headers.Authorization).toBe('[redacted]');
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
  });

  it('keeps the type of a whole-value placeholder in the body, and never reads a value as a template', async ({ api, tenant }) => {
    const id = await tool(
      api,
      tenant,
      { method: 'POST', url: `${base}/echo`, body: { count: '{{args.count}}', note: 'for {{var.name}}', tags: ['{{args.tag}}'] } },
      { count: { type: 'integer' }, tag: { type: 'string' } },
    );
    seen.length = 0;
    const res = await tryTool(api, tenant, id, { arguments: { count: 3, tag: '{{var.name}}' }, variables: { name: 'Ada {{args.count}}' } });
    expect(JSON.parse(seen[0]!.body)).toEqual({ count: 3, note: 'for Ada {{args.count}}', tags: ['{{var.name}}'] });
    expect(res.body.data.is_error).toBe(false);
  });

  it('sends the arguments as the body of a POST without a body template, and reports placeholders with no value', async ({ api, tenant }) => {
    const id = await tool(api, tenant, { method: 'POST', url: `${base}/echo?who={{var.who}}` }, { sku: { type: 'string' } });
    seen.length = 0;
    const res = await tryTool(api, tenant, id, { arguments: { sku: 'B-12' } });
    expect(JSON.parse(seen[0]!.body)).toEqual({ sku: 'B-12' });
    expect(res.body.data.missing).toEqual(['var.who']);
  });

  it('tells the model a non-2xx answer or a JSON answer carrying an error is a failure', async ({ api, tenant }) => {
    const broken = await tryTool(api, tenant, await tool(api, tenant, { method: 'GET', url: `${base}/broken` }));
    expect(broken.body.data).toMatchObject({ status: 500, is_error: true, error: 'HTTP 500' });
    expect(broken.body.data.output).toBe('The request failed: HTTP 500. The answer was: internal error');
    const soft = await tryTool(api, tenant, await tool(api, tenant, { method: 'GET', url: `${base}/soft-error` }));
    expect(soft.body.data).toMatchObject({ status: 200, is_error: true, error: 'order not found' });
  });

  it('abandons a request at the tool timeout', async ({ api, tenant }) => {
    const res = await tryTool(api, tenant, await tool(api, tenant, { method: 'GET', url: `${base}/slow`, timeout_ms: 500 }));
    expect(res.body.data).toMatchObject({ status: null, is_error: true, error: 'timed out after 500 ms' });
    expect(res.body.data.duration_ms).toBeLessThan(2_500);
  });

  it('reads at most 64 KiB of an answer and gives the model at most 4,000 characters', async ({ api, tenant }) => {
    const res = await tryTool(api, tenant, await tool(api, tenant, { method: 'GET', url: `${base}/huge` }));
    expect(res.body.data).toMatchObject({ status: 200, is_error: false, truncated: true });
    expect(res.body.data.response_body).toHaveLength(64 * 1024);
    expect(res.body.data.output).toMatch(/^x{4000} \[cut at 4000 characters\]$/);
  });

  it('does not follow a redirect, which could lead anywhere', async ({ api, tenant }) => {
    const res = await tryTool(api, tenant, await tool(api, tenant, { method: 'GET', url: `${base}/redirect` }));
    expect(res.body.data).toMatchObject({ status: 302, is_error: true, error: 'HTTP 302' });
  });

  it('redacts a credential the answer echoes back', async ({ api, tenant }) => {
    const res = await tryTool(api, tenant, await tool(api, tenant, { method: 'POST', url: `${base}/echo`, secret_headers: { 'X-Api-Key': SECRET } }));
    expect(res.body.data.response_body).toContain('[redacted]');
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
  });

  it('answers 409 for a built-in, 404 for another organisation, and 422 for a contact not of the organisation', async ({ api, tenant }) => {
    const builtIn = await api.call(tenant, 'POST', '/api/tools', { name: `hang_up_${named++}`, type: 'end_call' });
    expect((await tryTool(api, tenant, builtIn.body.data.id)).status).toBe(409);
    const id = await tool(api, tenant, { method: 'GET', url: `${base}/orders/1` });
    const other = await api.tenant();
    expect((await tryTool(api, other, id)).status).toBe(404);
    const theirs = await api.call(other, 'POST', '/api/contacts', { email: 'theirs@example.com' });
    const res = await tryTool(api, tenant, id, { contact_id: theirs.body.data.id });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'contact_id']);
  });
});
