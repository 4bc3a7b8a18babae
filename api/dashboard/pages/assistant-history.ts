import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { idParam } from '../../../lib/zod/query.js';
import { diffAssistantVersions, listAssistantVersions, restoreAssistantVersion } from '../../../modules/assistants/index.js';
import { html } from '../html.js';
import { csrfField, dashboardPage, sendPage } from '../layout.js';
import { when } from '../format.js';
import type { DashboardDeps } from '../deps.js';

// An assistant's history in the dashboard: its versions newest first, who saved each and how, what changed from the
// one before (each setting with its old and new value, keys masked), and a button that makes a former version current
// again, as a new version. The same module functions as GET /api/assistants/{id}/versions and its restore.

const session = { auth: 'session' as const };
const Params = z.object({ assistant_id: idParam });
const VersionParams = z.object({ assistant_id: idParam, version: idParam });
const SHOWN = 30;

const VIA: Record<string, string> = { api: 'through the API', dashboard: 'in the dashboard', restore: 'restored', migration: 'as it was when history began' };

const shown = (value: unknown) => (value === null || value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value));

export function registerAssistantHistory(app: FastifyInstance, deps: DashboardDeps): void {
  app.get('/assistants/:assistant_id/history', { config: session, schema: { params: Params } }, async (request, reply) => {
    const { assistant_id } = request.params as z.output<typeof Params>;
    const organizationId = request.signedIn!.organizationId;
    const assistant = await deps.prisma.assistant.findFirst({ where: { id: assistant_id, organizationId }, select: { name: true } });
    const { data: versions } = await listAssistantVersions(deps.prisma, organizationId, assistant_id, 1, SHOWN);
    const users = await deps.prisma.user.findMany({
      where: { id: { in: versions.flatMap((v) => (v.user_id === null ? [] : [v.user_id])) }, organizationId },
      select: { id: true, email: true },
    });
    const diffs = await Promise.all(
      versions.map((v) => (v.number > 1 ? diffAssistantVersions(deps.prisma, organizationId, assistant_id, v.number, undefined, deps.secrets) : null)),
    );
    const rows = versions.map((v, i) => {
      const who = users.find((u) => u.id === v.user_id)?.email ?? (v.user_id === null ? 'unknown' : 'a former member');
      const changes = diffs[i]?.changes ?? [];
      return html`<li class="version"><div class="version-head"><strong>Version ${v.number}</strong>${v.current ? html` <span class="badge">Current</span>` : ''} <span class="muted">${when(v.created_at)} · ${who} · ${VIA[v.via] ?? v.via}${v.restored_from ? html` version ${v.restored_from}` : ''}</span>
${v.current ? '' : html`<form method="post" action="/assistants/${assistant_id}/history/${v.number}/restore" class="inline">${csrfField(request)}<button type="submit" class="secondary" data-confirm="Make version ${v.number} current again? It becomes a new version; nothing is lost.">Restore<span class="visually-hidden"> version ${v.number}</span></button></form>`}</div>
${
  changes.length > 0
    ? html`<details><summary>${changes.length === 1 ? '1 setting changed' : `${changes.length} settings changed`}</summary><table class="diff"><thead><tr><th scope="col">Setting</th><th scope="col">Before</th><th scope="col">After</th></tr></thead><tbody>${changes.map(
        (c) => html`<tr><td><code>${c.path}</code></td><td>${shown(c.before)}</td><td>${shown(c.after)}</td></tr>`,
      )}</tbody></table></details>`
    : html`<p class="muted">${v.number === 1 ? 'The first version.' : 'Nothing changed.'}</p>`
}</li>`;
    });
    const name = assistant?.name ?? 'Assistant';
    const body = html`<p><a href="/assistants/${assistant_id}">← ${name}</a></p>
<p class="muted">Every save is a version. Calls and test runs record the version they ran.</p>
<ol class="versions">${rows}</ol>`;
    return sendPage(reply, dashboardPage(request, `${name}: history`, body));
  });

  app.post('/assistants/:assistant_id/history/:version/restore', { config: session, schema: { params: VersionParams } }, async (request, reply) => {
    const { assistant_id, version } = request.params as z.output<typeof VersionParams>;
    const me = request.signedIn!;
    const restored = await restoreAssistantVersion(deps.prisma, me.organizationId, assistant_id, version, deps.secrets, me.userId);
    deps.assistantCache?.invalidate(assistant_id);
    return reply.redirect(`/assistants/${assistant_id}?restored=${version}&as=${restored.version}`);
  });
}
