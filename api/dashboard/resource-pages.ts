import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError } from '../../lib/errors.js';
import { idParam } from '../../lib/zod/query.js';
import { formErrors, type FieldErrors } from './forms.js';
import { html, type Html } from './html.js';
import { csrfField, dashboardPage, sendPage } from './layout.js';
import { bodyOfForm, schemaFields, type Leaf } from './schema-form.js';

// The pages of a resource the API creates, reads, replaces and deletes (tools, playbooks): a list, a form made from its
// schema for a new one, the same form for an existing one, and deletion, each calling the module's own functions, so a
// refusal is the API's 422 at its field. A resource adds its own section under its form (a tool's test).

interface Named {
  id: number;
  name: string;
}

export interface ResourcePages<T extends Named> {
  /** `/tools`: the list's path; items live at `/tools/{id}`. */
  path: string;
  title: string;
  /** The singular, for headings and buttons: "tool". */
  noun: string;
  /** What the list says when there is nothing in it. */
  empty: string;
  leaves: Leaf[];
  /** A new item's values, every default filled in. */
  defaults: Record<string, unknown>;
  columns: string[];
  cells: (item: T) => Html[];
  list: (organizationId: number) => Promise<T[]>;
  get: (organizationId: number, id: number) => Promise<T>;
  create: (organizationId: number, body: Record<string, unknown>) => Promise<T>;
  update: (organizationId: number, id: number, body: Record<string, unknown>) => Promise<T>;
  remove: (organizationId: number, id: number) => Promise<void>;
  /** A section under an item's form: its test, its runs. */
  extra?: (request: FastifyRequest, item: T) => Promise<Html>;
  /** Extra routes under an item (`/tools/{id}/test`), given the page's renderer. */
  routes?: (
    app: FastifyInstance,
    render: (request: FastifyRequest, reply: FastifyReply, id: number, extra: { notice?: Html; status?: number }) => Promise<FastifyReply>,
  ) => void;
}

/** An item's id in its path, as every route under an item validates it. */
export const ItemParams = z.object({ item_id: idParam });
const Params = ItemParams;
const session = { auth: 'session' as const };

export function registerResourcePages<T extends Named>(app: FastifyInstance, spec: ResourcePages<T>): void {
  app.get(spec.path, { config: session }, async (request, reply) => {
    const items = await spec.list(request.signedIn!.organizationId);
    const body = html`<div class="actions"><a class="button" href="${spec.path}/new">New ${spec.noun}</a></div><br>
${
  items.length === 0
    ? html`<div class="card empty">${spec.empty}</div>`
    : html`<div class="table-wrap"><table><thead><tr><th>Name</th>${spec.columns.map((c) => html`<th>${c}</th>`)}</tr></thead><tbody>${items.map(
        (item) => html`<tr><td><a href="${spec.path}/${item.id}">${item.name}</a></td>${spec.cells(item).map((c) => html`<td>${c}</td>`)}</tr>`,
      )}</tbody></table></div>`
}`;
    return sendPage(reply, dashboardPage(request, spec.title, body));
  });

  async function form(
    request: FastifyRequest,
    reply: FastifyReply,
    item: T | null,
    value: unknown,
    errors: FieldErrors = {},
    options: { status?: number; notice?: Html } = {},
  ) {
    const count = Object.keys(errors).length;
    const body = html`${options.notice ?? ''}${count > 0 ? html`<div class="notice bad" role="alert">${errors[''] ?? `The API refused ${count === 1 ? 'one setting' : `${count} settings`}: see the marked fields.`}</div>` : ''}
<p><a href="${spec.path}">← All</a></p>
<form method="post" action="${item ? `${spec.path}/${item.id}` : spec.path}" novalidate>${csrfField(request)}${schemaFields(spec.leaves, value, errors)}
<div class="actions"><button type="submit">${item ? 'Save' : `Create ${spec.noun}`}</button></div></form>
${item ? html`${spec.extra ? await spec.extra(request, item) : ''}<form method="post" action="${spec.path}/${item.id}/delete">${csrfField(request)}<button class="danger" type="submit" data-confirm="Delete this ${spec.noun}?">Delete ${spec.noun}</button></form>` : ''}`;
    return sendPage(reply, dashboardPage(request, item ? item.name : `New ${spec.noun}`, body), options.status ?? 200);
  }

  const idOf = (request: FastifyRequest) => (request.params as z.output<typeof Params>).item_id;
  const render = async (request: FastifyRequest, reply: FastifyReply, id: number, extra: { notice?: Html; status?: number }) => {
    const item = await spec.get(request.signedIn!.organizationId, id);
    return form(request, reply, item, item, {}, extra);
  };

  app.get(`${spec.path}/new`, { config: session }, async (request, reply) => form(request, reply, null, spec.defaults));

  app.post(spec.path, { config: session }, async (request, reply) => {
    const body = bodyOfForm(spec.leaves, request.body as Record<string, unknown>);
    try {
      const item = await spec.create(request.signedIn!.organizationId, body);
      return reply.redirect(`${spec.path}/${item.id}`);
    } catch (error) {
      return form(request, reply, null, { ...spec.defaults, ...body }, formErrors(error), { status: 422 });
    }
  });

  app.get(`${spec.path}/:item_id`, { config: session, schema: { params: Params } }, async (request, reply) => render(request, reply, idOf(request), {}));

  app.post(`${spec.path}/:item_id`, { config: session, schema: { params: Params } }, async (request, reply) => {
    const organizationId = request.signedIn!.organizationId;
    const body = bodyOfForm(spec.leaves, request.body as Record<string, unknown>);
    try {
      await spec.update(organizationId, idOf(request), body);
    } catch (error) {
      if (error instanceof AppError && error.kind === 'not_found') throw error;
      const item = await spec.get(organizationId, idOf(request));
      return form(request, reply, item, { ...item, ...body }, formErrors(error), { status: 422 });
    }
    return render(request, reply, idOf(request), { notice: html`<div class="notice" role="status">Saved.</div>` });
  });

  app.post(`${spec.path}/:item_id/delete`, { config: session, schema: { params: Params } }, async (request, reply) => {
    await spec.remove(request.signedIn!.organizationId, idOf(request));
    return reply.redirect(spec.path);
  });

  spec.routes?.(app, render);
}
