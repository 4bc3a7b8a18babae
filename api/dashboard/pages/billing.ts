import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ValidationFailed } from '../../../lib/errors.js';
import { BillingQuery, billingSummary } from '../../../modules/organizations/index.js';
import { PERIOD_PRESETS } from '../../../modules/analytics/index.js';
import { errorsOfDetail, field, formValues, parseForm, type FieldErrors } from '../forms.js';
import { html, type Html } from '../html.js';
import { dashboardPage, sendPage } from '../layout.js';
import { when } from '../format.js';
import type { DashboardDeps } from '../deps.js';

// The organisation's cost for a period, as GET /api/billing reports it: a preset, or from and to in the reader's
// chosen time zone. The form is read here rather than by the route's schema so that the API's refusal (a bad date, a
// `to` not after `from`, an unknown zone) is shown at its field instead of as an error page.

const money = (usd: number) => `$${usd.toFixed(usd < 1 && usd > 0 ? 4 : 2)}`;
const Form = z.object({ period: z.string().optional(), from: z.string().optional(), to: z.string().optional(), timezone: z.string().optional() });

type Bill = Awaited<ReturnType<typeof billingSummary>>;

function billOf(bill: Bill): Html {
  const components = Object.entries(bill.by_component) as [string, number][];
  return html`<p class="hint">From ${when(bill.period.from)} to ${when(bill.period.to)}. Costs are what each call's metered usage cost at the vendors' prices when it ended; nothing is charged here (no payment processor).</p>
<div class="card"><h2>${money(bill.total)}</h2><p>${bill.calls} ${bill.calls === 1 ? 'call' : 'calls'} · ${bill.minutes.toFixed(1)} minutes</p>
<dl class="facts">${components.map(([k, v]) => html`<dt>${k === 'llm' ? 'Language model' : k === 'stt' ? 'Speech recognition' : k === 'tts' ? 'Speech synthesis' : 'Telephony'}</dt><dd>${money(v)}</dd>`)}</dl></div>
<h2>By assistant</h2>
${
  bill.by_assistant.length === 0
    ? html`<div class="card empty">No calls with a cost in this period.</div>`
    : html`<div class="table-wrap"><table><thead><tr><th>Assistant</th><th>Minutes</th><th>Cost</th></tr></thead><tbody>${bill.by_assistant.map(
        (a) =>
          html`<tr><td>${a.assistant_id ? html`<a href="/assistants/${a.assistant_id}">${a.name}</a>` : a.name}</td><td>${a.minutes.toFixed(1)}</td><td>${money(a.total)}</td></tr>`,
      )}</tbody></table></div>`
}
<h2>Limits</h2>
<div class="card"><dl class="facts"><dt>Calls at once</dt><dd>${bill.limits.max_concurrent_calls} (${bill.limits.active_calls} under way now)</dd></dl>
<p class="hint">Changed in <a href="/settings">Settings</a> (or with <code>PATCH /api/organization/settings</code>, <code>max_concurrent_calls</code>).</p></div>`;
}

export function registerBillingPages(app: FastifyInstance, deps: DashboardDeps): void {
  app.get('/billing', { config: { auth: 'session' }, schema: { querystring: Form } }, async (request, reply) => {
    // Empty fields are "not given", as the API reads an absent parameter.
    const values = formValues(request.query);
    let errors: FieldErrors = {};
    let bill: Bill | undefined;
    const parsed = parseForm(BillingQuery, values);
    if (!parsed.ok) errors = parsed.errors;
    else {
      try {
        bill = await billingSummary(deps.prisma, request.signedIn!, parsed.data);
      } catch (error) {
        if (!(error instanceof ValidationFailed)) throw error;
        errors = errorsOfDetail(error.detail);
      }
    }
    const preset = values.period ?? 'this_month';
    const body = html`<form method="get" action="/billing" class="card"><div class="row">
<div><label for="period">Period</label><select id="period" name="period">${PERIOD_PRESETS.map((p) => html`<option value="${p}"${p === preset ? html` selected` : ''}>${p.replace(/_/g, ' ')}</option>`)}</select>${errors.period ? html`<div class="error">${errors.period}</div>` : ''}</div>
<div>${field({ name: 'timezone', label: 'Time zone', value: values.timezone ?? 'UTC', errors })}</div></div>
<fieldset><legend>Or from and to</legend><p class="hint">Dates in the time zone above, instead of the period: from its first day to the day after its last.</p><div class="row">
<div>${field({ name: 'from', label: 'From', type: 'date', value: values.from, errors })}</div>
<div>${field({ name: 'to', label: 'To (not included)', type: 'date', value: values.to, errors })}</div>
<div class="fit"><button type="submit">Show</button></div></div></fieldset></form>
${bill ? billOf(bill) : html`<div class="notice bad" role="alert">The period was refused: see the marked fields.</div>`}`;
    return sendPage(reply, dashboardPage(request, 'Billing', body), bill ? 200 : 422);
  });
}
