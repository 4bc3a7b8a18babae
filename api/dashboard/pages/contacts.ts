import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  ContactCreate,
  contactFields,
  ContactImportBody,
  ContactParams,
  ContactPropertyCreate,
  type ContactPropertyOut,
  ContactPropertyUpdate,
  ContactUpdate,
  createContact,
  createContactProperty,
  deleteContact,
  deleteContactProperty,
  getContact,
  getContactProperty,
  importContacts,
  type ImportReportOut,
  listContactProperties,
  listContacts,
  storableText,
  updateContact,
  updateContactProperty,
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
import { registerResourcePages } from '../resource-pages.js';
import { leavesOf, schemaFields } from '../schema-form.js';
import { validated } from '../forms.js';

const session = { auth: 'session' as const };
const PAGE_SIZE = 50;
const ListQuery = z.object({
  page: z.coerce.number().int().min(1).max(100_000).catch(1),
  q: repeated(storableText(200).transform((s) => s.trim())).optional(),
});

/** A property as the resource pages list it: named by its label. */
const named = (p: ContactPropertyOut) => ({ ...p, name: p.label });

export function registerContactPages(app: FastifyInstance, deps: DashboardDeps): void {
  registerResourcePages<ContactPropertyOut & { name: string }>(app, {
    path: '/contacts/properties',
    title: 'Custom properties',
    noun: 'property',
    empty: 'No custom properties. A property is created once, then set per contact in custom_fields, imported as a CSV column, and read as {{contact.<key>}}.',
    leaves: leavesOf((ContactPropertyCreate as unknown as z.ZodObject).shape as Record<string, z.ZodType>),
    defaults: { type: 'text' },
    columns: ['Key', 'Type'],
    cells: (p) => [html`<code>${p.key}</code>`, html`${p.type}${p.options ? html` <span class="muted">${p.options.join(', ')}</span>` : ''}`],
    list: async (org) => (await listContactProperties(deps.prisma, org)).map(named),
    get: async (org, id) => named(await getContactProperty(deps.prisma, org, id)),
    create: async (org, body) => named(await createContactProperty(deps.prisma, org, validated(ContactPropertyCreate, body))),
    // Key and type are fixed once created: only the label and a select's options change.
    update: async (org, id, body) =>
      named(
        await updateContactProperty(
          deps.prisma,
          org,
          id,
          validated(ContactPropertyUpdate, { label: body.label, ...(body.options !== undefined ? { options: body.options } : {}) }),
        ),
      ),
    remove: (org, id) => deleteContactProperty(deps.prisma, org, id),
  });

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

  // One contact, edited in a form of the API's contact fields (custom fields as JSON, coerced to their properties' types).
  const CONTACT_LEAVES = leavesOf(contactFields as unknown as Record<string, z.ZodType>);
  async function contactPage(
    request: FastifyRequest,
    id: number,
    extra: { errors?: FieldErrors; notice?: string; values?: Record<string, unknown> } = {},
  ): Promise<Html> {
    const contact = await getContact(deps.prisma, request.signedIn!.organizationId, id);
    const title = [contact.first_name, contact.last_name].filter(Boolean).join(' ') || contact.email || contact.phone_number || `Contact ${contact.id}`;
    const errors = extra.errors ?? {};
    return dashboardPage(
      request,
      title,
      html`<p><a href="/contacts">← All contacts</a> · <a href="/calls?contact_id=${contact.id}">Calls</a></p>${extra.notice ? html`<div class="notice" role="status">${extra.notice}</div>` : ''}
${Object.keys(errors).length > 0 ? html`<div class="notice bad" role="alert">${errors[''] ?? 'The API refused some fields: see the marked fields.'}</div>` : ''}
<form method="post" action="/contacts/${contact.id}" novalidate>${csrfField(request)}${schemaFields(CONTACT_LEAVES, { ...contact, ...extra.values }, errors)}
<div class="actions"><button type="submit">Save</button></div></form>
<form method="post" action="/contacts/${contact.id}/delete">${csrfField(request)}<button class="danger" type="submit" data-confirm="Delete this contact? Their calls are kept, without their personal details.">Delete contact</button></form>`,
    );
  }
  const contactId = (request: FastifyRequest) => (request.params as z.output<typeof ContactParams>).contact_id;
  // One contact added by hand, in the form of the API's contact fields, as POST /api/contacts takes them.
  function newContactPage(request: FastifyRequest, values: Record<string, unknown> = {}, errors: FieldErrors = {}): Html {
    return dashboardPage(
      request,
      'New contact',
      html`<p><a href="/contacts">← All contacts</a></p>
${Object.keys(errors).length > 0 ? html`<div class="notice bad" role="alert">${errors[''] ?? 'The API refused some fields: see the marked fields.'}</div>` : ''}
<form method="post" action="/contacts/new" novalidate>${csrfField(request)}${schemaFields(CONTACT_LEAVES, values, errors)}
<div class="actions"><button type="submit">Add contact</button><a href="/contacts">Cancel</a></div></form>`,
    );
  }
  app.get('/contacts/new', { config: session }, async (request, reply) => sendPage(reply, newContactPage(request)));
  app.post('/contacts/new', { config: session }, async (request, reply) => {
    const body = bodyOfForm(CONTACT_LEAVES, request.body as Record<string, unknown>);
    try {
      const created = await createContact(deps.prisma, request.signedIn!.organizationId, validated(ContactCreate, body));
      return reply.redirect(`/contacts/${created.id}?created=1`);
    } catch (error) {
      return sendPage(reply, newContactPage(request, body, formErrors(error)), 422);
    }
  });

  app.get('/contacts/:contact_id', { config: session, schema: { params: ContactParams } }, async (request, reply) =>
    sendPage(reply, await contactPage(request, contactId(request), (request.query as { created?: string }).created ? { notice: 'Contact added.' } : {})),
  );
  app.post('/contacts/:contact_id', { config: session, schema: { params: ContactParams } }, async (request, reply) => {
    const body = bodyOfForm(CONTACT_LEAVES, request.body as Record<string, unknown>);
    try {
      await updateContact(deps.prisma, request.signedIn!.organizationId, contactId(request), validated(ContactUpdate, body));
    } catch (error) {
      return sendPage(reply, await contactPage(request, contactId(request), { errors: formErrors(error), values: body }), 422);
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
