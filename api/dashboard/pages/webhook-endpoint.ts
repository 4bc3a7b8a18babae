import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import {
  DEFAULT_DELIVERY_LIMIT,
  deleteWebhookEndpoint,
  DeliveryParams,
  EndpointParams,
  EVENT_TYPES,
  getWebhookEndpoint,
  listWebhookDeliveryAttempts,
  redeliverWebhook,
  RotateSecretBody,
  rotateWebhookSecret,
  updateWebhookEndpoint,
  WebhookEndpointUpdate,
} from '../../../modules/webhooks/index.js';
import { field, formError, formErrors, parseForm, type FieldErrors } from '../forms.js';
import { html, type Html } from '../html.js';
import { csrfField, dashboardPage, sendPage } from '../layout.js';
import { when } from '../format.js';
import type { DashboardDeps } from '../deps.js';

// One webhook endpoint: its settings changed as PATCH /api/organization/webhooks/{id} changes them, its signing secret
// rotated as the API rotates it (the new one shown once), and its delivery log with redelivery.

const session = { auth: 'session' as const };
const KINDS = [...EVENT_TYPES, '*'] as const;

/** A form's repeated field as a list (one checkbox ticked arrives as a string). */
export const listOfForm = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : value === undefined ? [] : [String(value)]);

/** A new signing secret, shown this once with a copy button. */
export function shownOnce(s: { url: string; secret: string }): Html {
  return html`<div class="secret" role="status"><strong>Signing secret of ${s.url}</strong><code id="new-secret">${s.secret}</code><button type="button" class="secondary" data-copy="new-secret">Copy</button><p class="hint">Keep it now: it verifies our signatures (docs/webhooks.md) and is not shown again.</p></div>`;
}

/** URL, event kinds and description, as the create and the change forms both take them. */
export function endpointFields(v: { url?: unknown; event_types: string[]; description?: unknown }, errors: FieldErrors | undefined): Html {
  // A refused kind is reported at its place in the list (`event_types.1`); the list's checkboxes share one message.
  const kindsKey = Object.keys(errors ?? {}).find((k) => k === 'event_types' || k.startsWith('event_types.'));
  return html`${field({ name: 'url', label: 'URL', value: v.url as string, errors, required: true, hint: 'where events are POSTed' })}
<fieldset class="kinds"><legend>Events</legend>${KINDS.map((k) => html`<label class="check"><input type="checkbox" name="event_types" value="${k}"${v.event_types.includes(k) ? html` checked` : ''}> ${k === '*' ? 'every kind, including later ones' : k}</label>`)}</fieldset>
${kindsKey ? html`<div class="error" id="f-event_types-error">${errors![kindsKey]}</div>` : ''}
${field({ name: 'description', label: 'Description', value: v.description as string, errors })}`;
}

interface Extra {
  notice?: string;
  errors?: FieldErrors;
  values?: Record<string, unknown>;
  rotated?: { url: string; secret: string };
}

export function registerWebhookEndpointPages(app: FastifyInstance, deps: DashboardDeps): void {
  const policy = { allowPrivateTargets: deps.allowPrivateWebhookTargets };

  async function endpointPage(request: FastifyRequest, id: number, extra: Extra = {}): Promise<Html> {
    const me = request.signedIn!;
    const [endpoint, attempts] = await Promise.all([
      getWebhookEndpoint(deps.prisma, me.organizationId, id, deps.secrets),
      listWebhookDeliveryAttempts(deps.prisma, me.organizationId, id, DEFAULT_DELIVERY_LIMIT),
    ]);
    const v = extra.values ?? { url: endpoint.url, event_types: endpoint.event_types, description: endpoint.description };
    const errors = extra.errors;
    return dashboardPage(
      request,
      'Webhook endpoint',
      html`<p><a href="/webhooks">← All endpoints</a></p>${extra.notice ? html`<div class="notice" role="status">${extra.notice}</div>` : ''}${extra.rotated ? shownOnce(extra.rotated) : ''}
<div class="card"><dl class="facts"><dt>URL</dt><dd>${endpoint.url}</dd><dt>Events</dt><dd>${endpoint.event_types.join(', ')}</dd>
<dt>State</dt><dd>${endpoint.enabled ? 'enabled' : `disabled${endpoint.disabled_reason ? `: ${endpoint.disabled_reason}` : ''}`}</dd><dt>Secret</dt><dd><code>${endpoint.secret_hint}</code>${endpoint.previous_secret_expires_at ? html` <span class="muted">the previous one signs too until ${when(endpoint.previous_secret_expires_at)}</span>` : ''}</dd></dl>
<div class="actions"><form method="post" action="/webhooks/${id}/${endpoint.enabled ? 'disable' : 'enable'}" class="inline">${csrfField(request)}<button class="secondary" type="submit">${endpoint.enabled ? 'Disable' : 'Enable'}</button></form>
<form method="post" action="/webhooks/${id}/delete" class="inline">${csrfField(request)}<button class="danger" type="submit" data-confirm="Delete this endpoint and its delivery log?">Delete</button></form></div></div>
<form method="post" action="/webhooks/${id}" class="card"><h2>Settings</h2>${csrfField(request)}${formError(errors)}
${endpointFields({ url: v.url, event_types: listOfForm(v.event_types), description: v.description }, errors)}
<div class="actions"><button type="submit">Save</button></div></form>
<form method="post" action="/webhooks/${id}/rotate-secret" class="card"><h2>Signing secret</h2>${csrfField(request)}
<p class="hint">A new secret is made and shown once. The current one keeps signing beside it for the overlap, so receivers can switch without refusing a delivery.</p>
<div class="row"><div>${field({ name: 'overlap_seconds', label: 'Overlap in seconds', type: 'number', step: '1', value: (extra.values?.overlap_seconds as string) ?? 86_400, errors, hint: '0 to 604800 (7 days)' })}</div>
<div class="fit"><button class="secondary" type="submit" data-confirm="Make a new signing secret? The current one stops signing after the overlap.">Rotate secret</button></div></div></form>
<h2>Delivery log</h2>
${
  attempts.length === 0
    ? html`<div class="card empty">Nothing was sent to this endpoint yet.</div>`
    : html`<div class="table-wrap"><table><thead><tr><th>When</th><th>Event</th><th>Attempt</th><th>Result</th><th><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${attempts.map(
        (a) => html`<tr><td>${when(a.attempted_at)}</td><td>${a.event_type}<br><span class="muted">${a.event_id}</span></td><td>${a.attempt}</td>
<td>${a.succeeded ? html`<span class="badge">${a.response_status ?? 'ok'}</span>` : html`<span class="badge off">${a.response_status ?? 'no answer'}</span> ${a.error ?? ''}`}${a.duration_ms !== null ? html` <span class="muted">${a.duration_ms} ms</span>` : ''}${a.next_retry_at ? html`<br><span class="muted">retry ${when(a.next_retry_at)}</span>` : ''}</td>
<td><form method="post" action="/webhooks/${id}/deliveries/${a.delivery_id}/redeliver" class="inline">${csrfField(request)}<button class="secondary" type="submit">Redeliver</button></form></td></tr>`,
      )}</tbody></table></div>`
}`,
    );
  }

  const idOf = (request: FastifyRequest) => (request.params as z.output<typeof EndpointParams>).endpoint_id;
  app.get('/webhooks/:endpoint_id', { config: session, schema: { params: EndpointParams } }, async (request, reply) =>
    sendPage(reply, await endpointPage(request, idOf(request))),
  );

  // The API's PATCH with the form's three settings; an emptied description is none (null), as the API takes it.
  app.post('/webhooks/:endpoint_id', { config: session, schema: { params: EndpointParams } }, async (request, reply) => {
    const id = idOf(request);
    const values = (request.body ?? {}) as Record<string, unknown>;
    const description = typeof values.description === 'string' && values.description !== '' ? values.description : null;
    const parsed = parseForm(WebhookEndpointUpdate, { url: values.url, event_types: listOfForm(values.event_types), description });
    if (!parsed.ok) return sendPage(reply, await endpointPage(request, id, { errors: parsed.errors, values }), 422);
    try {
      await updateWebhookEndpoint(deps.prisma, request.signedIn!.organizationId, id, parsed.data, policy, deps.secrets);
      return sendPage(reply, await endpointPage(request, id, { notice: 'Saved.' }));
    } catch (error) {
      return sendPage(reply, await endpointPage(request, id, { errors: formErrors(error), values }), 422);
    }
  });

  app.post('/webhooks/:endpoint_id/rotate-secret', { config: session, schema: { params: EndpointParams } }, async (request, reply) => {
    const id = idOf(request);
    const values = (request.body ?? {}) as Record<string, unknown>;
    const overlap = typeof values.overlap_seconds === 'string' && values.overlap_seconds !== '' ? Number(values.overlap_seconds) : undefined;
    const parsed = parseForm(RotateSecretBody, overlap === undefined ? {} : { overlap_seconds: Number.isFinite(overlap) ? overlap : values.overlap_seconds });
    if (!parsed.ok) return sendPage(reply, await endpointPage(request, id, { errors: parsed.errors, values }), 422);
    const rotated = await rotateWebhookSecret(deps.prisma, request.signedIn!.organizationId, id, parsed.data.overlap_seconds, deps.secrets);
    return sendPage(reply, await endpointPage(request, id, { rotated }));
  });

  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    app.post(`/webhooks/:endpoint_id/${action}`, { config: session, schema: { params: EndpointParams } }, async (request, reply) => {
      await updateWebhookEndpoint(deps.prisma, request.signedIn!.organizationId, idOf(request), { enabled }, policy, deps.secrets);
      return sendPage(
        reply,
        await endpointPage(request, idOf(request), {
          notice: enabled ? 'Enabled: queued deliveries resume.' : 'Disabled: deliveries wait until it is enabled again.',
        }),
      );
    });
  }
  app.post('/webhooks/:endpoint_id/delete', { config: session, schema: { params: EndpointParams } }, async (request, reply) => {
    await deleteWebhookEndpoint(deps.prisma, request.signedIn!.organizationId, idOf(request));
    return reply.redirect('/webhooks');
  });
  app.post('/webhooks/:endpoint_id/deliveries/:delivery_id/redeliver', { config: session, schema: { params: DeliveryParams } }, async (request, reply) => {
    const { endpoint_id, delivery_id } = request.params as z.output<typeof DeliveryParams>;
    await redeliverWebhook(deps.prisma, request.signedIn!.organizationId, endpoint_id, delivery_id);
    return sendPage(reply, await endpointPage(request, endpoint_id, { notice: 'Queued to be sent again now.' }));
  });
}
