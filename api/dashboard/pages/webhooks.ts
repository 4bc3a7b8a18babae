import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { EVENT_TYPES } from '../../../modules/webhooks/events.js';
import { WebhookEndpointCreate, EndpointParams, DeliveryParams, DEFAULT_DELIVERY_LIMIT } from '../../../modules/webhooks/schemas.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveryAttempts,
  listWebhookEndpoints,
  redeliverWebhook,
  updateWebhookEndpoint,
} from '../../../modules/webhooks/endpoints.js';
import { field, formError, formErrors, parseForm, type FieldErrors } from '../forms.js';
import { html, type Html } from '../html.js';
import { csrfField, dashboardPage, sendPage } from '../layout.js';
import { when } from '../format.js';
import type { DashboardDeps } from '../deps.js';

const session = { auth: 'session' as const };
const KINDS = [...EVENT_TYPES, '*'] as const;
// The organisation's endpoints fit one page: it may have at most 20 (modules/webhooks/endpoints.ts).
const ENDPOINTS_PER_PAGE = 100;

/** A form's repeated field as a list (one checkbox ticked arrives as a string). */
const list = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : value === undefined ? [] : [String(value)]);

export function registerWebhookPages(app: FastifyInstance, deps: DashboardDeps): void {
  const policy = { allowPrivateTargets: deps.allowPrivateWebhookTargets };

  async function listPage(request: FastifyRequest, extra: { errors?: FieldErrors; values?: Record<string, unknown>; created?: { url: string; secret: string } } = {}): Promise<Html> {
    const me = request.signedIn!;
    const { data } = await listWebhookEndpoints(deps.prisma, me.organizationId, 1, ENDPOINTS_PER_PAGE, deps.secrets);
    const chosen = extra.values ? list(extra.values.event_types) : ['call.completed'];
    const errors = extra.errors;
    return html`${extra.created ? html`<div class="secret" role="status"><strong>Signing secret of ${extra.created.url}</strong><code id="new-secret">${extra.created.secret}</code><button type="button" class="secondary" data-copy="new-secret">Copy</button><p class="hint">Keep it now: it verifies our signatures (docs/webhooks.md) and is not shown again.</p></div>` : ''}
<form method="post" action="/webhooks" class="card"><h2>New endpoint</h2>${csrfField(request)}${formError(errors)}
${field({ name: 'url', label: 'URL', value: extra.values?.url as string, errors, required: true, hint: 'where events are POSTed' })}
<fieldset class="kinds"><legend>Events</legend>${KINDS.map((k) => html`<label class="check"><input type="checkbox" name="event_types" value="${k}"${chosen.includes(k) ? html` checked` : ''}> ${k === '*' ? 'every kind, including later ones' : k}</label>`)}</fieldset>
${errors?.event_types ? html`<div class="error">${errors.event_types}</div>` : ''}
${field({ name: 'description', label: 'Description', value: extra.values?.description as string, errors })}
<div class="actions"><button type="submit">Add endpoint</button></div></form>
${data.length === 0
  ? html`<div class="card empty">No webhook endpoints. Add one to hear of calls as they end (<code>call.completed</code>).</div>`
  : html`<div class="table-wrap"><table><thead><tr><th>URL</th><th>Events</th><th>State</th></tr></thead><tbody>${data.map(
      (e) => html`<tr><td><a href="/webhooks/${e.id}">${e.url}</a>${e.description ? html`<br><span class="muted">${e.description}</span>` : ''}</td><td>${e.event_types.join(', ')}</td>
<td>${e.enabled ? html`<span class="badge">enabled</span>` : html`<span class="badge off">disabled</span>${e.disabled_reason ? html`<br><span class="muted">${e.disabled_reason}</span>` : ''}`}</td></tr>`,
    )}</tbody></table></div>`}`;
  }

  app.get('/webhooks', { config: session }, async (request, reply) => sendPage(reply, dashboardPage(request, 'Webhooks', await listPage(request))));

  app.post('/webhooks', { config: session }, async (request, reply) => {
    const values = (request.body ?? {}) as Record<string, unknown>;
    const parsed = parseForm(WebhookEndpointCreate, { url: values.url, event_types: list(values.event_types), ...(values.description ? { description: values.description } : {}) });
    if (!parsed.ok) return sendPage(reply, dashboardPage(request, 'Webhooks', await listPage(request, { errors: parsed.errors, values })), 422);
    try {
      const created = await createWebhookEndpoint(deps.prisma, request.signedIn!.organizationId, parsed.data, policy, deps.secrets);
      return sendPage(reply, dashboardPage(request, 'Webhooks', await listPage(request, { created })), 201);
    } catch (error) {
      return sendPage(reply, dashboardPage(request, 'Webhooks', await listPage(request, { errors: formErrors(error), values })), 422);
    }
  });

  async function endpointPage(request: FastifyRequest, id: number, notice?: string): Promise<Html> {
    const me = request.signedIn!;
    const [endpoint, attempts] = await Promise.all([getWebhookEndpoint(deps.prisma, me.organizationId, id, deps.secrets), listWebhookDeliveryAttempts(deps.prisma, me.organizationId, id, DEFAULT_DELIVERY_LIMIT)]);
    return html`<p><a href="/webhooks">← All endpoints</a></p>${notice ? html`<div class="notice" role="status">${notice}</div>` : ''}
<div class="card"><dl class="facts"><dt>URL</dt><dd>${endpoint.url}</dd><dt>Events</dt><dd>${endpoint.event_types.join(', ')}</dd>
<dt>State</dt><dd>${endpoint.enabled ? 'enabled' : `disabled${endpoint.disabled_reason ? `: ${endpoint.disabled_reason}` : ''}`}</dd><dt>Secret</dt><dd><code>${endpoint.secret_hint}…</code></dd></dl>
<div class="actions"><form method="post" action="/webhooks/${id}/${endpoint.enabled ? 'disable' : 'enable'}" class="inline">${csrfField(request)}<button class="secondary" type="submit">${endpoint.enabled ? 'Disable' : 'Enable'}</button></form>
<form method="post" action="/webhooks/${id}/delete" class="inline">${csrfField(request)}<button class="danger" type="submit" data-confirm="Delete this endpoint and its delivery log?">Delete</button></form></div></div>
<h2>Delivery log</h2>
${attempts.length === 0
  ? html`<div class="card empty">Nothing was sent to this endpoint yet.</div>`
  : html`<div class="table-wrap"><table><thead><tr><th>When</th><th>Event</th><th>Attempt</th><th>Result</th><th><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${attempts.map(
      (a) => html`<tr><td>${when(a.attempted_at)}</td><td>${a.event_type}<br><span class="muted">${a.event_id}</span></td><td>${a.attempt}</td>
<td>${a.succeeded ? html`<span class="badge">${a.response_status ?? 'ok'}</span>` : html`<span class="badge off">${a.response_status ?? 'no answer'}</span> ${a.error ?? ''}`}${a.duration_ms !== null ? html` <span class="muted">${a.duration_ms} ms</span>` : ''}${a.next_retry_at ? html`<br><span class="muted">retry ${when(a.next_retry_at)}</span>` : ''}</td>
<td><form method="post" action="/webhooks/${id}/deliveries/${a.delivery_id}/redeliver" class="inline">${csrfField(request)}<button class="secondary" type="submit">Redeliver</button></form></td></tr>`,
    )}</tbody></table></div>`}`;
  }

  const idOf = (request: FastifyRequest) => (request.params as z.output<typeof EndpointParams>).endpoint_id;
  app.get('/webhooks/:endpoint_id', { config: session, schema: { params: EndpointParams } }, async (request, reply) =>
    sendPage(reply, dashboardPage(request, 'Webhook endpoint', await endpointPage(request, idOf(request)))),
  );
  for (const [action, enabled] of [['enable', true], ['disable', false]] as const) {
    app.post(`/webhooks/:endpoint_id/${action}`, { config: session, schema: { params: EndpointParams } }, async (request, reply) => {
      await updateWebhookEndpoint(deps.prisma, request.signedIn!.organizationId, idOf(request), { enabled }, policy, deps.secrets);
      return sendPage(reply, dashboardPage(request, 'Webhook endpoint', await endpointPage(request, idOf(request), enabled ? 'Enabled: queued deliveries resume.' : 'Disabled: deliveries wait until it is enabled again.')));
    });
  }
  app.post('/webhooks/:endpoint_id/delete', { config: session, schema: { params: EndpointParams } }, async (request, reply) => {
    await deleteWebhookEndpoint(deps.prisma, request.signedIn!.organizationId, idOf(request));
    return reply.redirect('/webhooks');
  });
  app.post('/webhooks/:endpoint_id/deliveries/:delivery_id/redeliver', { config: session, schema: { params: DeliveryParams } }, async (request, reply) => {
    const { endpoint_id, delivery_id } = request.params as z.output<typeof DeliveryParams>;
    await redeliverWebhook(deps.prisma, request.signedIn!.organizationId, endpoint_id, delivery_id);
    return sendPage(reply, dashboardPage(request, 'Webhook endpoint', await endpointPage(request, endpoint_id, 'Queued to be sent again now.')));
  });
}
