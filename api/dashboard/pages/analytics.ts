import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ChartParams, exportChart, listCharts, PERIOD_PRESETS, runChart, timezone } from '../../../modules/analytics/index.js';
import { registerChartPages } from './chart-form/chart-pages.js';
import { drawChart } from '../charts.js';
import { html } from '../html.js';
import { dashboardPage, sendPage } from '../layout.js';
import { when } from '../format.js';
import type { DashboardDeps } from '../deps.js';

const session = { auth: 'session' as const };
/** Empty: each chart over its own saved period. */
const Query = z.object({ period: z.enum(PERIOD_PRESETS).or(z.literal('')).optional(), timezone: timezone.or(z.literal('')).optional() });
// A page draws this many charts; an organisation with more pages through them.
const PER_PAGE = 24;

export function registerAnalyticsPages(app: FastifyInstance, deps: DashboardDeps): void {
  // The saved charts themselves, made and changed through the API's own schema and functions (chart-form/).
  registerChartPages(app, deps);

  app.get('/analytics', { config: session, schema: { querystring: Query } }, async (request, reply) => {
    const me = request.signedIn!;
    const q = request.query as z.output<typeof Query>;
    const override = { ...(q.period ? { period: { preset: q.period } } : {}), ...(q.timezone ? { timezone: q.timezone } : {}) };
    const { data: charts } = await listCharts(deps.prisma, me.organizationId, 1, PER_PAGE);
    const results = await Promise.all(charts.map((c) => runChart(deps.prisma, me.organizationId, c.id, override)));
    const query = new URLSearchParams(Object.entries({ period: q.period ?? '', timezone: q.timezone ?? '' }).filter(([, v]) => v !== '')).toString();
    const body = html`<form method="get" action="/analytics" class="card"><div class="row">
<div><label for="period">Period</label><select id="period" name="period"><option value="">each chart’s own</option>${PERIOD_PRESETS.map((p) => html`<option value="${p}"${p === q.period ? html` selected` : ''}>${p.replace(/_/g, ' ')}</option>`)}</select></div>
<div><label for="timezone">Time zone</label><input id="timezone" name="timezone" type="text" value="${q.timezone ?? ''}" placeholder="each chart’s own, e.g. Europe/Paris"></div>
<div class="fit"><button type="submit">Show</button></div></div>
<p class="hint">The organisation’s saved charts, run over the period chosen here; the saved charts do not change. <a href="/analytics/charts">Make or change charts</a></p></form>
${
  charts.length === 0
    ? html`<div class="card empty">No saved charts. <a href="/analytics/charts/new">Make one</a>.</div>`
    : html`<div class="charts">${results.map(
        (r, i) => html`<section class="card" aria-labelledby="chart-${charts[i]!.id}"><h2 id="chart-${charts[i]!.id}">${charts[i]!.name}</h2>
<p class="hint">${r.metric.replace(/_/g, ' ')} · ${r.aggregation} · ${when(r.period.from)} to ${when(r.period.to)} · <a href="/analytics/charts/${charts[i]!.id}/export${query ? `?${query}` : ''}">CSV</a></p>
${drawChart({ ...r, chart_type: charts[i]!.chart_type })}</section>`,
      )}</div>`
}`;
    return sendPage(reply, dashboardPage(request, 'Analytics', body));
  });

  app.get('/analytics/charts/:chart_id/export', { config: session, schema: { params: ChartParams, querystring: Query } }, async (request, reply) => {
    const { chart_id } = request.params as z.output<typeof ChartParams>;
    const q = request.query as z.output<typeof Query>;
    const override = { ...(q.period ? { period: { preset: q.period } } : {}), ...(q.timezone ? { timezone: q.timezone } : {}) };
    const file = await exportChart(deps.prisma, request.signedIn!.organizationId, chart_id, override, 'csv');
    return reply.type(file.contentType).header('content-disposition', `attachment; filename="${file.fileName}"`).send(file.body);
  });
}
