import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { BillingQuery, billingSummary } from '../../../modules/organizations/billing.js';
import { PERIOD_PRESETS } from '../../../modules/analytics/schemas.js';
import { html } from '../html.js';
import { dashboardPage, sendPage } from '../layout.js';
import { when } from '../format.js';
import type { DashboardDeps } from '../deps.js';

const money = (usd: number) => `$${usd.toFixed(usd < 1 && usd > 0 ? 4 : 2)}`;

export function registerBillingPages(app: FastifyInstance, deps: DashboardDeps): void {
  app.get('/billing', { config: { auth: 'session' }, schema: { querystring: BillingQuery } }, async (request, reply) => {
    const query = request.query as z.output<typeof BillingQuery>;
    const bill = await billingSummary(deps.prisma, request.signedIn!, query);
    const components = Object.entries(bill.by_component) as [string, number][];
    const body = html`<form method="get" action="/billing" class="card"><div class="row">
<div><label for="period">Period</label><select id="period" name="period">${PERIOD_PRESETS.map((p) => html`<option value="${p}"${p === query.period ? html` selected` : ''}>${p.replace(/_/g, ' ')}</option>`)}</select></div>
<div><label for="timezone">Time zone</label><input id="timezone" name="timezone" type="text" value="${query.timezone}"></div>
<div class="fit"><button type="submit">Show</button></div></div>
<p class="hint">From ${when(bill.period.from)} to ${when(bill.period.to)}. Costs are what each call's metered usage cost at the vendors' prices when it ended; nothing is charged here (no payment processor).</p></form>
<div class="card"><h2>${money(bill.total)}</h2><p>${bill.calls} ${bill.calls === 1 ? 'call' : 'calls'} · ${bill.minutes.toFixed(1)} minutes</p>
<dl class="facts">${components.map(([k, v]) => html`<dt>${k === 'llm' ? 'Language model' : k === 'stt' ? 'Speech recognition' : k === 'tts' ? 'Speech synthesis' : 'Telephony'}</dt><dd>${money(v)}</dd>`)}</dl></div>
<h2>By assistant</h2>
${bill.by_assistant.length === 0
  ? html`<div class="card empty">No calls with a cost in this period.</div>`
  : html`<div class="table-wrap"><table><thead><tr><th>Assistant</th><th>Minutes</th><th>Cost</th></tr></thead><tbody>${bill.by_assistant.map(
      (a) => html`<tr><td>${a.assistant_id ? html`<a href="/assistants/${a.assistant_id}">${a.name}</a>` : a.name}</td><td>${a.minutes.toFixed(1)}</td><td>${money(a.total)}</td></tr>`,
    )}</tbody></table></div>`}
<h2>Limits</h2>
<div class="card"><dl class="facts"><dt>Calls at once</dt><dd>${bill.limits.max_concurrent_calls} (${bill.limits.active_calls} under way now)</dd></dl>
<p class="hint">Set with <code>PATCH /api/organization/settings</code> (<code>max_concurrent_calls</code>).</p></div>`;
    return sendPage(reply, dashboardPage(request, 'Billing', body));
  });
}
