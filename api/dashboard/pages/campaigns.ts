import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  addCampaignContacts,
  type CampaignAction,
  CampaignContactsAdd,
  type CampaignOut,
  CampaignParams,
  getCampaign,
  importCampaignContacts,
  listCampaigns,
  transitionCampaign,
} from '../../../modules/campaigns/index.js';
import { parseCsv } from '../../routes/contact-import.js';
import { checkPaths } from '../../routes/campaigns.js';
import { formError, formErrors, validated, type FieldErrors } from '../forms.js';
import { html, type Html } from '../html.js';
import { csrfField, dashboardPage, sendPage } from '../layout.js';
import { when } from '../format.js';
import { EDITABLE_STATES, registerCampaignSettingsPages } from './campaign-settings.js';
import { addContactsForms, idsOfForm } from './campaign-contacts.js';
import { weekOf } from './campaign-form/form-fields.js';
import { describeWeek } from './campaign-form/week-summary.js';
import { assistantName } from '../../../modules/assistants/index.js';
import type { DashboardDeps } from '../deps.js';

const session = { auth: 'session' as const };
const PER_PAGE = 100;
// A running campaign's page refreshes this often, so its progress moves as calls are made.
const LIVE_REFRESH_MS = 5_000;
/** What a person may do to a campaign in each state (the service refuses the rest with 409 anyway). */
const ACTIONS: Record<string, CampaignAction[]> = { draft: ['start', 'cancel'], running: ['pause', 'cancel'], paused: ['resume', 'cancel'] };

function done(c: CampaignOut): number {
  const p = c.progress.contacts;
  return p.total === 0 ? 0 : Math.round(((p.done + p.exhausted + p.skipped) / p.total) * 100);
}

function progressBar(c: CampaignOut): Html {
  return html`<progress max="100" value="${done(c)}" aria-label="Done">${done(c)}%</progress> <span class="muted">${done(c)}% of ${c.progress.contacts.total}</span>`;
}

export function registerCampaignPages(app: FastifyInstance, deps: DashboardDeps): void {
  app.get('/campaigns', { config: session }, async (request, reply) => {
    const { data } = await listCampaigns(deps.prisma, request.signedIn!.organizationId, undefined, 1, PER_PAGE);
    const live = data.some((c) => c.state === 'running');
    const body = html`<div class="actions"><a class="button" href="/campaigns/new">New campaign</a></div><br>
${live ? html`<div data-refresh-ms="${LIVE_REFRESH_MS}" class="hint" role="status">Campaigns are running: this page updates by itself.</div>` : ''}
${
  data.length === 0
    ? html`<div class="card empty">No campaigns. A campaign calls a list of contacts on a schedule, paced, with retries and voicemail handling.</div>`
    : html`<div class="table-wrap"><table><thead><tr><th>Name</th><th>State</th><th>Progress</th><th class="hide-phone">Created</th></tr></thead><tbody>${data.map(
        (c) =>
          html`<tr><td><a href="/campaigns/${c.id}">${c.name}</a></td><td><span class="badge${c.state === 'running' ? '' : ' off'}">${c.state}</span></td><td>${progressBar(c)}</td><td class="hide-phone">${when(c.created_at)}</td></tr>`,
      )}</tbody></table></div>`
}`;
    return sendPage(reply, dashboardPage(request, 'Campaigns', body));
  });

  registerCampaignSettingsPages(app, deps);

  async function campaignPage(request: FastifyRequest, id: number, extra: { notice?: string; errors?: FieldErrors } = {}): Promise<Html> {
    const c = await getCampaign(deps.prisma, request.signedIn!.organizationId, id);
    const p = c.progress;
    const assistant = c.assistant_id ? await assistantName(deps.prisma, request.signedIn!.organizationId, c.assistant_id) : undefined;
    const schedule = c.schedule;
    return dashboardPage(
      request,
      c.name,
      html`<p><a href="/campaigns">← All campaigns</a></p>${extra.notice ? html`<div class="notice" role="status">${extra.notice}</div>` : ''}${formError(extra.errors)}
${c.state === 'running' ? html`<div data-refresh-ms="${LIVE_REFRESH_MS}" class="hint" role="status">Running: this page updates by itself.</div>` : ''}
<div class="card"><dl class="facts"><dt>State</dt><dd><span class="badge">${c.state}</span>${c.state_reason ? ` · ${c.state_reason}` : ''}</dd><dt>Progress</dt><dd>${progressBar(c)}</dd>
<dt>Calling from</dt><dd>${c.from_numbers.join(', ')}</dd><dt>Assistant</dt><dd>${c.assistant_id && assistant !== undefined ? html`<a href="/assistants/${c.assistant_id}">${assistant}</a>` : 'deleted'}</dd>
<dt>Calling hours</dt><dd>${describeWeek(weekOf(schedule.windows), schedule.timezone, schedule.use_contact_timezone)}</dd>
${p.next_window_opens_at ? html`<dt>Next window</dt><dd>${when(p.next_window_opens_at)}</dd>` : ''}${p.estimated_completion_at ? html`<dt>Done by about</dt><dd>${when(p.estimated_completion_at)}</dd>` : ''}
<dt>Circuit breaker</dt><dd>${p.circuit_breaker.state} (${p.circuit_breaker.recent_failures} of ${p.circuit_breaker.recent_attempts} recent attempts failed)</dd></dl>
<div class="actions">${EDITABLE_STATES.includes(c.state) ? html`<a class="button secondary" href="/campaigns/${c.id}/edit">Edit settings</a>` : ''}${(
        ACTIONS[c.state] ?? []
      ).map(
        (a) =>
          html`<form method="post" action="/campaigns/${c.id}/${a}" class="inline">${csrfField(request)}<button class="${a === 'cancel' ? 'danger' : a === 'pause' ? 'secondary' : ''}" type="submit"${a === 'cancel' ? html` data-confirm="Cancel this campaign? It cannot be started again."` : ''}>${a[0]!.toUpperCase()}${a.slice(1)}</button></form>`,
      )}</div></div>
<div class="charts"><div class="card"><h2>Contacts</h2><dl class="facts">${Object.entries(p.contacts).map(([k, v]) => html`<dt>${k.replace(/_/g, ' ')}</dt><dd>${v}</dd>`)}</dl></div>
<div class="card"><h2>Outcomes of ${p.attempts} attempts</h2><dl class="facts">${Object.entries(p.outcomes).map(([k, v]) => html`<dt>${k.replace(/_/g, ' ')}</dt><dd>${v}</dd>`)}</dl>
<p><a href="/calls?campaign_id=${c.id}">Its calls</a></p></div></div>
${c.state === 'draft' || c.state === 'paused' ? addContactsForms(request, c.id, extra.errors) : ''}`,
    );
  }

  const idOf = (request: FastifyRequest) => (request.params as z.output<typeof CampaignParams>).campaign_id;
  // `saved` is where the settings form comes back to after the API took them.
  const PageQuery = z.object({ saved: z.literal('1').optional() });
  app.get('/campaigns/:campaign_id', { config: session, schema: { params: CampaignParams, querystring: PageQuery } }, async (request, reply) => {
    const { saved } = request.query as z.output<typeof PageQuery>;
    return sendPage(reply, await campaignPage(request, idOf(request), saved ? { notice: 'Settings saved.' } : {}));
  });

  // The API's add-by-ids: the ids as typed, so an id that is not one is refused at its place in the list.
  app.post('/campaigns/:campaign_id/contacts/ids', { config: session, schema: { params: CampaignParams } }, async (request, reply) => {
    const id = idOf(request);
    try {
      const body = validated(CampaignContactsAdd, { contact_ids: idsOfForm((request.body as Record<string, unknown>)?.contact_ids) });
      const r = await addCampaignContacts(deps.prisma, request.signedIn!.organizationId, id, body);
      const missing = r.not_found.length > 0 ? ` No contact has the ids ${r.not_found.join(', ')}.` : '';
      return sendPage(
        reply,
        await campaignPage(request, id, {
          notice: `Added ${r.added} contacts (${r.already_in} already in, ${r.without_phone} without a phone number).${missing}`,
        }),
      );
    } catch (error) {
      return sendPage(reply, await campaignPage(request, id, { errors: formErrors(error) }), 422);
    }
  });

  // The API's campaign CSV import, fed the same parsed file.
  app.post('/campaigns/:campaign_id/contacts', { config: session, schema: { params: CampaignParams } }, async (request, reply) => {
    const id = idOf(request);
    try {
      const report = await importCampaignContacts(
        deps.prisma,
        request.signedIn!.organizationId,
        id,
        parseCsv(String((request.body as Record<string, unknown>)?.csv ?? '')).contacts,
      );
      const notice = `Added ${report.added} contacts (${report.already_in} already in, ${report.without_phone} without a phone number); of ${report.total} rows ${report.invalid} were invalid and ${report.conflict} in conflict.`;
      return sendPage(reply, await campaignPage(request, id, { notice }));
    } catch (error) {
      return sendPage(reply, await campaignPage(request, id, { errors: formErrors(error) }), 422);
    }
  });

  // The API's add-by-filter, with the contacts list's search.
  app.post('/campaigns/:campaign_id/contacts/matching', { config: session, schema: { params: CampaignParams } }, async (request, reply) => {
    const id = idOf(request);
    const q = String((request.body as Record<string, unknown>)?.q ?? '').trim();
    try {
      const result = await addCampaignContacts(
        deps.prisma,
        request.signedIn!.organizationId,
        id,
        validated(CampaignContactsAdd, { filter: { has_phone: true, ...(q ? { q } : {}) } }),
      );
      return sendPage(reply, await campaignPage(request, id, { notice: `Added ${result.added} contacts (${result.already_in} already in).` }));
    } catch (error) {
      return sendPage(reply, await campaignPage(request, id, { errors: formErrors(error) }), 422);
    }
  });

  for (const action of ['start', 'pause', 'resume', 'cancel'] as const) {
    // As the API's action routes: starting needs a way to dial its numbers, and wakes the dispatcher.
    app.post(`/campaigns/:campaign_id/${action}`, { config: session, schema: { params: CampaignParams } }, async (request, reply) => {
      const organizationId = request.signedIn!.organizationId;
      const id = idOf(request);
      try {
        if (action === 'start' || action === 'resume') await checkPaths(deps.prisma, organizationId, id, deps.campaigns.unavailable);
        const c = await transitionCampaign(deps.prisma, organizationId, id, action);
        if (action === 'start' || action === 'resume') deps.campaigns.wake();
        return sendPage(reply, await campaignPage(request, id, { notice: `Campaign ${c.state}.` }));
      } catch (error) {
        return sendPage(reply, await campaignPage(request, id, { errors: formErrors(error) }), 409);
      }
    });
  }
}
