import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeHttpTool, type HttpToolConfig } from './http-executor.js';

// The executor's own guards, against a server on loopback: a private target refused unless allowed, values kept out of
// header syntax, and a call cancelled mid-request settled at once.

let server: http.Server;
let base: string;
const headersSeen: http.IncomingHttpHeaders[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    headersSeen.push(req.headers);
    if (req.url === '/hang') return; // never answers
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

const config = (more: Partial<HttpToolConfig> = {}): HttpToolConfig => ({
  method: 'GET',
  url: `${base}/ok`,
  headers: {},
  query: {},
  body: null,
  secretHeaders: {},
  timeoutMs: 5_000,
  ...more,
});
const noValues = { variables: {}, contact: null, args: {} };

describe('an HTTP tool call', () => {
  it('refuses a loopback or private target unless the operator allows them', async () => {
    const refused = await executeHttpTool(config(), noValues, { allowPrivateTargets: false });
    expect(refused).toMatchObject({ status: null, is_error: true });
    expect(refused.error).toBe('target address is not public');
    expect((await executeHttpTool(config(), noValues, { allowPrivateTargets: true })).is_error).toBe(false);
  });

  it('keeps a value with line breaks from adding a header of its own', async () => {
    headersSeen.length = 0;
    await executeHttpTool(
      config({ headers: { 'X-Name': '{{var.name}}' } }),
      { ...noValues, variables: { name: 'Ada\r\nX-Injected: yes' } },
      { allowPrivateTargets: true },
    );
    expect(headersSeen[0]!['x-injected']).toBeUndefined();
    expect(headersSeen[0]!['x-name']).toBe('Ada  X-Injected: yes');
  });

  it('settles at once as cancelled when the call is interrupted mid-request', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const pending = executeHttpTool(config({ url: `${base}/hang` }), noValues, { allowPrivateTargets: true, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const result = await pending;
    expect(result).toMatchObject({ status: null, is_error: true, error: 'cancelled' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
