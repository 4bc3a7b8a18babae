import { describe, expect } from 'vitest';
import { apiTest } from '../helpers/fixtures.js';

const malformedTest = apiTest.extend(
  'send',
  { scope: 'file' },
  async ({ api, tenant }) =>
    (payload: string | Buffer, contentType = 'application/json', url = '/api/assistants', method: 'POST' | 'PATCH' = 'POST') =>
      api.app.inject({ method, url, payload, headers: { authorization: `Bearer ${tenant.key}`, 'content-type': contentType } }),
);

// An API of its own, so that "writes nothing" can count every row in its database.
const unstorableTest = apiTest
  .extend('apiOptions', { scope: 'file' }, {})
  // JSON.stringify writes an unpaired surrogate as its escape (`"\ud800"`), exactly as a hostile client would.
  .extend(
    'post',
    { scope: 'file' },
    async ({ api, tenant }) =>
      (url: string, body: unknown, contentType = 'application/json', headers: Record<string, string> = {}) =>
        api.app.inject({
          method: 'POST',
          url,
          payload: typeof body === 'string' ? body : JSON.stringify(body),
          headers: { authorization: `Bearer ${tenant.key}`, 'content-type': contentType, ...headers },
        }),
  );

describe('malformed requests get a clear 4xx, never a 500', () => {
  const it = malformedTest;

  it('answers malformed JSON with 422 json_invalid at the body', async ({ send }) => {
    const res = await send('{"name": "A",');
    expect(res.statusCode).toBe(422);
    const [item] = res.json().detail;
    expect(item.type).toBe('json_invalid');
    expect(item.loc[0]).toBe('body');
    expect(typeof item.msg).toBe('string');
  });

  it('answers an empty JSON body with 422 missing at ["body"]', async ({ send }) => {
    const res = await send('');
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
  });

  it('answers a JSON array where an object belongs with 422 dict_type', async ({ send }) => {
    const res = await send('[1,2]');
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0]).toMatchObject({ loc: ['body'], type: 'dict_type' });
  });

  it('answers a body that is not JSON with 415', async ({ send }) => {
    const res = await send('name=A', 'application/x-www-form-urlencoded');
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ success: false, code: 'unsupported_media_type' });
  });

  it('accepts a JSON content type with a charset parameter', async ({ send }) => {
    const res = await send('{"name":"A"}', 'application/json; charset=utf-8');
    expect(res.statusCode).toBe(201);
  });

  it('answers a body over 1 MiB with 413', async ({ send }) => {
    const res = await send(JSON.stringify({ name: 'A', description: 'x'.repeat(1024 * 1024) }));
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ success: false, code: 'payload_too_large', message: 'Request body is larger than 1 MiB', limit_bytes: 1024 * 1024 });
  });

  it('answers numbers too large for their field with 422, not an overflow', async ({ send }) => {
    const res = await send('{"name":"A","llm_settings":{"max_tokens":99999999999999999999999,"temperature":1e400}}');
    expect(res.statusCode).toBe(422);
    const locs = res.json().detail.map((d: { loc: unknown[] }) => d.loc.join('.'));
    expect(locs).toContain('body.llm_settings.max_tokens');
    expect(locs).toContain('body.llm_settings.temperature');
  });

  it('answers deeply nested JSON with 422', async ({ send }) => {
    const deep = '{"name":"A","custom_settings":' + '{"a":'.repeat(100) + '1' + '}'.repeat(100) + '}';
    const res = await send(deep);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].type).toBe('json_invalid');
  });

  it('answers pathologically deep JSON (100,000 levels) with 422', async ({ send }) => {
    const res = await send('['.repeat(100_000) + ']'.repeat(100_000));
    expect(res.statusCode).toBe(422);
  });

  it('refuses prototype-polluting keys with 422', async ({ send }) => {
    const res = await send('{"name":"A","custom_settings":{"__proto__":{"admin":true}}}');
    expect(res.statusCode).toBe(422);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('answers a non-integer path id with 422 int_parsing at ["path","assistant_id"]', async ({ api, tenant }) => {
    const res = await api.call(tenant, 'GET', '/api/assistants/abc');
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['path', 'assistant_id'], msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing' },
    ]);
  });

  it.for([
    ['0', 'greater_than_equal'],
    ['-5', 'greater_than_equal'],
    ['2147483648', 'less_than_equal'],
    ['1.5', 'int_parsing'],
  ])('answers the path id %s with 422 %s', async ([id, type], { api, tenant }) => {
    const res = await api.call(tenant, 'GET', `/api/assistants/${id}`);
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['path', 'assistant_id'], type });
  });

  it('answers a path id with 400 digits with 422, not 500', async ({ api, tenant }) => {
    const res = await api.call(tenant, 'GET', `/api/assistants/${'9'.repeat(150)}`);
    expect(res.status).toBe(422);
  });

  it.for([
    ['per_page=0', 'per_page', 'greater_than_equal'],
    ['per_page=101', 'per_page', 'less_than_equal'],
    ['per_page=abc', 'per_page', 'int_parsing'],
    ['page=0', 'page', 'greater_than_equal'],
    ['page=1.5', 'page', 'int_parsing'],
  ])('answers the query %s with 422 at ["query","%s"]', async ([query, field, type], { api, tenant }) => {
    const res = await api.call(tenant, 'GET', `/api/assistants?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['query', field], type });
  });

  it('answers unknown body fields with 422 extra_forbidden at their location', async ({ api, tenant }) => {
    const res = await api.call(tenant, 'POST', '/api/assistants', { name: 'A', colour: 'blue', llm_settings: { temprature: 1 } });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(
      expect.arrayContaining([
        { loc: ['body', 'colour'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
        { loc: ['body', 'llm_settings', 'temprature'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
      ]),
    );
  });

  it('ignores unknown query parameters', async ({ api, tenant }) => {
    expect((await api.call(tenant, 'GET', '/api/assistants?colour=blue')).status).toBe(200);
  });

  it('answers an unknown route with a JSON 404', async ({ api, tenant }) => {
    const res = await api.call(tenant, 'GET', '/api/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, message: 'Not found', code: 'not_found' });
  });

  it('answers a method the route does not have with a JSON 404', async ({ api, tenant }) => {
    const res = await api.call(tenant, 'PUT', '/api/assistants', {});
    expect(res.status).toBe(404);
    expect(res.body.success).toBe(false);
  });

  it('answers a path that does not decode with 400 in the error shape', async ({ api, tenant }) => {
    const res = await api.call(tenant, 'GET', '/api/assistants/%ud800');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, code: 'bad_request', message: 'Malformed URL' });
  });

  it('answers a path segment over 200 characters with 414 in the error shape', async ({ api, tenant }) => {
    const res = await api.call(tenant, 'GET', `/api/assistants/${'x'.repeat(201)}`);
    expect(res.status).toBe(414);
    expect(res.body).toMatchObject({ success: false, code: 'uri_too_long' });
  });

  it('changes nothing when a request is rejected', async ({ api, tenant, send }) => {
    const before = await api.db.prisma.assistant.count();
    await api.call(tenant, 'POST', '/api/assistants', { name: 'A', stt_settings: { endpoint_sensitivity: 5 } });
    await send('{"name": "B",');
    expect(await api.db.prisma.assistant.count()).toBe(before);
  });
});

describe('text Postgres cannot store (NUL, unpaired surrogates) is a 422 in every request part, never a 500', () => {
  const it = unstorableTest;
  const NUL = { msg: 'String should not contain NUL characters', type: 'string_pattern_mismatch' };
  const LONE = { msg: 'String should not contain unpaired surrogate characters', type: 'string_pattern_mismatch' };
  const NUL_KEY = { msg: 'Key should not contain NUL characters', type: 'string_pattern_mismatch' };
  const LONE_KEY = { msg: 'Key should not contain unpaired surrogate characters', type: 'string_pattern_mismatch' };

  it('reports every NUL and unpaired surrogate in body values, nested and in arrays, at its loc, and writes nothing', async ({ api, post }) => {
    const res = await post('/api/assistants', {
      name: 'A\u0000',
      llm_settings: { system_prompt: 'Be brief \ud800', stop_sequences: ['ok', 'x\udc00'] },
      custom_settings: { plan: { tier: 'g\u0000old' } },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      { loc: ['body', 'name'], ...NUL },
      { loc: ['body', 'llm_settings', 'system_prompt'], ...LONE },
      { loc: ['body', 'llm_settings', 'stop_sequences', 1], ...LONE },
      { loc: ['body', 'custom_settings', 'plan', 'tier'], ...NUL },
    ]);
    expect(await api.db.prisma.assistant.count()).toBe(0);
  });

  it('accepts a surrogate pair (an emoji) as the text it is', async ({ post }) => {
    const res = await post('/api/assistants', { name: 'Smile \u{1F600}', custom_settings: { mood: '\u{1F600}' } });
    expect(res.statusCode).toBe(201);
    expect(res.json().custom_settings).toEqual({ mood: '\u{1F600}' });
  });

  it('reports a NUL or unpaired surrogate in an object key at the path the key names', async ({ post }) => {
    const res = await post('/api/telephony/calls/initiate', { to_phone_number: '+14155550100', variables: { 'na\u0000me': 'Ada', '\ud800': 'x' } });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      { loc: ['body', 'variables', 'na\u0000me'], ...NUL_KEY },
      { loc: ['body', 'variables', '\ud800'], ...LONE_KEY },
    ]);
  });

  it('reports a NUL in a query value, a repeated value and a parameter name at ["query", ...]', async ({ api, tenant }) => {
    const res = await api.call(tenant, 'GET', '/api/contacts?q=ok&q=a%00b&cf.pl%00an=gold');
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['query', 'q', 1], ...NUL },
      { loc: ['query', 'cf.pl\u0000an'], ...NUL_KEY },
    ]);
  });

  it('reports a NUL in a path parameter at ["path", name]', async ({ api, tenant }) => {
    const res = await api.call(tenant, 'GET', '/api/calls/CA%00x');
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ loc: ['path', 'call_sid'], ...NUL }]);
  });

  it('reports a NUL in the Idempotency-Key header at ["header", "idempotency-key"]', async ({ post }) => {
    const res = await post('/api/telephony/calls/initiate', { to_phone_number: '+14155550100' }, 'application/json', { 'idempotency-key': 'k\u0000' });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([{ loc: ['header', 'idempotency-key'], ...NUL }]);
  });

  it('keeps the contact answer for a NUL exactly as it was', async ({ post }) => {
    const res = await post('/api/contacts', { email: 'nul@example.com', external_id: 'a\u0000' });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([{ loc: ['body', 'external_id'], ...NUL }]);
  });

  it('refuses a JSON import whose rows carry NUL or unpaired surrogates, at the row and field, importing nothing', async ({ api, tenant, post }) => {
    const res = await post('/api/contacts/import', {
      contacts: [{ email: 'fine@example.com' }, { email: 'a@example.com', first_name: 'A\u0000' }, { email: 'b@example.com', custom_fields: { '\udc00': 1 } }],
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      { loc: ['body', 'contacts', 1, 'first_name'], ...NUL },
      { loc: ['body', 'contacts', 2, 'custom_fields', '\udc00'], ...LONE_KEY },
    ]);
    expect(await api.db.prisma.contact.count({ where: { organizationId: tenant.organizationId } })).toBe(0);
  });

  it('refuses a CSV import with a NUL in any cell, at its data line and column, importing nothing', async ({ api, tenant, post }) => {
    const res = await post('/api/contacts/import', 'email,first_name\nfine@example.com,Ada\nb@example.com,B\u0000b\n', 'text/csv');
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([{ loc: ['body', 1, 'first_name'], ...NUL }]);
    expect(await api.db.prisma.contact.count({ where: { organizationId: tenant.organizationId } })).toBe(0);
  });

  it('refuses a CSV import with a NUL in a header name at ["body", "header", name]', async ({ post }) => {
    const res = await post('/api/contacts/import', 'email,first\u0000name\nfine@example.com,Ada\n', 'text/csv');
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([{ loc: ['body', 'header', 'first\u0000name'], ...NUL_KEY }]);
  });

  it('reports at most 100 problems, however many a broken file has', async ({ post }) => {
    const rows = Array.from({ length: 500 }, (_, i) => `u${i}@example.com,\u0000`).join('\n');
    const res = await post('/api/contacts/import', `email,first_name\n${rows}\n`, 'text/csv');
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toHaveLength(100);
  });

  it('answers concurrent deletes of one contact with one 204 and 404s, never a 500', async ({ api, tenant }) => {
    const created = await api.call(tenant, 'POST', '/api/contacts', { email: 'gone@example.com' });
    const results = await Promise.all(Array.from({ length: 4 }, () => api.call(tenant, 'DELETE', `/api/contacts/${created.body.data.id}`)));
    expect(results.map((r) => r.status).sort()).toEqual([204, 404, 404, 404]);
  });
});
