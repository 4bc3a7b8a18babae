import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createWebhookEndpoint, listWebhookEndpoints, WebhookEndpointCreate } from '../../../modules/webhooks/index.js';
import { formError, formErrors, parseForm, type FieldErrors } from '../forms.js';
import { html, type Html } from '../html.js';
import { csrfField, dashboardPage, sendPage } from '../layout.js';
import { endpointFields, listOfForm, registerWebhookEndpointPages, shownOnce } from './webhook-endpoint.js';
import type { DashboardDeps } from '../deps.js';

const session = { auth: 'session' as const };
// The organisation's endpoints fit one page: it may have at most 20 (modules/webhooks/endpoints.ts).
const ENDPOINTS_PER_PAGE = 100;

export function registerWebhookPages(app: FastifyInstance, deps: DashboardDeps): void {
  const policy = { allowPrivateTargets: deps.allowPrivateWebhookTargets };

  async function listPage(
    request: FastifyRequest,
    extra: { errors?: FieldErrors; values?: Record<string, unknown>; created?: { url: string; secret: string } } = {},
  ): Promise<Html> {
    const me = request.signedIn!;
    const { data } = await listWebhookEndpoints(deps.prisma, me.organizationId, 1, ENDPOINTS_PER_PAGE, deps.secrets);
    const chosen = extra.values ? listOfForm(extra.values.event_types) : ['call.completed'];
    const errors = extra.errors;
    return html`${extra.created ? shownOnce(extra.created) : ''}
<form method="post" action="/webhooks" class="card"><h2>New endpoint</h2>${csrfField(request)}${formError(errors)}
${endpointFields({ url: extra.values?.url, event_types: chosen, description: extra.values?.description }, errors)}
<div class="actions"><button type="submit">Add endpoint</button></div></form>
${
  data.length === 0
    ? html`<div class="card empty">No webhook endpoints. Add one to hear of calls as they end (<code>call.completed</code>).</div>`
    : html`<div class="table-wrap"><table><thead><tr><th>URL</th><th>Events</th><th>State</th></tr></thead><tbody>${data.map(
        (
          e,
        ) => html`<tr><td><a href="/webhooks/${e.id}">${e.url}</a>${e.description ? html`<br><span class="muted">${e.description}</span>` : ''}</td><td>${e.event_types.join(', ')}</td>
<td>${e.enabled ? html`<span class="badge">enabled</span>` : html`<span class="badge off">disabled</span>${e.disabled_reason ? html`<br><span class="muted">${e.disabled_reason}</span>` : ''}`}</td></tr>`,
      )}</tbody></table></div>`
}`;
  }

  app.get('/webhooks', { config: session }, async (request, reply) => sendPage(reply, dashboardPage(request, 'Webhooks', await listPage(request))));

  app.post('/webhooks', { config: session }, async (request, reply) => {
    const values = (request.body ?? {}) as Record<string, unknown>;
    const parsed = parseForm(WebhookEndpointCreate, {
      url: values.url,
      event_types: listOfForm(values.event_types),
      ...(values.description ? { description: values.description } : {}),
    });
    if (!parsed.ok) return sendPage(reply, dashboardPage(request, 'Webhooks', await listPage(request, { errors: parsed.errors, values })), 422);
    try {
      const created = await createWebhookEndpoint(deps.prisma, request.signedIn!.organizationId, parsed.data, policy, deps.secrets);
      return sendPage(reply, dashboardPage(request, 'Webhooks', await listPage(request, { created })), 201);
    } catch (error) {
      return sendPage(reply, dashboardPage(request, 'Webhooks', await listPage(request, { errors: formErrors(error), values })), 422);
    }
  });

  registerWebhookEndpointPages(app, deps);
}
