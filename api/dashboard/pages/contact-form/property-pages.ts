import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { AppError } from '../../../../lib/errors.js';
import {
  ContactPropertyCreate,
  type ContactPropertyOut,
  ContactPropertyParams,
  ContactPropertyUpdate,
  createContactProperty,
  deleteContactProperty,
  getContactProperty,
  listContactProperties,
  updateContactProperty,
} from '../../../../modules/contacts/index.js';
import type { DashboardDeps } from '../../deps.js';
import { type FieldErrors, validated } from '../../forms.js';
import { html, type Html } from '../../html.js';
import { csrfField, dashboardPage, sendPage } from '../../layout.js';
import { aria, errorLine } from '../campaign-form/controls.js';
import { createBody, linesOf, propertyRefusal, type PropertyValues, TYPE_WORDS, updateBody, valuesOfPost, valuesOfProperty } from './property-fields.js';

// The custom properties' pages: the list, a new property, one property, and deletion, through the same schemas and
// functions as /api/contact-properties. A select's choices are typed one a line; the key and the type are chosen once,
// when the property is made, and shown (not offered) after.

const session = { auth: 'session' as const };
const LIST = '/contacts/properties';
const TYPES = Object.keys(TYPE_WORDS);

function row(id: string, label: string, control: Html, hint: string | Html, error: string | undefined, wide = false): Html {
  return html`<div class="setting${wide ? ' wide' : ''}"><label for="${id}">${label}</label>${control}${hint ? html`<span class="hint" id="${id}-hint">${hint}</span>` : ''}${errorLine(id, error)}</div>`;
}

function propertyForm(request: FastifyRequest, property: ContactPropertyOut | null, values: PropertyValues, errors: FieldErrors): Html {
  const count = Object.keys(errors).filter((k) => k !== '').length;
  const notice =
    count > 0 || errors[''] !== undefined
      ? html`<div class="notice bad" role="alert">${errors[''] ?? (count === 1 ? 'One field was refused: see the marked field.' : `${count} fields were refused: see the marked fields.`)}</div>`
      : '';
  const type = property?.type ?? values.type;
  const fixed = property
    ? html`<dl class="facts"><dt>Key</dt><dd><code>${property.key}</code> <span class="hint">in imports, filters (<code>cf.${property.key}</code>) and templates (<code>{{contact.${property.key}}}</code>); fixed once made</span></dd><dt>Type</dt><dd>${TYPE_WORDS[property.type] ?? property.type} <span class="hint">fixed once made</span></dd></dl>`
    : html`${row(
        'f-key',
        'Key',
        html`<input id="f-key" name="key" type="text" value="${values.key}" autocomplete="off" spellcheck="false" maxlength="63"${aria('f-key', true, errors.key)}>`,
        html`How imports, filters and templates name it: <code>plan</code> is <code>{{contact.plan}}</code>. Lower-case letters, digits and _, starting with a letter; fixed once made.`,
        errors.key,
      )}
${row(
  'f-type',
  'Type',
  html`<select id="f-type" name="type"${aria('f-type', true, errors.type)}>${TYPES.map((t) => html`<option value="${t}"${t === type ? html` selected` : ''}>${TYPE_WORDS[t]}</option>`)}${
    type !== '' && !TYPES.includes(type) ? html`<option value="${type}" selected>${type}</option>` : ''
  }</select>`,
  'What a contact’s value is; fixed once made. Default: text.',
  errors.type,
)}`;
  const optionsRow =
    type === 'select' || !property
      ? html`<div class="options-row${property ? ' shown' : ''}">${row(
          'f-options',
          'Choices',
          html`<textarea class="lines" id="f-options" name="options" rows="${Math.min(12, Math.max(4, linesOf(values.options).length + 1))}"${aria('f-options', true, errors.options)}>${values.options}</textarea>`,
          'One a line, each up to 100 characters; 200 at most. A choice some contacts hold cannot be removed.',
          errors.options,
          true,
        )}</div>`
      : '';
  return html`${notice}<p><a href="${LIST}">← All properties</a></p>
<form method="post" action="${property ? `${LIST}/${property.id}` : LIST}" novalidate class="card property-form">${csrfField(request)}
<div class="settings">${row(
    'f-label',
    'Label',
    html`<input id="f-label" name="label" type="text" value="${values.label}" maxlength="200"${aria('f-label', true, errors.label)}>`,
    'The name people read on a contact’s page, up to 200 characters.',
    errors.label,
  )}
${fixed}${optionsRow}</div>
<div class="actions"><button type="submit">${property ? 'Save' : 'Create property'}</button><a href="${LIST}">Cancel</a></div></form>
${property ? html`<form method="post" action="${LIST}/${property.id}/delete">${csrfField(request)}<button class="danger" type="submit" data-confirm="Delete this property? Its value is removed from every contact.">Delete property</button></form>` : ''}`;
}

export function registerPropertyPages(app: FastifyInstance, deps: DashboardDeps): void {
  app.get(LIST, { config: session }, async (request, reply) => {
    const properties = await listContactProperties(deps.prisma, request.signedIn!.organizationId);
    const body = html`<div class="actions page-actions"><a class="button" href="${LIST}/new">New property</a><a href="/contacts">Contacts</a></div>
${
  properties.length === 0
    ? html`<div class="card empty">No custom properties. A property is made once, then set on each contact’s page, imported as a CSV column, and read as {{contact.&lt;key&gt;}}.</div>`
    : html`<div class="table-wrap"><table><thead><tr><th>Label</th><th>Key</th><th>Type</th></tr></thead><tbody>${properties.map(
        (p) =>
          html`<tr><td><a href="${LIST}/${p.id}">${p.label}</a></td><td><code>${p.key}</code></td><td>${TYPE_WORDS[p.type] ?? p.type}${p.options ? html` <span class="muted">${p.options.join(', ')}</span>` : ''}</td></tr>`,
      )}</tbody></table></div>`
}`;
    return sendPage(reply, dashboardPage(request, 'Custom properties', body));
  });

  const page = (
    request: FastifyRequest,
    reply: FastifyReply,
    property: ContactPropertyOut | null,
    values: PropertyValues,
    errors: FieldErrors = {},
    status = 200,
    notice?: Html,
  ) =>
    sendPage(
      reply,
      dashboardPage(request, property ? property.label : 'New property', html`${notice ?? ''}${propertyForm(request, property, values, errors)}`),
      status,
    );

  app.get(`${LIST}/new`, { config: session }, async (request, reply) => page(request, reply, null, { key: '', label: '', type: 'text', options: '' }));

  app.post(LIST, { config: session }, async (request, reply) => {
    const values = valuesOfPost(request.body);
    try {
      const created = await createContactProperty(deps.prisma, request.signedIn!.organizationId, validated(ContactPropertyCreate, createBody(values)));
      return reply.redirect(`${LIST}/${created.id}`);
    } catch (error) {
      return page(request, reply, null, values, propertyRefusal(error, values), error instanceof AppError && error.kind === 'conflict' ? 409 : 422);
    }
  });

  const idOf = (request: FastifyRequest) => (request.params as z.output<typeof ContactPropertyParams>).property_id;

  app.get(`${LIST}/:property_id`, { config: session, schema: { params: ContactPropertyParams } }, async (request, reply) => {
    const property = await getContactProperty(deps.prisma, request.signedIn!.organizationId, idOf(request));
    return page(request, reply, property, valuesOfProperty(property));
  });

  // Read first: another organisation's property is 404 before anything is said about the form.
  app.post(`${LIST}/:property_id`, { config: session, schema: { params: ContactPropertyParams } }, async (request, reply) => {
    const organizationId = request.signedIn!.organizationId;
    const property = await getContactProperty(deps.prisma, organizationId, idOf(request));
    const values = { ...valuesOfPost(request.body), key: property.key, type: property.type };
    try {
      const saved = await updateContactProperty(deps.prisma, organizationId, property.id, validated(ContactPropertyUpdate, updateBody(values, property.type)));
      return page(request, reply, saved, valuesOfProperty(saved), {}, 200, html`<div class="notice" role="status">Saved.</div>`);
    } catch (error) {
      if (error instanceof AppError && error.kind === 'not_found') throw error;
      return page(request, reply, property, values, propertyRefusal(error, values), error instanceof AppError && error.kind === 'conflict' ? 409 : 422);
    }
  });

  app.post(`${LIST}/:property_id/delete`, { config: session, schema: { params: ContactPropertyParams } }, async (request, reply) => {
    await deleteContactProperty(deps.prisma, request.signedIn!.organizationId, idOf(request));
    return reply.redirect(LIST);
  });
}
