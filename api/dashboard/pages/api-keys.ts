import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { idParam } from '../../../lib/zod/query.js';
import { ApiKeyCreate, issueApiKey, listKeysWithCreators, requireRole, revokeApiKeyById } from '../../../modules/organizations/index.js';
import { field, formError, formErrors, parseForm, type FieldErrors } from '../forms.js';
import { html, type Html } from '../html.js';
import { csrfField, dashboardPage, sendPage } from '../layout.js';
import { when } from '../format.js';
import type { DashboardDeps } from '../deps.js';

const session = { auth: 'session' as const };

export function registerApiKeyPages(app: FastifyInstance, deps: DashboardDeps): void {
  async function render(
    request: FastifyRequest,
    extra: { created?: { key: string; name: string | null }; errors?: FieldErrors; notice?: string } = {},
  ): Promise<Html> {
    const me = request.signedIn!;
    requireRole(me.role, 'manage_keys');
    const keys = await listKeysWithCreators(deps.prisma, me.organizationId);
    const live = keys.filter((k) => !k.revoked_at);
    const revoked = keys.filter((k) => k.revoked_at);
    const created = extra.created
      ? html`<div class="secret" role="status"><strong>Your new key ${extra.created.name ? html`“${extra.created.name}”` : ''}</strong>
<code id="new-key">${extra.created.key}</code>
<button type="button" class="secondary" data-copy="new-key">Copy</button>
<p class="hint">Keep it now: it is stored only as a hash and will not be shown again. Send it as <code>Authorization: Bearer &lt;key&gt;</code>.</p></div>`
      : '';
    const rows = live.map(
      (
        k,
      ) => html`<tr><td>${k.name ?? html`<span class="muted">unnamed</span>`}</td><td><code>${k.prefix}…</code></td><td>${k.created_by.name ?? k.created_by.email}</td>
<td>${when(k.created_at)}</td><td>${k.last_used_at ? when(k.last_used_at) : html`<span class="muted">never</span>`}</td>
<td><form method="post" action="/api-keys/${k.id}/revoke" class="inline">${csrfField(request)}<button class="danger" type="submit" data-confirm="Revoke this key? Anything using it stops working at once.">Revoke</button></form></td></tr>`,
    );
    return html`${extra.notice ? html`<div class="notice" role="status">${extra.notice}</div>` : ''}${created}
<p>API keys let your systems call the API as your organisation. Each acts with its creator's permissions until revoked or until its creator leaves.</p>
<form method="post" action="/api-keys" class="card">${csrfField(request)}${formError(extra.errors)}
<div class="row"><div>${field({ name: 'name', label: 'New key', hint: 'named after what will use it', errors: extra.errors, required: true })}</div>
<div class="fit"><button type="submit">Create key</button></div></div></form>
${
  live.length === 0
    ? html`<div class="card empty">No API keys yet. Create one above to call the API.</div>`
    : html`<div class="table-wrap"><table><thead><tr><th>Name</th><th>Prefix</th><th>Created by</th><th>Created</th><th>Last used</th><th><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${rows}</tbody></table></div>`
}
${revoked.length > 0 ? html`<h2>Revoked</h2><div class="table-wrap"><table><thead><tr><th>Name</th><th>Prefix</th><th>Revoked</th></tr></thead><tbody>${revoked.map((k) => html`<tr><td>${k.name ?? ''}</td><td><code>${k.prefix}…</code></td><td>${when(k.revoked_at!)}</td></tr>`)}</tbody></table></div>` : ''}`;
  }

  app.get('/api-keys', { config: session }, async (request, reply) => sendPage(reply, dashboardPage(request, 'API keys', await render(request))));

  app.post('/api-keys', { config: session }, async (request, reply) => {
    const parsed = parseForm(ApiKeyCreate, { name: (request.body as Record<string, unknown>)?.name });
    if (!parsed.ok) return sendPage(reply, dashboardPage(request, 'API keys', await render(request, { errors: parsed.errors })), 422);
    try {
      const created = await issueApiKey(deps.prisma, request.signedIn!, parsed.data.name);
      return sendPage(reply, dashboardPage(request, 'API keys', await render(request, { created })), 201);
    } catch (error) {
      return sendPage(reply, dashboardPage(request, 'API keys', await render(request, { errors: formErrors(error) })), 403);
    }
  });

  app.post('/api-keys/:key_id/revoke', { config: session, schema: { params: z.object({ key_id: idParam }) } }, async (request, reply) => {
    await revokeApiKeyById(deps.prisma, request.signedIn!, (request.params as { key_id: number }).key_id);
    request.server.keyCache.clear();
    return sendPage(reply, dashboardPage(request, 'API keys', await render(request, { notice: 'Key revoked: it stopped working on every server.' })));
  });
}
