import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { AppError, ValidationFailed } from '../../../../lib/errors.js';
import { zodIssuesToDetail } from '../../../../lib/zod/detail.js';
import {
  type ChartResult,
  ChartParams,
  ChartQuery,
  ChartWrite,
  createChart,
  deleteChart,
  getChart,
  listCharts,
  replaceChart,
  resolvePeriod,
  runChart,
  runChartQuery,
} from '../../../../modules/analytics/index.js';
import { drawChart } from '../../charts.js';
import type { DashboardDeps } from '../../deps.js';
import type { FieldErrors } from '../../forms.js';
import { html, type Html } from '../../html.js';
import { csrfField, dashboardPage, sendPage } from '../../layout.js';
import { when } from '../../format.js';
import { chartForm } from './chart-form.js';
import { bodyOfValues, type ChartFormValues, valuesOfChart, valuesOfPost } from './form-fields.js';
import { AGGREGATION_WORDS, CHART_TYPE_WORDS, inWords, metricLabel } from './labels.js';
import { type ChartChoices, chartChoices, ownedOf } from './pickers.js';
import { placeDetail, placeRefusal } from './refusals.js';
import { DEFAULTS } from './schema-facts.js';

// The saved charts' pages: the list, a new chart, one chart (its preview over its own period above its form), and
// deletion. Creation is POST /api/analytics/charts and a change PUT /api/analytics/charts/{id}, through the same
// schema and functions; the form (chart-form/) is laid out for people, and what it posts is turned into the API's body,
// so a refusal is shown at its control with everything as typed. The form's Preview runs the query unsaved, and its
// Find searches the contacts, each answering the form again as it was.

const session = { auth: 'session' as const };
const LIST = '/analytics/charts';

type Chart = Awaited<ReturnType<typeof getChart>>;
type Intent = 'save' | 'preview' | 'find';

const intentOf = (posted: unknown): Intent => {
  const raw = (posted as Record<string, unknown> | null)?.intent;
  const value = Array.isArray(raw) ? raw[0] : raw;
  return value === 'preview' || value === 'find' ? value : 'save';
};

function previewCard(result: ChartResult, chartType: string, title: string): Html {
  return html`<section class="card chart-preview" aria-labelledby="preview-title"><h2 id="preview-title">${title}</h2>
<p class="hint">${metricLabel(result.metric)} · ${inWords(result.aggregation, AGGREGATION_WORDS)} · ${inWords(chartType, CHART_TYPE_WORDS).toLowerCase()} · ${when(result.period.from)} to ${when(result.period.to)}</p>
${drawChart({ ...result, chart_type: chartType })}</section>`;
}

export function registerChartPages(app: FastifyInstance, deps: DashboardDeps): void {
  app.get(LIST, { config: session }, async (request, reply) => {
    const { data: charts } = await listCharts(deps.prisma, request.signedIn!.organizationId, 1, 500);
    const body = html`<div class="actions page-actions"><a class="button" href="${LIST}/new">New chart</a><a href="/analytics">See them drawn</a></div>
${
  charts.length === 0
    ? html`<div class="card empty">No saved charts.</div>`
    : html`<div class="table-wrap"><table><thead><tr><th>Name</th><th>Measure</th><th>Drawn as</th></tr></thead><tbody>${charts.map(
        (c) =>
          html`<tr><td><a href="${LIST}/${c.id}">${c.name}</a></td><td>${metricLabel(c.metric)} · ${inWords(c.aggregation, AGGREGATION_WORDS).toLowerCase()}</td><td>${inWords(c.chart_type, CHART_TYPE_WORDS)}</td></tr>`,
      )}</tbody></table></div>`
}`;
    return sendPage(reply, dashboardPage(request, 'Saved charts', body));
  });

  async function page(
    request: FastifyRequest,
    reply: FastifyReply,
    chart: Chart | null,
    values: ChartFormValues,
    o: { errors?: FieldErrors; status?: number; notice?: Html; preview?: Html; choices?: ChartChoices } = {},
  ) {
    const choices = o.choices ?? (await chartChoices(deps, request.signedIn!.organizationId, values));
    const body = html`${o.notice ?? ''}<p><a href="${LIST}">← All charts</a></p>
${o.preview ?? ''}
${chartForm({
  values,
  errors: o.errors ?? {},
  choices,
  action: chart ? `${LIST}/${chart.id}` : LIST,
  submit: chart ? 'Save' : 'Create chart',
  cancel: LIST,
  csrf: csrfField(request),
})}
${chart ? html`<form method="post" action="${LIST}/${chart.id}/delete">${csrfField(request)}<button class="danger" type="submit" data-confirm="Delete this chart?">Delete chart</button></form>` : ''}
<script src="/assets/chart-form.js" defer></script>`;
    return sendPage(reply, dashboardPage(request, chart ? chart.name : 'New chart', body), o.status ?? 200);
  }

  /** A saved chart's page: its preview over its own period, or, when it cannot run, why at the controls. */
  async function show(request: FastifyRequest, reply: FastifyReply, chart: Chart, notice?: Html) {
    const values = valuesOfChart(chart);
    try {
      const result = await runChart(deps.prisma, request.signedIn!.organizationId, chart.id);
      return page(request, reply, chart, values, { notice, preview: previewCard(result, chart.chart_type, 'As saved') });
    } catch (error) {
      if (!(error instanceof ValidationFailed)) throw error;
      const built = bodyOfValues(values, { assistants: new Set(), campaigns: new Set(), contacts: new Set() });
      return page(request, reply, chart, values, { notice, errors: placeDetail(error.detail, values, built) });
    }
  }

  /** A post of the form: a search, a preview, or a save; a refusal answers the form with everything as typed. */
  async function submit(request: FastifyRequest, reply: FastifyReply, chart: Chart | null) {
    const organizationId = request.signedIn!.organizationId;
    const values = valuesOfPost(request.body);
    const intent = intentOf(request.body);
    if (intent === 'find') return page(request, reply, chart, values);
    const choices = await chartChoices(deps, organizationId, values);
    const built = bodyOfValues(values, ownedOf(choices));
    const parsed = ChartWrite.safeParse(built.body);
    let errors: FieldErrors = {
      ...(parsed.success ? {} : placeDetail(zodIssuesToDetail(parsed.error.issues, 'body', built.body), values, built)),
      ...built.problems,
    };
    if (parsed.success && Object.keys(errors).length === 0) {
      // A range that ends before it starts is the query's to refuse, when the chart runs: said here, before it is saved.
      try {
        resolvePeriod(parsed.data.period, parsed.data.timezone, new Date(), ['body', 'period', 'to']);
      } catch (error) {
        if (!(error instanceof ValidationFailed)) throw error;
        errors = placeDetail(error.detail, values, built);
      }
    }
    if (!parsed.success || Object.keys(errors).length > 0) return page(request, reply, chart, values, { errors, status: 422, choices });

    if (intent === 'preview') {
      const { name, chart_type: chartType, ...query } = parsed.data;
      try {
        const result = await runChartQuery(deps.prisma, organizationId, ChartQuery.parse(query), { name });
        return page(request, reply, chart, values, { preview: previewCard(result, chartType, 'Preview, not saved yet'), choices });
      } catch (error) {
        const refusal = placeRefusal(error, values, built);
        return page(request, reply, chart, values, { errors: refusal.errors, status: refusal.status, choices });
      }
    }
    try {
      const saved = chart
        ? await replaceChart(deps.prisma, organizationId, chart.id, parsed.data)
        : await createChart(deps.prisma, organizationId, parsed.data);
      return reply.redirect(chart ? `${LIST}/${saved.id}?saved=1` : `${LIST}/${saved.id}`);
    } catch (error) {
      if (error instanceof AppError && error.kind === 'not_found') throw error;
      const refusal = placeRefusal(error, values, built);
      return page(request, reply, chart, values, { errors: refusal.errors, status: refusal.status, choices });
    }
  }

  const idOf = (request: FastifyRequest) => (request.params as z.output<typeof ChartParams>).chart_id;

  app.get(`${LIST}/new`, { config: session }, async (request, reply) => page(request, reply, null, valuesOfChart({ ...DEFAULTS, name: '' })));
  app.post(LIST, { config: session }, async (request, reply) => submit(request, reply, null));

  app.get(`${LIST}/:chart_id`, { config: session, schema: { params: ChartParams } }, async (request, reply) => {
    const chart = await getChart(deps.prisma, request.signedIn!.organizationId, idOf(request));
    const saved = (request.query as { saved?: unknown }).saved !== undefined;
    return show(request, reply, chart, saved ? html`<div class="notice" role="status">Saved.</div>` : undefined);
  });
  // Read first: another organisation's chart is 404 before anything is said about the form.
  app.post(`${LIST}/:chart_id`, { config: session, schema: { params: ChartParams } }, async (request, reply) =>
    submit(request, reply, await getChart(deps.prisma, request.signedIn!.organizationId, idOf(request))),
  );
  app.post(`${LIST}/:chart_id/delete`, { config: session, schema: { params: ChartParams } }, async (request, reply) => {
    await deleteChart(deps.prisma, request.signedIn!.organizationId, idOf(request));
    return reply.redirect(LIST);
  });
}
