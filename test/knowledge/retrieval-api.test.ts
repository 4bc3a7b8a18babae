import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { startDocumentProcessing, type DocumentProcessing } from '../../modules/knowledge/processing.js';
import type { ApiContext, Tenant } from '../helpers/api.js';
import { apiTest } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';

// The knowledge API beyond files and text: documents from a URL served on loopback (fetched, refreshed only when the
// page changed), metadata, reprocessing, and the retrieval debugger with every score and timing.

let page =
  '<html><head><title>Help</title></head><body><main><h1>Help centre</h1><p>Our support line opens at eight in the morning on weekdays.</p></main></body></html>';
let site: http.Server;
let base: string;
beforeAll(async () => {
  site = http.createServer((req, res) => {
    if (req.url === '/help') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => site.close(() => resolve())));

// Loopback is a private address: URL sources on it are allowed here as WEBHOOK_ALLOW_PRIVATE_TARGETS=true allows them.
const it = apiTest
  .extend('apiOptions', { scope: 'file' }, { allowPrivateWebhookTargets: true })
  .extend('processing', { scope: 'file' }, async ({ api }, { onCleanup }) => {
    const processing: DocumentProcessing = startDocumentProcessing(api.db.prisma, { pollIntervalMs: 50, allowPrivateTargets: true });
    onCleanup(() => processing.stop());
    return processing;
  });

/** The document once processing settles it, ready or failed. */
async function settled(api: ApiContext, tenant: Tenant, id: number): Promise<Record<string, unknown>> {
  return until(async () => {
    const doc = await api.call(tenant, 'GET', `/api/documents/${id}`);
    return doc.body.data.status === 'ready' || doc.body.data.status === 'failed' ? (doc.body.data as Record<string, unknown>) : undefined;
  }, 30_000);
}

describe('a document from a URL', () => {
  it('is fetched in the background, converted from HTML, and fetched again at its refresh only to change when the page did', async ({
    api,
    tenant,
    processing,
  }) => {
    void processing;
    const created = await api.call(tenant, 'POST', '/api/documents', {
      source_url: `${base}/help#top`,
      refresh_interval_hours: 24,
      metadata: { team: 'support' },
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      source_kind: 'url',
      source_url: `${base}/help`,
      status: 'pending',
      refresh_interval_hours: 24,
      metadata: { team: 'support' },
      sha256: null,
    });
    const id = created.body.data.id as number;
    const ready = await settled(api, tenant, id);
    expect(ready).toMatchObject({ status: 'ready', fetched_at: expect.any(String), next_refresh_at: expect.any(String) });
    const content = await api.call(tenant, 'GET', `/api/documents/${id}/content`);
    expect(content.body.data.content).toContain('eight in the morning');
    expect(content.body.data.content).toContain(`# Help (${base}/help)`);

    // Due again, unchanged: the same chunks stay.
    const chunksBefore = await api.db.prisma.documentChunk.findMany({ where: { documentId: id }, select: { id: true } });
    await api.db.prisma.document.update({ where: { id }, data: { nextRefreshAt: new Date(Date.now() - 1000) } });
    await until(
      async () =>
        ((await api.db.prisma.document.findUniqueOrThrow({ where: { id } })).nextRefreshAt?.getTime() ?? 0) > Date.now() && (await settled(api, tenant, id)),
    );
    expect(await api.db.prisma.documentChunk.findMany({ where: { documentId: id }, select: { id: true } })).toEqual(chunksBefore);

    // Due again, changed: the new text replaces the old.
    page = page.replace('eight in the morning', 'seven in the morning');
    await api.db.prisma.document.update({ where: { id }, data: { nextRefreshAt: new Date(Date.now() - 1000) } });
    await until(async () => (await api.call(tenant, 'GET', `/api/documents/${id}/content`)).body.data.content.includes('seven in the morning'), 30_000);
    await settled(api, tenant, id);
    const chunks = await api.db.prisma.documentChunk.findMany({ where: { documentId: id } });
    expect(chunks.map((c) => c.content).join()).toContain('seven');
    expect(chunks.map((c) => c.content).join()).not.toContain('eight');

    const again = await api.call(tenant, 'POST', '/api/documents', { source_url: `${base}/help` });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ success: false, code: 'conflict', document_id: id });
  });

  it('that cannot be fetched fails at the fetch stage with a readable error, and is retried on request', async ({ api, tenant, processing }) => {
    void processing;
    const created = await api.call(tenant, 'POST', '/api/documents', { source_url: `${base}/missing` });
    const failed = await settled(api, tenant, created.body.data.id);
    expect(failed).toMatchObject({ status: 'failed', failed_stage: 'fetch' });
    expect(failed.error).toMatch(/404/);
    const retried = await api.call(tenant, 'POST', `/api/documents/${created.body.data.id}/process`);
    expect(retried.status).toBe(202);
    expect(retried.body.data.status).toBe('pending');
  });

  it('refuses crawl settings without a URL, a URL with credentials, and a refresh on a text document, at their loc', async ({ api, tenant }) => {
    const noUrl = await api.call(tenant, 'POST', '/api/documents', { name: 'x', text: 'hello', crawl: { max_pages: 3 } });
    expect(noUrl.status).toBe(422);
    expect(noUrl.body.detail[0].loc).toEqual(['body', 'crawl']);
    const secret = await api.call(tenant, 'POST', '/api/documents', { source_url: 'https://user:pass@example.com/' });
    expect(secret.status).toBe(422);
    expect(secret.body.detail[0].loc).toEqual(['body', 'source_url']);
    const text = await api.call(tenant, 'POST', '/api/documents', { name: 'Note', text: 'A note about refunds.' });
    const refresh = await api.call(tenant, 'PATCH', `/api/documents/${text.body.data.id}`, { refresh_interval_hours: 12 });
    expect(refresh.status).toBe(422);
    expect(refresh.body.detail[0].loc).toEqual(['body', 'refresh_interval_hours']);
    const meta = await api.call(tenant, 'PATCH', `/api/documents/${text.body.data.id}`, { metadata: { lang: 'en' } });
    expect(meta.body.data.metadata).toEqual({ lang: 'en' });
  });
});

describe('attaching a document', () => {
  it('builds the assistant’s own index at once with auto_process, and only on request without it, answering from the old one meanwhile', async ({
    api,
    tenant,
    processing,
  }) => {
    void processing;
    const doc = await api.call(tenant, 'POST', '/api/documents', {
      name: 'Kettle care',
      text: '# Descaling\n\nDescale the kettle every month with white vinegar.',
    });
    await settled(api, tenant, doc.body.data.id);
    const manual = await api.call(tenant, 'POST', '/api/assistants', {
      name: 'Manual',
      rag_settings: { enabled: true, auto_process: false, chunk_size: 300, chunk_overlap: 0 },
      assigned_documents: [doc.body.data.id],
    });
    expect(manual.status).toBe(201);
    expect((await api.call(tenant, 'GET', `/api/documents/${doc.body.data.id}`)).body.data.status).toBe('ready');
    const before = await api.call(tenant, 'POST', '/api/documents/search', { query: 'descale vinegar', assistant_id: manual.body.id });
    expect(before.body.data.hits[0]).toMatchObject({ document_id: doc.body.data.id });
    expect((await api.call(tenant, 'GET', `/api/documents/${doc.body.data.id}`)).body.data.indexes.map((i: { chunking: string }) => i.chunking)).toEqual([
      'recursive:1000:200',
    ]);
    const queued = await api.call(tenant, 'POST', `/api/documents/${doc.body.data.id}/process`);
    expect(queued.status).toBe(202);
    await until(async () => {
      const d = await api.call(tenant, 'GET', `/api/documents/${doc.body.data.id}`);
      return d.body.data.status === 'ready' && d.body.data.indexes.some((i: { chunking: string }) => i.chunking === 'recursive:300:0');
    }, 30_000);

    const auto = await api.call(tenant, 'POST', '/api/assistants', {
      name: 'Auto',
      rag_settings: { enabled: true, chunk_size: 500, chunk_overlap: 50 },
      assigned_documents: [doc.body.data.id],
    });
    expect(auto.status).toBe(201);
    await until(async () => {
      const d = await api.call(tenant, 'GET', `/api/documents/${doc.body.data.id}`);
      return d.body.data.status === 'ready' && d.body.data.indexes.some((i: { chunking: string }) => i.chunking === 'recursive:500:50');
    }, 30_000);
  });
});

describe('the retrieval debugger', () => {
  it("shows each hit's full-text, vector and fused scores and each stage's time, for an assistant or for documents", async ({ api, tenant, processing }) => {
    void processing;
    const doc = await api.call(tenant, 'POST', '/api/documents', {
      name: 'Warranty',
      text: '# Warranty\n\nEvery kettle carries a warranty of 24 months from the day of purchase.',
    });
    const assistant = await api.call(tenant, 'POST', '/api/assistants', {
      name: 'Kettles',
      rag_settings: { enabled: true },
      assigned_documents: [doc.body.data.id],
    });
    await settled(api, tenant, doc.body.data.id);
    const found = await api.call(tenant, 'POST', '/api/documents/search', {
      query: 'how long is the kettle warranty',
      assistant_id: assistant.body.id,
      similarity_threshold: 0,
    });
    expect(found.status).toBe(200);
    expect(found.body.data).toMatchObject({
      embedding_model: 'local/use-lite',
      chunking: 'recursive:1000:200',
      search_limit: 3,
      documents_searched: 1,
      vector_error: null,
    });
    expect(found.body.data.hits[0]).toMatchObject({
      document_id: doc.body.data.id,
      document_name: 'Warranty',
      heading_path: ['Warranty'],
      lexical_rank: 1,
      vector_rank: 1,
    });
    expect(found.body.data.hits[0].fused_score).toBeCloseTo(2 / 61, 4);
    expect(Object.keys(found.body.data.timings_ms).sort()).toEqual(['embed_ms', 'fetch_ms', 'lexical_ms', 'total_ms', 'vector_ms']);
    const byIds = await api.call(tenant, 'POST', '/api/documents/search', { query: '24 months', document_ids: [doc.body.data.id] });
    expect(byIds.body.data.hits[0]).toMatchObject({ document_id: doc.body.data.id, lexical_rank: 1 });
  });

  it('asks for exactly one scope, and answers 404 for an assistant or document of another organisation', async ({ api, tenant }) => {
    const both = await api.call(tenant, 'POST', '/api/documents/search', { query: 'x', assistant_id: 1, document_ids: [1] });
    expect(both.status).toBe(422);
    const neither = await api.call(tenant, 'POST', '/api/documents/search', { query: 'x' });
    expect(neither.status).toBe(422);
    const other = await api.tenant('Elsewhere');
    const theirs = await api.call(other, 'POST', '/api/documents', { name: 'Secret', text: 'Their own words.' });
    const asked = await api.call(tenant, 'POST', '/api/documents/search', { query: 'words', document_ids: [theirs.body.data.id] });
    expect(asked.status).toBe(404);
  });
});
