import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  ContactCreate,
  contactFields,
  ContactImportBody,
  ContactParams,
  ContactUpdate,
  createContact,
  deleteContact,
  getContact,
  importContacts,
  type ImportReportOut,
  listContactProperties,
  listContacts,
  storableText,
  updateContact,
} from '../../../modules/contacts/index.js';
import { bodyOfForm } from '../schema-form.js';
import { repeated } from '../../../lib/zod/query.js';
import { zodIssuesToDetail } from '../../../lib/zod/detail.js';
import { parseCsv } from '../../routes/contact-import.js';
import { errorsOfDetail, formErrors, type FieldErrors } from '../forms.js';
import { html, type Html } from '../html.js';
import { csrfField, dashboardPage, sendPage } from '../layout.js';
import { when } from '../format.js';
import type { DashboardDeps } from '../deps.js';
import { AppError } from '../../../lib/errors.js';
import {
  contactRefusal,
  customFieldsBody,
  customFieldsSection,
  type Property,
  valuesOfContact,
  valuesOfPost as customValuesOfPost,
  zoneOf,
} from './contact-form/custom-fields.js';
import { registerPropertyPages } from './contact-form/property-pages.js';
import { leavesOf, schemaFields } from '../schema-form.js';
import { validated } from '../forms.js';

const session = { auth: 'session' as const };
const PAGE_SIZE = 50;
const ListQuery = z.object({
  page: z.coerce.number().int().min(1).max(100_000).catch(1),
  q: repeated(storableText(200).transform((s) => s.trim())).optional(),
});

export function registerContactPages(app: FastifyInstance, deps: DashboardDeps): void {
  // The custom properties, made and changed through the API's own schemas and functions (contact-form/).
  registerPropertyPages(app, deps);

  async function render(
    request: FastifyRequest,
    query: z.output<typeof ListQuery>,
    extra: { report?: ImportReportOut; errors?: FieldErrors; csv?: string } = {},
  ): Promise<Html> {
    const me = request.signedIn!;
    const q = query.q?.filter((s) => s !== '');
    const { data, pagination } = await listContacts(deps.prisma, me.organizationId, q && q.length > 0 ? { q } : {}, query.page, PAGE_SIZE);
    const search = q?.[0] ?? '';
    const report = extra.report
      ? html`<div class="notice" role="status">Imported ${extra.report.total} rows: ${extra.report.created} created, ${extra.report.updated} updated, ${extra.report.invalid} invalid, ${extra.report.conflict} in conflict.</div>
${
  extra.report.rows.some((r) => r.status === 'invalid' || r.status === 'conflict')
    ? html`<div class="table-wrap"><table><thead><tr><th>Line</th><th>Status</th><th>Why</th></tr></thead><tbody>${extra.report.rows
        .filter((r) => r.status === 'invalid' || r.status === 'conflict')
        .slice(0, 100)
        .map(
          (r) =>
            html`<tr><td>${r.index + 2}</td><td>${r.status}</td><td>${r.errors?.map((e) => `${e.loc.slice(1).join('.')}: ${e.msg}`).join('; ') ?? r.conflicts?.map((c) => `${c.field} belongs to contact ${c.contact_id}`).join('; ') ?? ''}</td></tr>`,
        )}</tbody></table></div>`
    : ''
}`
      : '';
    const csvError = extra.errors
      ? Object.entries(extra.errors)
          .map(([k, v]) => (k ? `${k}: ${v}` : v))
          .join('; ')
      : '';
    const rows = data.map(
      (c) =>
        html`<tr><td><a href="/contacts/${c.id}">${[c.first_name, c.last_name].filter(Boolean).join(' ') || 'no name'}</a></td><td>${c.phone_number ?? ''}</td><td class="hide-phone">${c.email ?? ''}</td><td class="hide-phone">${c.source}</td><td class="hide-phone">${when(c.created_at)}</td></tr>`,
    );
    return html`${report}
<div class="actions page-actions"><a class="button" href="/contacts/new">Add a contact</a><a href="/contacts/properties">Custom properties</a></div>
<form method="get" action="/contacts" class="card"><div class="row"><div><label for="q">Search</label><input id="q" type="search" name="q" value="${search}" placeholder="name, phone or email"></div><div class="fit"><button type="submit">Search</button></div></div></form>
${
  data.length === 0
    ? html`<div class="card empty">${search ? 'No contacts match this search.' : 'No contacts yet. They are created by calls that come in, by the API, or by importing a CSV file below.'}</div>`
    : html`<div class="table-wrap"><table><thead><tr><th>Name</th><th>Phone</th><th class="hide-phone">Email</th><th class="hide-phone">Source</th><th class="hide-phone">Added</th></tr></thead><tbody>${rows}</tbody></table></div>
<p>${pagination.total} contacts. ${query.page > 1 ? html`<a href="/contacts?page=${query.page - 1}&amp;q=${search}">Previous</a>` : ''} ${query.page < pagination.total_pages ? html`<a href="/contacts?page=${query.page + 1}&amp;q=${search}">Next</a>` : ''}</p>`
}
<form method="post" action="/contacts/import" class="card"><h2>Import a CSV file</h2>${csrfField(request)}
<p class="hint">A header row of field names (first_name, last_name, phone_number, email, external_id, timezone) and custom property keys; one contact per line. A row whose phone, email or external id is known updates that contact.</p>
<label for="csv-file">File</label><input id="csv-file" type="file" accept=".csv,text/csv" data-into="csv">
<label for="csv">Or paste it</label><textarea id="csv" name="csv" rows="6"${csvError ? html` aria-invalid="true" aria-describedby="csv-error"` : ''}>${extra.csv ?? ''}</textarea>
${csvError ? html`<div class="error" id="csv-error">${csvError}</div>` : ''}
<div class="actions"><button type="submit">Import</button></div></form>`;
  }

  // One contact, edited in a form of the API's contact fields, each custom field a control of its property's type
  // (contact-form/custom-fields.ts) that the contact service coerces as it does the API's `custom_fields`.
  const CONTACT_LEAVES = leavesOf(contactFields as unknown as Record<string, z.ZodType>).filter((l) => l.key !== 'custom_fields');
  const propertiesOf = (request: FastifyRequest) => listContactProperties(deps.prisma, request.signedIn!.organizationId);
  const refusedNotice = (errors: FieldErrors) =>
    Object.keys(errors).length > 0
      ? html`<div class="notice bad" role="alert">${errors[''] ?? 'The API refused some fields: see the marked fields.'}</div>`
      : '';

  /** The form's fields as posted: the contact's own as the API takes them, the custom ones as typed. */
  function posted(request: FastifyRequest, properties: Property[], update: boolean) {
    const form = (request.body ?? {}) as Record<string, unknown>;
    const body = bodyOfForm(CONTACT_LEAVES, form);
    const custom = customValuesOfPost(properties, request.body);
    const fields = customFieldsBody(properties, custom, { update, zone: zoneOf(body.timezone) });
    if (Object.keys(fields).length > 0) body.custom_fields = fields;
    return { body, custom };
  }

  async function contactPage(
    request: FastifyRequest,
    id: number,
    extra: { errors?: FieldErrors; notice?: string; values?: Record<string, unknown>; custom?: Record<string, string> } = {},
  ): Promise<Html> {
    const [contact, properties] = await Promise.all([getContact(deps.prisma, request.signedIn!.organizationId, id), propertiesOf(request)]);
    const title = [contact.first_name, contact.last_name].filter(Boolean).join(' ') || contact.email || contact.phone_number || `Contact ${contact.id}`;
    const errors = extra.errors ?? {};
    const values = { ...contact, ...extra.values };
    const zone = zoneOf(values.timezone);
    return dashboardPage(
      request,
      title,
      html`<p><a href="/contacts">← All contacts</a> · <a href="/calls?contact_id=${contact.id}">Calls</a></p>${extra.notice ? html`<div class="notice" role="status">${extra.notice}</div>` : ''}
${refusedNotice(errors)}
<form method="post" action="/contacts/${contact.id}" novalidate>${csrfField(request)}${schemaFields(CONTACT_LEAVES, values, errors)}
${customFieldsSection(properties, extra.custom ?? valuesOfContact(properties, contact.custom_fields, zone), errors, zone)}
<div class="actions"><button type="submit">Save</button></div></form>
<form method="post" action="/contacts/${contact.id}/delete">${csrfField(request)}<button class="danger" type="submit" data-confirm="Delete this contact? Their calls are kept, without their personal details.">Delete contact</button></form>`,
    );
  }
  const contactId = (request: FastifyRequest) => (request.params as z.output<typeof ContactParams>).contact_id;
  // One contact added by hand, in the form of the API's contact fields, as POST /api/contacts takes them.
  function newContactPage(
    request: FastifyRequest,
    properties: Property[],
    values: Record<string, unknown> = {},
    custom: Record<string, string> = {},
    errors: FieldErrors = {},
  ): Html {
    return dashboardPage(
      request,
      'New contact',
      html`<p><a href="/contacts">← All contacts</a></p>
${refusedNotice(errors)}
<form method="post" action="/contacts/new" novalidate>${csrfField(request)}${schemaFields(CONTACT_LEAVES, values, errors)}
${customFieldsSection(properties, custom, errors, zoneOf(values.timezone))}
<div class="actions"><button type="submit">Add contact</button><a href="/contacts">Cancel</a></div></form>`,
    );
  }
  app.get('/contacts/new', { config: session }, async (request, reply) => sendPage(reply, newContactPage(request, await propertiesOf(request))));
  app.post('/contacts/new', { config: session }, async (request, reply) => {
    const properties = await propertiesOf(request);
    const { body, custom } = posted(request, properties, false);
    try {
      const created = await createContact(deps.prisma, request.signedIn!.organizationId, validated(ContactCreate, body));
      return reply.redirect(`/contacts/${created.id}?created=1`);
    } catch (error) {
      return sendPage(reply, newContactPage(request, properties, body, custom, contactRefusal(error, properties)), 422);
    }
  });

  app.get('/contacts/:contact_id', { config: session, schema: { params: ContactParams } }, async (request, reply) =>
    sendPage(reply, await contactPage(request, contactId(request), (request.query as { created?: string }).created ? { notice: 'Contact added.' } : {})),
  );
  app.post('/contacts/:contact_id', { config: session, schema: { params: ContactParams } }, async (request, reply) => {
    const properties = await propertiesOf(request);
    const { body, custom } = posted(request, properties, true);
    try {
      await updateContact(deps.prisma, request.signedIn!.organizationId, contactId(request), validated(ContactUpdate, body));
    } catch (error) {
      if (error instanceof AppError && error.kind === 'not_found') throw error;
      return sendPage(reply, await contactPage(request, contactId(request), { errors: contactRefusal(error, properties), values: body, custom }), 422);
    }
    return sendPage(reply, await contactPage(request, contactId(request), { notice: 'Saved.' }));
  });
  app.post('/contacts/:contact_id/delete', { config: session, schema: { params: ContactParams } }, async (request, reply) => {
    await deleteContact(deps.prisma, request.signedIn!.organizationId, contactId(request));
    return reply.redirect('/contacts');
  });

  app.get('/contacts', { config: session, schema: { querystring: ListQuery } }, async (request, reply) =>
    sendPage(reply, dashboardPage(request, 'Contacts', await render(request, request.query as z.output<typeof ListQuery>))),
  );

  // The API's import, fed the same parsed CSV; a file up to the form limit of 1 MiB.
  app.post('/contacts/import', { config: session }, async (request, reply) => {
    const csv = String((request.body as Record<string, unknown>)?.csv ?? '');
    const query = { page: 1 };
    try {
      const parsed = parseCsv(csv);
      const body = ContactImportBody.safeParse(parsed);
      if (!body.success)
        return sendPage(
          reply,
          dashboardPage(
            request,
            'Contacts',
            await render(request, query, { errors: errorsOfDetail(zodIssuesToDetail(body.error.issues, 'body', parsed)), csv }),
          ),
          422,
        );
      const report = await importContacts(deps.prisma, request.signedIn!.organizationId, 'csv', body.data.contacts);
      return sendPage(reply, dashboardPage(request, 'Contacts', await render(request, query, { report })));
    } catch (error) {
      return sendPage(reply, dashboardPage(request, 'Contacts', await render(request, query, { errors: formErrors(error), csv })), 422);
    }
  });
}
