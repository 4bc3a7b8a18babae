import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import {
  createDocument,
  deleteDocument,
  DOCUMENT_BODY_LIMIT_BYTES,
  DocumentCreate,
  type DocumentOutT,
  DocumentParams,
  getDocument,
  getDocumentContent,
  listDocuments,
  replaceDocumentContent,
  reprocessDocument,
  updateDocument,
} from '../../../modules/knowledge/index.js';
import { field, formError, formErrors, formValues, parseForm, type FieldErrors } from '../forms.js';
import { html, type Html } from '../html.js';
import { csrfField, dashboardPage, sendPage } from '../layout.js';
import { when } from '../format.js';
import type { DashboardDeps } from '../deps.js';

const session = { auth: 'session' as const };
const PER_PAGE = 100;
// While a document is being processed its list refreshes itself this often.
const REFRESH_MS = 3_000;

function status(d: DocumentOutT): Html {
  if (d.status === 'ready') return html`<span class="badge">ready</span>`;
  if (d.status === 'failed') return html`<span class="badge off">failed${d.failed_stage ? ` at ${d.failed_stage}` : ''}</span>`;
  return html`<span class="badge off">${d.status}…</span>`;
}

export function registerDocumentPages(app: FastifyInstance, deps: DashboardDeps): void {
  async function listPage(request: FastifyRequest, extra: { errors?: FieldErrors; values?: Record<string, string> } = {}): Promise<Html> {
    const { data } = await listDocuments(deps.prisma, request.signedIn!.organizationId, { page: 1, per_page: PER_PAGE });
    const busy = data.some((d) => d.status === 'pending' || d.status === 'processing');
    const e = extra.errors;
    const v = extra.values ?? {};
    return html`${busy ? html`<div data-refresh-ms="${REFRESH_MS}" class="hint" role="status">Processing: this list updates by itself.</div>` : ''}
${
  data.length === 0
    ? html`<div class="card empty">No documents yet. Add one below; an assistant with knowledge turned on answers from its documents.</div>`
    : html`<div class="table-wrap"><table><thead><tr><th>Name</th><th>Status</th><th class="hide-phone">Source</th><th class="hide-phone">Chunks</th><th class="hide-phone">Updated</th></tr></thead><tbody>${data.map(
        (d) =>
          html`<tr><td><a href="/documents/${d.id}">${d.name}</a></td><td>${status(d)}</td><td class="hide-phone">${d.source_kind}${d.source_url ? html`<br><span class="muted">${d.source_url}</span>` : ''}</td><td class="hide-phone">${d.chunk_count}</td><td class="hide-phone">${when(d.updated_at)}</td></tr>`,
      )}</tbody></table></div>`
}
<form method="post" action="/documents" class="card"><h2>Add a document</h2>${csrfField(request)}${formError(e)}
${field({ name: 'name', label: 'Name', value: v.name, errors: e, hint: 'required for text; a file’s name otherwise' })}
<label for="doc-file">A file <span class="hint">PDF, Word, HTML, CSV, Markdown or text, at most 10 MiB</span></label><input id="doc-file" type="file" data-base64-into="content_base64" data-filename-into="filename">
<input type="hidden" name="content_base64" id="content_base64"><input type="hidden" name="filename" id="filename">
${field({ name: 'source_url', label: 'Or a web page', value: v.source_url, errors: e, hint: 'fetched and kept up to date' })}
<label for="f-text">Or Markdown text</label><textarea id="f-text" name="text" rows="6"${e?.text ? html` aria-invalid="true"` : ''}>${v.text ?? ''}</textarea>${e?.text ? html`<div class="error">${e.text}</div>` : ''}
${e?.content_base64 ? html`<div class="error">File: ${e.content_base64}</div>` : ''}
<div class="actions"><button type="submit">Add</button></div></form>`;
  }

  app.get('/documents', { config: session }, async (request, reply) => sendPage(reply, dashboardPage(request, 'Knowledge', await listPage(request))));

  app.post('/documents', { config: session, bodyLimit: DOCUMENT_BODY_LIMIT_BYTES }, async (request, reply) => {
    const values = formValues(request.body);
    const parsed = parseForm(DocumentCreate, values);
    if (!parsed.ok) return sendPage(reply, dashboardPage(request, 'Knowledge', await listPage(request, { errors: parsed.errors, values })), 422);
    try {
      const created = await createDocument(deps.prisma, request.signedIn!.organizationId, parsed.data, {
        allowPrivateTargets: deps.allowPrivateWebhookTargets,
      });
      return reply.redirect(`/documents/${created.id}`);
    } catch (error) {
      const { content_base64: _file, ...typed } = values;
      return sendPage(reply, dashboardPage(request, 'Knowledge', await listPage(request, { errors: formErrors(error), values: typed })), 422);
    }
  });

  async function documentPage(request: FastifyRequest, id: number, extra: { notice?: string; errors?: FieldErrors; content?: string } = {}): Promise<Html> {
    const organizationId = request.signedIn!.organizationId;
    const d = await getDocument(deps.prisma, organizationId, id);
    const content = extra.content ?? (d.status === 'ready' || d.chunk_count > 0 ? (await getDocumentContent(deps.prisma, organizationId, id)).content : null);
    return dashboardPage(
      request,
      d.name,
      html`<p><a href="/documents">← All documents</a></p>${extra.notice ? html`<div class="notice" role="status">${extra.notice}</div>` : ''}${formError(extra.errors)}
<div class="card"><dl class="facts"><dt>Status</dt><dd>${status(d)}${d.error ? html` ${d.error}` : ''}</dd><dt>Source</dt><dd>${d.source_kind} · ${d.media_type} · ${d.size_bytes.toLocaleString('en')} bytes</dd>
<dt>Chunks</dt><dd>${d.chunk_count} (${d.token_count.toLocaleString('en')} tokens)</dd>${d.processed_at ? html`<dt>Processed</dt><dd>${when(d.processed_at)}</dd>` : ''}</dl>
<form method="post" action="/documents/${id}/rename" class="row">${csrfField(request)}<div>${field({ name: 'name', label: 'Name', value: d.name, errors: extra.errors })}</div><div class="fit"><button class="secondary" type="submit">Rename</button></div></form>
<div class="actions"><form method="post" action="/documents/${id}/reprocess" class="inline">${csrfField(request)}<button class="secondary" type="submit">Process again</button></form>
<form method="post" action="/documents/${id}/delete" class="inline">${csrfField(request)}<button class="danger" type="submit" data-confirm="Delete this document? Assistants stop using it at once.">Delete</button></form></div></div>
${
  content === null
    ? html`<div class="card empty">The Markdown can be edited once the document is processed.</div>`
    : html`<form method="post" action="/documents/${id}/content" class="card"><h2>Content</h2>${csrfField(request)}
<label for="f-content">Markdown <span class="hint">saving replaces the document and processes it again</span></label>
<textarea id="f-content" name="content" rows="20"${extra.errors?.content ? html` aria-invalid="true"` : ''}>${content}</textarea>
<div class="actions"><button type="submit">Save</button></div></form>`
}`,
    );
  }

  const idOf = (request: FastifyRequest) => (request.params as z.output<typeof DocumentParams>).document_id;
  const show = async (request: FastifyRequest, reply: import('fastify').FastifyReply, extra: Parameters<typeof documentPage>[2] = {}, status = 200) => {
    return sendPage(reply, await documentPage(request, idOf(request), extra), status);
  };
  app.get('/documents/:document_id', { config: session, schema: { params: DocumentParams } }, async (request, reply) => show(request, reply));

  app.post('/documents/:document_id/rename', { config: session, schema: { params: DocumentParams } }, async (request, reply) => {
    try {
      await updateDocument(deps.prisma, request.signedIn!.organizationId, idOf(request), { name: formValues(request.body).name ?? '' });
    } catch (error) {
      return show(request, reply, { errors: formErrors(error) }, 422);
    }
    return show(request, reply, { notice: 'Renamed.' });
  });
  app.post('/documents/:document_id/reprocess', { config: session, schema: { params: DocumentParams } }, async (request, reply) => {
    await reprocessDocument(deps.prisma, request.signedIn!.organizationId, idOf(request));
    return show(request, reply, { notice: 'Queued to be processed again.' });
  });
  app.post('/documents/:document_id/delete', { config: session, schema: { params: DocumentParams } }, async (request, reply) => {
    await deleteDocument(deps.prisma, request.signedIn!.organizationId, idOf(request));
    return reply.redirect('/documents');
  });
  app.post(
    '/documents/:document_id/content',
    { config: session, bodyLimit: DOCUMENT_BODY_LIMIT_BYTES, schema: { params: DocumentParams } },
    async (request, reply) => {
      const content = String((request.body as Record<string, unknown>)?.content ?? '');
      try {
        await replaceDocumentContent(deps.prisma, request.signedIn!.organizationId, idOf(request), content);
      } catch (error) {
        return show(request, reply, { errors: formErrors(error), content }, 422);
      }
      return show(request, reply, { notice: 'Saved: the document is processed again.' });
    },
  );
}
