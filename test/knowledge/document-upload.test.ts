import { describe, expect } from 'vitest';
import { DocumentOut } from '../../modules/knowledge/schemas.js';
import { startDocumentProcessing, type DocumentProcessing } from '../../modules/knowledge/processing.js';
import { apiTest } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';

// A document file sent as browsers and curl send one: multipart/form-data with a `file` part, through the route's own
// multipart parser, with the same checks as every other source.

const UPLOAD = '/api/documents/upload';

const it = apiTest.extend('processing', { scope: 'file' }, async ({ api }, { onCleanup }): Promise<DocumentProcessing> => {
  const loop = startDocumentProcessing(api.db.prisma, { changes: api.db.changes, pollIntervalMs: 200 });
  onCleanup(() => loop.stop());
  return loop;
});

type Part = { name: string; value: string | Buffer; filename?: string; type?: string };

/** A multipart/form-data body as a browser writes it. */
function multipart(parts: Part[]): { payload: Buffer; contentType: string } {
  const boundary = '----form7MA4YWxkTrZu0gW';
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
    const head = `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${part.type ? `Content-Type: ${part.type}\r\n` : ''}\r\n`;
    chunks.push(Buffer.from(head), Buffer.isBuffer(part.value) ? part.value : Buffer.from(part.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

describe('uploading a document file', () => {
  it('creates the document from the file part, named by its field or file name, and processes it to ready', async ({ api, tenant, processing }) => {
    void processing;
    const body = multipart([
      { name: 'name', value: 'Opening hours' },
      { name: 'file', value: 'day,open,close\nMonday,9:00,17:00\nSaturday,10:00,14:00\n', filename: 'hours.csv', type: 'text/csv' },
    ]);
    const res = await api.app.inject({
      method: 'POST',
      url: UPLOAD,
      headers: { authorization: `Bearer ${tenant.key}`, 'content-type': body.contentType },
      payload: body.payload,
    });
    expect(res.statusCode).toBe(201);
    const doc = DocumentOut.parse(res.json().data);
    expect(doc).toMatchObject({ name: 'Opening hours', source_kind: 'upload', filename: 'hours.csv', media_type: 'text/csv', status: 'pending' });
    const ready = await until(async () => {
      const got = await api.call(tenant, 'GET', `/api/documents/${doc.id}`);
      return got.body.data.status === 'ready' && got.body.data;
    });
    expect(ready.chunk_count).toBeGreaterThan(0);
    const content = await api.call(tenant, 'GET', `/api/documents/${doc.id}/content`);
    expect(content.body.data.content).toContain('| Saturday | 10:00 | 14:00 |');

    // The same file again is the same source.
    const again = await api.app.inject({
      method: 'POST',
      url: UPLOAD,
      headers: { authorization: `Bearer ${tenant.key}`, 'content-type': body.contentType },
      payload: body.payload,
    });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'conflict', document_id: doc.id });
  });

  it('refuses a file over 10 MiB with 413, a body without a file part with 422 at body.file, and JSON with 415, creating nothing', async ({ api, tenant }) => {
    const send = (payload: Buffer | string, contentType: string) =>
      api.app.inject({ method: 'POST', url: UPLOAD, headers: { authorization: `Bearer ${tenant.key}`, 'content-type': contentType }, payload });
    const before = await api.db.prisma.document.count();
    const big = multipart([{ name: 'file', value: Buffer.alloc(10 * 1024 * 1024 + 1, 'a'), filename: 'big.txt', type: 'text/plain' }]);
    const tooBig = await send(big.payload, big.contentType);
    expect(tooBig.statusCode).toBe(413);
    expect(tooBig.json()).toMatchObject({ success: false, code: 'payload_too_large', limit_bytes: 10 * 1024 * 1024 });
    const noFile = multipart([{ name: 'name', value: 'Nothing attached' }]);
    const missing = await send(noFile.payload, noFile.contentType);
    expect(missing.statusCode).toBe(422);
    expect(missing.json().detail).toEqual([{ loc: ['body', 'file'], msg: expect.any(String), type: 'missing' }]);
    const unsupported = multipart([{ name: 'file', value: 'GIF89a', filename: 'logo.gif', type: 'image/gif' }]);
    const refused = await send(unsupported.payload, unsupported.contentType);
    expect(refused.statusCode).toBe(422);
    expect(refused.json().detail[0].loc).toEqual(['body', 'media_type']);
    const json = await send(JSON.stringify({ name: 'x', text: 'y' }), 'application/json');
    expect(json.statusCode).toBe(415);
    const broken = await send('--nope\r\nContent-Disposition: form-data; name="file"\r\n\r\nunfinished', 'multipart/form-data; boundary=nope');
    expect(broken.statusCode).toBeGreaterThanOrEqual(400);
    expect(broken.statusCode).toBeLessThan(500);
    expect(await api.db.prisma.document.count()).toBe(before);
  });
});
