import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../api/app.js';
import { createApiContext } from '../helpers/api.js';
import { apiTest } from '../helpers/fixtures.js';
import { httpRequest, rawRequest } from '../helpers/raw-http.js';

// Authentication belongs to the route the router matched, so no spelling of a path that reaches a protected handler
// can skip it: percent-encoded letters, encoded slashes, doubled slashes, dot segments, a trailing slash, upper case.

interface Operation {
  method: string;
  path: string;
}

const hex = (c: string) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
const encodeFirstLetter = (segment: string) => segment.replace(/[A-Za-z0-9]/, hex);

/** Other ways of writing `path` (an absolute path whose first segment is `api`) that a client might try. */
function spellings(path: string): string[] {
  const segments = path.split('/').slice(1);
  const out = new Set<string>();
  // One percent-encoded character in each segment in turn, then in every segment, then every letter of every segment.
  segments.forEach((_, i) => out.add('/' + segments.map((s, j) => (i === j ? encodeFirstLetter(s) : s)).join('/')));
  out.add('/' + segments.map(encodeFirstLetter).join('/'));
  out.add('/' + segments.map((s) => s.replace(/[A-Za-z]/g, hex)).join('/'));
  out.add('/' + segments.map((s) => s.replace(/[A-Za-z]/g, (c) => hex(c).toUpperCase())).join('/'));
  // Encoded and doubled slashes.
  for (let i = 1; i < segments.length; i++) {
    out.add('/' + segments.slice(0, i).join('/') + '%2F' + segments.slice(i).join('/'));
    out.add('/' + segments.slice(0, i).join('/') + '%2f' + segments.slice(i).join('/'));
    out.add('/' + segments.slice(0, i).join('/') + '//' + segments.slice(i).join('/'));
  }
  out.add('/' + path);
  out.add(path + '//');
  // Dot segments, plain and encoded.
  out.add(`/api/..${path}`);
  out.add(`/x/..${path}`);
  out.add(`/x/%2e%2e${path}`);
  out.add(`/x/%2E%2E${path}`);
  out.add(`/api/.${path.slice(4)}`);
  out.add(`/api/%2e${path.slice(4)}`);
  out.add(`${path}/.`);
  out.add(`${path}/x/..`);
  // Trailing slash, letter case, a query string.
  out.add(`${path}/`);
  out.add(path.toUpperCase());
  out.add('/API' + path.slice(4));
  out.add(`${path}?`);
  out.add(`${path}?x=%61`);
  out.add(`${path};x`);
  out.delete(path);
  return [...out];
}

/** The operations of the OpenAPI document, with path parameters filled with values their schema accepts. */
function operationsOf(doc: { paths: Record<string, Record<string, { parameters?: { in: string; name: string; schema?: any }[] }>> }): Operation[] {
  const ops: Operation[] = [];
  for (const [template, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
        const schema = op.parameters?.find((p) => p.in === 'path' && p.name === name)?.schema ?? {};
        if (Array.isArray(schema.enum)) return String(schema.enum[0]);
        if (schema.type === 'integer') return '1';
        return 'CA0123456789abcdef';
      });
      ops.push({ method: method.toUpperCase(), path });
    }
  }
  return ops;
}

const withBody = (method: string) => method === 'POST' || method === 'PUT' || method === 'PATCH';

describe('authentication is a property of the matched route', () => {
  const it = apiTest;
  let operations: Operation[];
  let port: number;
  it.beforeAll(async ({ api }) => {
    operations = operationsOf(api.app.swagger() as never);
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    port = (api.app.server.address() as AddressInfo).port;
  });

  it('covers every operation of the OpenAPI document, each refusing a request without a key as written', async ({ api }) => {
    expect(operations.length).toBeGreaterThanOrEqual(40);
    expect(operations).toContainEqual({ method: 'POST', path: '/api/telephony/calls/initiate' });
    expect(operations).toContainEqual({ method: 'POST', path: '/api/web-calls/browser' });
    for (const { method, path } of operations) {
      const res = await api.app.inject({ method: method as 'GET', url: path, ...(withBody(method) ? { payload: {} } : {}) });
      expect(res.statusCode, `${method} ${path}`).toBe(401);
    }
  });

  it('answers 401 or 404, never a handler, a 5xx or a validation answer, to any spelling of any operation without a key', async ({ api }) => {
    const seen = new Map<number, number>();
    for (const { method, path } of operations) {
      for (const url of spellings(path)) {
        const res = await api.app.inject({ method: method as 'GET', url, ...(withBody(method) ? { payload: {} } : {}) });
        seen.set(res.statusCode, (seen.get(res.statusCode) ?? 0) + 1);
        expect([401, 404], `${method} ${url}: ${res.statusCode} ${res.body.slice(0, 120)}`).toContain(res.statusCode);
        expect(res.json().success, `${method} ${url}`).toBe(false);
      }
    }
    // Encoded letters do reach the routes (and are refused there), rather than all missing the router.
    expect(seen.get(401)).toBeGreaterThan(operations.length * 3);
  });

  it('does the same over a real socket, where the path reaches the router exactly as sent', async () => {
    const sample = operations.filter((o) =>
      ['/api/telephony/calls/initiate', '/api/web-calls/browser', '/api/assistants', '/api/contacts/import', '/api/organization/api-keys'].includes(o.path),
    );
    expect(sample.length).toBeGreaterThanOrEqual(5);
    for (const { method, path } of sample) {
      for (const url of spellings(path)) {
        const res = await rawRequest(port, httpRequest(method, url, {}, withBody(method) ? '{}' : undefined));
        expect([401, 404], `${method} ${url}: ${res.status} ${res.body.slice(0, 120)}`).toContain(res.status);
        expect(JSON.parse(res.body).success, `${method} ${url}`).toBe(false);
      }
    }
  });

  it('still serves every spelling to a request with a key (the check is on the route, not a refusal of odd paths)', async ({ api, tenant }) => {
    const res = await api.app.inject({ method: 'GET', url: '/%61pi/%61ssistants', headers: { authorization: `Bearer ${tenant.key}` } });
    expect(res.statusCode).toBe(200);
    const raw = await rawRequest(port, httpRequest('GET', '/ap%69/assistants', { Authorization: `Bearer ${tenant.key}` }));
    expect(raw.status).toBe(200);
  });

  it('keeps the public routes public, however they are spelt', async ({ api }) => {
    for (const url of ['/api/openapi.json', '/%61pi/openapi.json', '/api/docs/', '/healthz', '/call/CA123']) {
      const res = await api.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
    }
  });

  it('refuses two Authorization headers with 400, whichever comes first', async ({ tenant }) => {
    for (const [first, second] of [
      [`Bearer ${tenant.key}`, 'Bearer vak_forged'],
      ['Bearer vak_forged', `Bearer ${tenant.key}`],
      [`Bearer ${tenant.key}`, `Bearer ${tenant.key}`],
    ]) {
      const request = `GET /api/assistants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${first}\r\nauthorization: ${second}\r\nConnection: close\r\n\r\n`;
      const res = await rawRequest(port, request);
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({ success: false, code: 'bad_request' });
      expect(res.headers).toMatch(/www-authenticate: Bearer realm="api", error="invalid_request"/i);
    }
    // One header still works.
    const one = await rawRequest(port, httpRequest('GET', '/api/assistants', { Authorization: `Bearer ${tenant.key}` }));
    expect(one.status).toBe(200);
  });
});

describe('a route that declares no auth mode', () => {
  it('cannot be added: the service refuses to build rather than serve it unauthenticated', async () => {
    const ctx = await createApiContext();
    try {
      const app = await buildApp({ prisma: ctx.db.prisma, logLevel: 'silent' });
      expect(() => app.get('/api/forgotten', async () => ({ ok: true }))).toThrow(/declares no auth mode/);
      expect(() => app.get('/api/declared', { config: { auth: 'api_key' } }, async () => ({ ok: true }))).not.toThrow();
      await app.close();
    } finally {
      await ctx.close();
    }
  });
});
