import type { AddressInfo } from 'node:net';
import { describe, expect } from 'vitest';
import { apiTest as it } from '../helpers/fixtures.js';
import { httpRequest, rawRequest } from '../helpers/raw-http.js';

// Requests broken below the level of any route (a path that does not percent-decode, a request line or headers Node
// cannot parse) are answered in the API's error shape, `{"success": false, "code", "message"}`, never in Fastify's
// or Node's own.

describe('requests malformed below the routes', () => {
  let port: number;
  it.beforeAll(async ({ api }) => {
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    port = (api.app.server.address() as AddressInfo).port;
  });

  it.for(['/api/assistants/%zz', '/api/%', '/api/assistants/%', '/%zz/assistants', '/api/assistants/%e0%a4%a'])(
    'answers the path %s, which does not percent-decode, with 400 bad_request in the error shape, with or without a key',
    async (url, { api, tenant }) => {
      for (const headers of [{}, { authorization: `Bearer ${tenant.key}` }]) {
        const res = await api.app.inject({ method: 'GET', url, headers });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual({ success: false, code: 'bad_request', message: 'Malformed URL' });
      }
      const raw = await rawRequest(port, httpRequest('GET', url));
      expect(raw.status).toBe(400);
      expect(JSON.parse(raw.body)).toMatchObject({ success: false, code: 'bad_request' });
    },
  );

  it('reads a query string with a stray % as text: ignored where unknown, a 422 where it must be a number', async ({ api, tenant }) => {
    expect((await api.call(tenant, 'GET', '/api/assistants?q=%')).status).toBe(200);
    const paged = await api.call(tenant, 'GET', '/api/assistants?per_page=%');
    expect(paged.status).toBe(422);
    expect(paged.body.detail[0]).toMatchObject({ loc: ['query', 'per_page'], type: 'int_parsing' });
    expect((await api.call(null, 'GET', '/api/assistants?q=%')).status).toBe(401);
    const raw = await rawRequest(port, httpRequest('GET', '/api/assistants?per_page=%zz', { Authorization: `Bearer ${tenant.key}` }));
    expect(raw.status).toBe(422);
  });

  it('answers a request Node cannot parse with 400 bad_request in the error shape and closes the connection', async () => {
    for (const request of [
      'GET /api/assistants HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
      'GET /api/assistants HTTP/1.1\r\nHost: x\r\nBad Header Name: 1\r\n\r\n',
      'NOT-A-REQUEST\r\n\r\n',
    ]) {
      const res = await rawRequest(port, request);
      expect(res.status, request).toBe(400);
      expect(JSON.parse(res.body)).toEqual({ success: false, code: 'bad_request', message: 'Malformed HTTP request' });
    }
  });

  it('answers headers over 16 KiB with 431 in the error shape', async () => {
    const res = await rawRequest(port, httpRequest('GET', '/api/assistants', { 'X-Big': 'x'.repeat(20_000) }));
    expect(res.status).toBe(431);
    expect(JSON.parse(res.body)).toMatchObject({ success: false, code: 'headers_too_large' });
  });
});
