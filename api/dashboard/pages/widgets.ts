import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { idParam } from '../../../lib/zod/query.js';
import { listAssistants } from '../../../modules/assistants/index.js';
import {
  createWidgetKey,
  DEFAULT_MAX_CONCURRENT_CALLS,
  getWidgetKey,
  DEFAULT_RATE_LIMIT_PER_MINUTE,
  listWidgetKeys,
  revokeWidgetKey,
  updateWidgetKey,
  WidgetKeyCreate,
  WidgetKeyUpdate,
  type WidgetKeyOut,
} from '../../../modules/widgets/index.js';
import { publicBaseUrl } from '../../http/public-url.js';
import { field, formError, formErrors, formValues, parseForm, type FieldErrors } from '../forms.js';
import { html, type Html } from '../html.js';
import { csrfField, dashboardPage, sendPage } from '../layout.js';
import { when } from '../format.js';
import type { DashboardDeps } from '../deps.js';

// The website widget's keys (docs/widget.md): created for an assistant with the origins whose pages may use it, the
// script tag to paste into those pages, edited, revoked. The same module functions as /api/widget-keys.

const session = { auth: 'session' as const };
/** An organisation's widgets fit one page; the API pages through more. */
const KEYS_PER_PAGE = 100;

/** The form's fields as the API takes them: origins one per line, numbers as numbers, empty fields not given. */
function createBody(body: unknown): Record<string, unknown> {
  const values = formValues(body);
  const out: Record<string, unknown> = { ...values };
  out.allowed_origins = (values.allowed_origins ?? '')
    .split(/\s+/)
    .map((o) => o.trim())
    .filter(Boolean);
  for (const name of ['assistant_id', 'rate_limit_per_minute', 'max_concurrent_calls']) {
    if (values[name] !== undefined) out[name] = /^\d+$/.test(values[name]) ? Number(values[name]) : values[name];
  }
  return out;
}

function snippet(base: string, key: WidgetKeyOut): string {
  return `<script src="${base}/widget.js" data-key="${key.public_key}" async></script>`;
}

interface WidgetFormOptions {
  action: string;
  heading: string;
  submit: string;
  values: Record<string, string | undefined>;
  errors: FieldErrors | undefined;
  /** Where Cancel leads; no Cancel without it. */
  cancel?: string;
}

/** The widget's fields, for a new widget and for one being edited. */
function widgetForm(request: FastifyRequest, assistants: { id: number; name: string }[], o: WidgetFormOptions): Html {
  const { values, errors } = o;
  const assistantError = errors?.assistant_id;
  const originsError = Object.entries(errors ?? {}).find(([k]) => k === 'allowed_origins' || k.startsWith('allowed_origins.'))?.[1];
  return html`<form method="post" action="${o.action}" class="card"><h2>${o.heading}</h2>${csrfField(request)}${formError(errors)}
<div class="row"><div>${field({ name: 'name', label: 'Name', hint: 'the site it goes on', value: values.name, errors, required: true })}</div>
<div><label for="f-assistant_id">Assistant</label><select id="f-assistant_id" name="assistant_id"${assistantError ? html` aria-invalid="true" aria-describedby="f-assistant_id-error"` : ''}>${assistants.map(
    (a) => html`<option value="${String(a.id)}"${String(a.id) === values.assistant_id ? html` selected` : ''}>${a.name}</option>`,
  )}</select>${assistantError ? html`<div class="error" id="f-assistant_id-error">${assistantError}</div>` : ''}</div></div>
<label for="f-allowed_origins">Allowed origins <span class="hint" id="f-allowed_origins-hint">one per line, e.g. https://shop.example.com: only pages there can start calls</span></label>
<textarea id="f-allowed_origins" name="allowed_origins" class="lines" rows="3" required aria-describedby="f-allowed_origins-hint${originsError ? ' f-allowed_origins-error' : ''}"${originsError ? html` aria-invalid="true"` : ''}>${values.allowed_origins ?? ''}</textarea>
${originsError ? html`<div class="error" id="f-allowed_origins-error">${originsError}</div>` : ''}
<div class="row"><div>${field({ name: 'rate_limit_per_minute', label: 'Calls per minute', type: 'number', value: values.rate_limit_per_minute, errors })}</div>
<div>${field({ name: 'max_concurrent_calls', label: 'Calls at once', type: 'number', value: values.max_concurrent_calls, errors })}</div></div>
<div class="row"><div>${field({ name: 'button_label', label: 'Button text', hint: 'default: Talk to us', value: values.button_label, errors })}</div>
<div>${field({ name: 'button_color', label: 'Button colour', hint: '#rrggbb', value: values.button_color, errors })}</div></div>
${field({ name: 'greeting', label: 'Greeting', hint: 'shown in the call panel', value: values.greeting, errors })}
<div class="actions"><button type="submit"${assistants.length === 0 ? html` disabled` : ''}>${o.submit}</button>${o.cancel ? html`<a class="button secondary" href="${o.cancel}">Cancel</a>` : ''}</div>
${assistants.length === 0 ? html`<p class="hint"><a href="/assistants/new">Create an assistant</a> first: a widget starts calls to one.</p>` : ''}</form>`;
}

/** A stored widget as the form shows it. */
function formValuesOf(k: WidgetKeyOut): Record<string, string | undefined> {
  return {
    name: k.name,
    assistant_id: String(k.assistant_id),
    allowed_origins: k.allowed_origins.join('\n'),
    rate_limit_per_minute: String(k.rate_limit_per_minute),
    max_concurrent_calls: String(k.max_concurrent_calls),
    button_label: k.button_label ?? undefined,
    button_color: k.button_color ?? undefined,
    greeting: k.greeting ?? undefined,
  };
}

/** An edit's fields: as for a new widget, and an emptied optional field clears it (null) rather than being left out. */
function updateBody(body: unknown): Record<string, unknown> {
  const out = createBody(body);
  for (const name of ['button_label', 'button_color', 'greeting']) if (out[name] === undefined) out[name] = null;
  return out;
}

export function registerWidgetPages(app: FastifyInstance, deps: DashboardDeps): void {
  async function render(request: FastifyRequest, extra: { errors?: FieldErrors; values?: Record<string, string>; notice?: string } = {}): Promise<Html> {
    const me = request.signedIn!;
    const [{ data: keys }, assistants] = await Promise.all([
      listWidgetKeys(deps.prisma, me.organizationId, 1, KEYS_PER_PAGE),
      listAssistants(deps.prisma, me.organizationId, 1, 100, deps.secrets),
    ]);
    const names = new Map(assistants.data.map((a) => [a.id, a.name]));
    const base = publicBaseUrl(request, deps.publicUrl);
    const errors = extra.errors;
    const values = extra.values ?? {};
    const live = keys.filter((k) => !k.revoked_at);
    const revoked = keys.filter((k) => k.revoked_at);

    const form = widgetForm(request, assistants.data, {
      action: '/widgets',
      heading: 'New widget',
      submit: 'Create widget',
      values: {
        rate_limit_per_minute: String(DEFAULT_RATE_LIMIT_PER_MINUTE),
        max_concurrent_calls: String(DEFAULT_MAX_CONCURRENT_CALLS),
        ...values,
      },
      errors,
    });

    const cards = live.map(
      (k) => html`<div class="card widget" id="widget-${String(k.id)}"><h2>${k.name}</h2>
<p class="muted">Calls ${names.get(k.assistant_id) ?? `assistant #${k.assistant_id}`} · at most ${String(k.rate_limit_per_minute)} a minute and ${String(k.max_concurrent_calls)} at once · created ${when(k.created_at)}</p>
<p>Allowed origins: ${k.allowed_origins.map((o, i) => html`${i > 0 ? ', ' : ''}<code>${o}</code>`)}</p>
<label for="snippet-${String(k.id)}">Paste into the pages of those origins, before <code>&lt;/body&gt;</code></label>
<pre class="snippet"><code id="snippet-${String(k.id)}">${snippet(base, k)}</code></pre>
<div class="actions"><button type="button" class="secondary" data-copy="snippet-${String(k.id)}">Copy</button>
<a class="button secondary" href="/widgets/${String(k.id)}/edit" aria-label="Edit ${k.name}">Edit</a>
<form method="post" action="/widgets/${String(k.id)}/revoke" class="inline">${csrfField(request)}<button class="danger" type="submit" data-confirm="Revoke this widget? Its button stops starting calls on every page at once.">Revoke</button></form></div></div>`,
    );
    return html`${extra.notice ? html`<div class="notice" role="status">${extra.notice}</div>` : ''}
<p>A widget puts a “Talk to us” button on your website that starts a browser call to an assistant. Its key is public: only pages on its allowed origins can use it, within its limits.</p>
${form}
${live.length === 0 ? html`<div class="card empty">No widgets yet. Create one above, then paste its script tag into your site.</div>` : cards}
${
  revoked.length > 0
    ? html`<h2>Revoked</h2><div class="table-wrap"><table><thead><tr><th>Name</th><th>Key</th><th>Revoked</th></tr></thead><tbody>${revoked.map(
        (k) => html`<tr><td>${k.name}</td><td><code>${k.public_key.slice(0, 10)}…</code></td><td>${when(k.revoked_at!)}</td></tr>`,
      )}</tbody></table></div>`
    : ''
}`;
  }

  const page = async (request: FastifyRequest, extra?: Parameters<typeof render>[1]) => dashboardPage(request, 'Website widgets', await render(request, extra));

  app.get('/widgets', { config: session }, async (request, reply) => sendPage(reply, await page(request)));

  app.post('/widgets', { config: session }, async (request, reply) => {
    const values = formValues(request.body);
    const parsed = parseForm(WidgetKeyCreate, createBody(request.body));
    if (!parsed.ok) return sendPage(reply, await page(request, { errors: parsed.errors, values }), 422);
    try {
      const created = await createWidgetKey(deps.prisma, request.signedIn!.organizationId, parsed.data);
      return sendPage(reply, await page(request, { notice: `Widget “${created.name}” created: paste its script tag into your pages.` }), 201);
    } catch (error) {
      return sendPage(reply, await page(request, { errors: formErrors(error), values }), 422);
    }
  });

  const keyParams = { params: z.object({ widget_key_id: idParam }) };
  const editPage = async (request: FastifyRequest, key: WidgetKeyOut, values: Record<string, string | undefined>, errors?: FieldErrors) => {
    const assistants = await listAssistants(deps.prisma, request.signedIn!.organizationId, 1, 100, deps.secrets);
    const form = widgetForm(request, assistants.data, {
      action: `/widgets/${key.id}`,
      heading: `Edit ${key.name}`,
      submit: 'Save changes',
      values,
      errors,
      cancel: '/widgets',
    });
    return dashboardPage(
      request,
      'Edit widget',
      html`<p><a href="/widgets">← Website widgets</a></p>
<p class="hint">Changes apply to the next call each page starts; the script tag on your pages stays the same.</p>${form}`,
    );
  };

  app.get('/widgets/:widget_key_id/edit', { config: session, schema: keyParams }, async (request, reply) => {
    const key = await getWidgetKey(deps.prisma, request.signedIn!.organizationId, (request.params as { widget_key_id: number }).widget_key_id);
    if (key.revoked_at) return sendPage(reply, await page(request, { notice: `Widget “${key.name}” is revoked: create a new one instead.` }), 409);
    return sendPage(reply, await editPage(request, key, formValuesOf(key)));
  });

  app.post('/widgets/:widget_key_id', { config: session, schema: keyParams }, async (request, reply) => {
    const organizationId = request.signedIn!.organizationId;
    const id = (request.params as { widget_key_id: number }).widget_key_id;
    const key = await getWidgetKey(deps.prisma, organizationId, id);
    const values = formValues(request.body);
    const parsed = parseForm(WidgetKeyUpdate, updateBody(request.body));
    if (!parsed.ok) return sendPage(reply, await editPage(request, key, values, parsed.errors), 422);
    try {
      const saved = await updateWidgetKey(deps.prisma, organizationId, id, parsed.data);
      return sendPage(reply, await page(request, { notice: `Widget “${saved.name}” saved: its pages use the change from their next call.` }));
    } catch (error) {
      return sendPage(reply, await editPage(request, key, values, formErrors(error)), 422);
    }
  });

  app.post('/widgets/:widget_key_id/revoke', { config: session, schema: keyParams }, async (request, reply) => {
    await revokeWidgetKey(deps.prisma, request.signedIn!.organizationId, (request.params as { widget_key_id: number }).widget_key_id);
    return sendPage(reply, await page(request, { notice: 'Widget revoked: its button no longer starts calls on any page.' }));
  });
}
