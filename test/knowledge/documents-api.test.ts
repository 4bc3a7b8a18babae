import { describe, expect } from 'vitest';
import { DocumentOut } from '../../modules/knowledge/schemas.js';
import { startDocumentProcessing, type DocumentProcessing } from '../../modules/knowledge/processing.js';
import type { Tenant } from '../helpers/api.js';
import { apiTest } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';

const BASE = '/api/documents';

const it = apiTest
  .extend(
    'create',
    { scope: 'file' },
    async ({ api, tenant }) =>
      (body: unknown, who: Tenant = tenant) =>
        api.call(who, 'POST', BASE, body),
  )
  // The API process's loop, as api/server.ts starts it: woken by NOTIFY, polling as a backup.
  .extend('processing', { scope: 'file' }, async ({ api }, { onCleanup }): Promise<DocumentProcessing> => {
    const loop = startDocumentProcessing(api.db.prisma, { changes: api.db.changes, pollIntervalMs: 200 });
    onCleanup(() => loop.stop());
    return loop;
  });

const policy = '# Policy\n\n## Returns\n\nReturn within 30 days.\n\n## Shipping\n\nWe ship worldwide.\n';
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

describe('documents API', () => {
  it('creates a document from text, processes it to ready with its chunks, and answers its Markdown in the envelope', async ({
    api,
    tenant,
    create,
    processing,
  }) => {
    void processing;
    const res = await create({ name: 'Store policy', text: policy });
    expect(res.status).toBe(201);
    const doc = DocumentOut.parse(res.body.data);
    expect(doc).toMatchObject({
      name: 'Store policy',
      source_kind: 'text',
      filename: null,
      media_type: 'text/markdown',
      status: 'pending',
      embedding_model: null,
      size_bytes: Buffer.byteLength(policy),
    });
    expect(doc.sha256).toMatch(/^[0-9a-f]{64}$/);
    const ready = await until(async () => {
      const got = await api.call(tenant, 'GET', `${BASE}/${doc.id}`);
      return got.body.data.status === 'ready' && got.body.data;
    });
    expect(ready).toMatchObject({ chunk_count: 2, embedding_model: 'local/use-lite', failed_stage: null, error: null });
    expect(ready.token_count).toBeGreaterThan(0);
    expect(ready.processed_at).not.toBeNull();
    const chunks = await api.db.prisma.documentChunk.findMany({ where: { documentId: doc.id }, orderBy: { position: 'asc' } });
    expect(chunks.map((c) => c.headingPath)).toEqual([
      ['Policy', 'Returns'],
      ['Policy', 'Shipping'],
    ]);
    const content = await api.call(tenant, 'GET', `${BASE}/${doc.id}/content`);
    expect(content.status).toBe(200);
    expect(content.body).toEqual({ success: true, message: expect.any(String), data: { document_id: doc.id, content: policy } });
  });

  it('creates a document from an uploaded file, converts it to Markdown, and names the existing document when the same file comes again', async ({
    api,
    tenant,
    create,
    processing,
  }) => {
    void processing;
    const file = { filename: 'faq.md', content_base64: b64('\uFEFF# FAQ\n\nOpen 9 to 5.\n') };
    const res = await create(file);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ name: 'faq.md', source_kind: 'upload', filename: 'faq.md', media_type: 'text/markdown', status: 'pending' });
    const id = res.body.data.id;
    await until(async () => (await api.call(tenant, 'GET', `${BASE}/${id}`)).body.data.status === 'ready');
    const content = await api.call(tenant, 'GET', `${BASE}/${id}/content`);
    expect(content.body.data.content).toBe('# FAQ\n\nOpen 9 to 5.\n');
    const again = await create({ ...file, name: 'Another name' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ success: false, code: 'conflict', document_id: id });
    expect(again.body.message).toContain(String(id));
    // Another organisation may hold the same file.
    const other = await api.tenant();
    expect((await create(file, other)).status).toBe(201);
  });

  it('refuses a document over 10 MiB with 413, and empty, unsupported or malformed input with 422 at its loc', async ({ create }) => {
    const big = await create({ filename: 'big.txt', content_base64: Buffer.alloc(10 * 1024 * 1024 + 1, 97).toString('base64') });
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ success: false, code: 'payload_too_large', limit_bytes: 10 * 1024 * 1024 });
    const bigText = await create({ name: 'Big', text: 'a'.repeat(10 * 1024 * 1024 + 1) });
    expect(bigText.status).toBe(413);
    const cases: [unknown, (string | number)[]][] = [
      [{ name: 'Empty', text: '' }, ['body', 'text']],
      [{ name: 'Blank', text: '   \n ' }, ['body', 'text']],
      [{ text: 'No name' }, ['body', 'name']],
      [{ filename: 'x.exe', content_base64: b64('MZ') }, ['body', 'filename']],
      [{ filename: 'x', content_base64: b64('hello') }, ['body', 'filename']],
      [{ filename: 'x.txt', content_base64: b64('hi'), media_type: 'image/png' }, ['body', 'media_type']],
      [{ filename: 'x.txt', content_base64: '!!not base64!!' }, ['body', 'content_base64']],
      [{ filename: 'x.txt', content_base64: '' }, ['body', 'content_base64']],
      [{ name: 'Both', text: 'a', content_base64: b64('a') }, ['body', 'content_base64']],
      [{ name: 'Neither' }, ['body', 'text']],
      [{ name: 'Extra', text: 'a', url: 'https://example.com' }, ['body', 'url']],
    ];
    for (const [body, loc] of cases) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect(res.body.detail[0].loc, JSON.stringify(body).slice(0, 80)).toEqual(loc);
    }
  });

  it("lists with a status filter and pagination, renames, deletes with chunks and assignments; another organisation's document is 404", async ({
    api,
    tenant,
    create,
    processing,
  }) => {
    void processing;
    const a = (await create({ name: 'List A', text: 'Alpha text.' })).body.data;
    const b = (await create({ name: 'List B', text: 'Beta text.' })).body.data;
    await until(async () => (await api.call(tenant, 'GET', `${BASE}/${b.id}`)).body.data.status === 'ready');
    const page = await api.call(tenant, 'GET', `${BASE}?status=ready&per_page=1`);
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(1);
    expect(page.body.pagination.per_page).toBe(1);
    expect(page.body.data.every((d: { status: string }) => d.status === 'ready')).toBe(true);
    expect((await api.call(tenant, 'GET', `${BASE}?status=failed`)).body.data.map((d: { id: number }) => d.id)).not.toContain(a.id);
    expect((await api.call(tenant, 'GET', `${BASE}?status=done`)).status).toBe(422);

    const renamed = await api.call(tenant, 'PATCH', `${BASE}/${a.id}`, { name: 'Renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.name).toBe('Renamed');
    expect((await api.call(tenant, 'PATCH', `${BASE}/${a.id}`, { name: '' })).body.detail[0].loc).toEqual(['body', 'name']);

    const other = await api.tenant();
    for (const [method, url, body] of [
      ['GET', `${BASE}/${a.id}`, undefined],
      ['PATCH', `${BASE}/${a.id}`, { name: 'Stolen' }],
      ['GET', `${BASE}/${a.id}/content`, undefined],
      ['PUT', `${BASE}/${a.id}/content`, { content: 'Overwritten' }],
      ['DELETE', `${BASE}/${a.id}`, undefined],
    ] as const) {
      expect((await api.call(other, method, url, body)).status, `${method} ${url}`).toBe(404);
    }
    expect((await api.call(other, 'GET', BASE)).body.data).toEqual([]);

    const assistant = await api.call(tenant, 'POST', '/api/assistants', { name: 'Knows B', assigned_documents: [b.id] });
    expect(assistant.status).toBe(201);
    expect((await api.call(tenant, 'DELETE', `${BASE}/${b.id}`)).status).toBe(200);
    expect((await api.call(tenant, 'GET', `${BASE}/${b.id}`)).status).toBe(404);
    expect(await api.db.prisma.documentChunk.count({ where: { documentId: b.id } })).toBe(0);
    expect(await api.db.prisma.assistantDocument.count({ where: { documentId: b.id } })).toBe(0);
    const read = (await api.call(tenant, 'GET', `/api/assistants/${(assistant.body.data ?? assistant.body).id}`)).body;
    expect((read.data ?? read).assigned_documents).toEqual([]);
  });

  it('replacing the content stores it and processes the document again, with new chunks', async ({ api, tenant, create, processing }) => {
    void processing;
    const doc = (await create({ name: 'Hours', text: '# Hours\n\nOpen 9 to 5.\n' })).body.data;
    await until(async () => (await api.call(tenant, 'GET', `${BASE}/${doc.id}`)).body.data.status === 'ready');
    const before = await api.db.prisma.documentChunk.findMany({ where: { documentId: doc.id } });
    expect(before.map((c) => c.content)).toEqual(['# Hours\n\nOpen 9 to 5.']);
    const next = '# Hours\n\n## Weekdays\n\nOpen 8 to 6.\n\n## Weekends\n\nClosed.\n';
    const put = await api.call(tenant, 'PUT', `${BASE}/${doc.id}/content`, { content: next });
    expect(put.status).toBe(200);
    expect(put.body.data.status).toBe('pending');
    await until(async () => (await api.call(tenant, 'GET', `${BASE}/${doc.id}`)).body.data.status === 'ready');
    const after = await api.db.prisma.documentChunk.findMany({ where: { documentId: doc.id }, orderBy: { position: 'asc' } });
    expect(after.map((c) => [c.headingPath, c.content])).toEqual([
      [['Hours', 'Weekdays'], '## Weekdays\n\nOpen 8 to 6.'],
      [['Hours', 'Weekends'], '## Weekends\n\nClosed.'],
    ]);
    expect((await api.call(tenant, 'GET', `${BASE}/${doc.id}/content`)).body.data.content).toBe(next);
    expect((await api.call(tenant, 'PUT', `${BASE}/${doc.id}/content`, { content: ' ' })).body.detail[0].loc).toEqual(['body', 'content']);
  });
});

describe('documents API, bodies it does not take', () => {
  it('answers a multipart upload 415 (uploads come as JSON with content_base64), and a body over the route limit 413', async ({ api, tenant }) => {
    const boundary = 'x-boundary';
    const multipart = await api.app.inject({
      method: 'POST',
      url: BASE,
      headers: { authorization: `Bearer ${tenant.key}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`,
    });
    expect(multipart.statusCode).toBe(415);
    expect(multipart.json()).toMatchObject({ success: false, code: 'unsupported_media_type' });
    const huge = await api.app.inject({
      method: 'POST',
      url: BASE,
      headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'Huge', text: 'a'.repeat(16 * 1024 * 1024) }),
    });
    expect(huge.statusCode).toBe(413);
    // Named with this route's limit, not the 1 MiB of most routes.
    expect(huge.json()).toMatchObject({ success: false, code: 'payload_too_large', message: expect.not.stringContaining('1 MiB') });
  });
});

describe('documents API, URL sources inside the network', () => {
  it('refuses a URL source written as a private, loopback or metadata address at create, and stores nothing', async ({ api, tenant, create }) => {
    const before = (await api.call(tenant, 'GET', BASE)).body.pagination.total;
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
      'http://127.0.0.1:8080/help',
      'http://[::1]/',
      'http://2130706433/',
      'http://[::ffff:7f00:1]/',
    ]) {
      const refused = await create({ source_url: url });
      expect(refused.status, url).toBe(422);
      expect(refused.body.detail).toEqual([{ loc: ['body', 'source_url'], msg: expect.stringMatching(/non-public address/), type: 'value_error' }]);
    }
    expect((await api.call(tenant, 'GET', BASE)).body.pagination.total).toBe(before);
  });
});
