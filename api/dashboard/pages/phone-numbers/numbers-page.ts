import type { FastifyRequest } from 'fastify';
import { connectionWarnings, listPhoneNumbers } from '../../../../modules/telephony/index.js';
import { field, formError, type FieldErrors } from '../../forms.js';
import { html, type Html } from '../../html.js';
import { csrfField, dashboardPage } from '../../layout.js';
import type { DashboardDeps } from '../../deps.js';
import { connectionInputs, KIND_FORMS, kindTitle, type Kind } from './connection-forms.js';
import { allConnections, assistantChoices, type AssistantChoice, type Connection } from './directory.js';

// The organisation's numbers, each with the assistant that answers it (changed in its row), and the carrier
// connections they belong to. A refused form comes back with what was typed and the API's message at its field.

export const NUMBERS_PER_PAGE = 50;

export interface NumbersPageState {
  page: number;
  notice?: string | undefined;
  /** A refusal that concerns no form of the page (a connection of a kind the page does not offer). */
  alert?: string | undefined;
  /** The add-a-number form as posted, and what the API refused in it. */
  number?: { values: Record<string, unknown>; errors: FieldErrors };
  /** The add-a-connection form of one kind as posted, and what the API refused in it. */
  connection?: { kind: Kind; values: Record<string, unknown>; errors: FieldErrors };
  /** A number's assistant change the API refused. */
  row?: { id: number; values: Record<string, unknown>; errors: FieldErrors };
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The fields the API refused, said once above the form; each message is at its field. */
function refusedNotice(errors: FieldErrors | undefined): Html {
  if (!errors || Object.keys(errors).length === 0) return html``;
  return errors[''] ? formError(errors) : html`<div class="notice bad" role="alert">Not added: see the marked fields.</div>`;
}

function selectRow(o: { id: string; name: string; label: string; hint?: string; options: Html; error?: string | undefined }): Html {
  const described = [o.hint ? `${o.id}-hint` : '', o.error ? `${o.id}-error` : ''].filter(Boolean).join(' ');
  return html`<label for="${o.id}">${o.label}${o.hint ? html` <span class="hint" id="${o.id}-hint">${o.hint}</span>` : ''}</label>
<select id="${o.id}" name="${o.name}"${described ? html` aria-describedby="${described}"` : ''}${o.error ? html` aria-invalid="true"` : ''}>${o.options}</select>
${o.error ? html`<div class="error" id="${o.id}-error">${o.error}</div>` : ''}`;
}

/** The assistants by name, "none" first; an id the list does not hold (a hand-made post) is kept, named as such. */
export function assistantOptions(choices: AssistantChoice[], current: string): Html {
  const known = current === '' || choices.some((a) => String(a.id) === current);
  return html`<option value=""${current === '' ? html` selected` : ''}>No assistant: calls are not answered</option>${choices.map(
    (a) => html`<option value="${a.id}"${String(a.id) === current ? html` selected` : ''}>${a.label}</option>`,
  )}${known ? '' : html`<option value="${current}" selected>Not one of your assistants</option>`}`;
}

function numbersTable(request: FastifyRequest, state: NumbersPageState, numbers: NumberRow[], names: Map<number, string>, choices: AssistantChoice[]): Html {
  // A change brings the person back to the page of numbers they were on.
  const pageQuery = state.page > 1 ? `?page=${state.page}` : '';
  return html`<div class="table-wrap"><table class="numbers"><thead><tr><th>Number</th><th class="hide-phone">Connection</th><th>Answered by</th><th><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${numbers.map(
    (n) => {
      const refused = state.row?.id === n.id ? state.row : undefined;
      const current = refused ? text(refused.values.assistant_id) : n.assistant_id === null ? '' : String(n.assistant_id);
      const error = refused ? (refused.errors.assistant_id ?? refused.errors[''] ?? Object.values(refused.errors)[0]) : undefined;
      const id = `answer-${n.id}`;
      return html`<tr><td class="number"><strong>${n.number}</strong>${n.label ? html`<br><span class="muted">${n.label}</span>` : ''}</td>
<td class="hide-phone">${names.get(n.phone_connection_id) ?? ''}</td>
<td class="answer"><form method="post" action="/phone-numbers/${n.id}/assistant${pageQuery}" class="role-form">${csrfField(request)}<label class="visually-hidden" for="${id}">Assistant answering ${n.number}</label><select id="${id}" name="assistant_id"${error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}>${assistantOptions(choices, current)}</select><button class="secondary" type="submit">Change<span class="visually-hidden"> the assistant of ${n.number}</span></button>${error ? html`<div class="error" id="${id}-error">${error}</div>` : ''}</form></td>
<td><form method="post" action="/phone-numbers/${n.id}/delete${pageQuery}" class="inline">${csrfField(request)}<button class="danger" type="submit" data-confirm="Remove ${n.number}? Its calls are no longer answered here; past calls keep their records.">Remove<span class="visually-hidden"> ${n.number}</span></button></form></td></tr>`;
    },
  )}</tbody></table></div>`;
}

function addNumberForm(request: FastifyRequest, state: NumbersPageState, connections: Connection[], choices: AssistantChoice[]): Html {
  const values = state.number?.values ?? {};
  const errors = state.number?.errors;
  const connectionId = text(values.phone_connection_id);
  return html`<form method="post" action="/phone-numbers" class="card" novalidate><h2>Add a number</h2>${csrfField(request)}${refusedNotice(errors)}
<p class="hint">A number you have at your carrier. Calls to it are answered by the assistant you pick, which is also the one that speaks on calls made from it.</p>
<div class="row"><div>${field({ name: 'number', label: 'Number', value: text(values.number), errors, hint: 'with its country code, e.g. +14155550100', autocomplete: 'off' })}</div>
<div>${field({ name: 'label', label: 'Label', value: text(values.label), errors, hint: 'optional, e.g. Support line' })}</div></div>
<div class="row"><div>${selectRow({
    id: 'f-phone_connection_id',
    name: 'phone_connection_id',
    label: 'Connection',
    hint: 'where your carrier has it',
    options: html`${connections.map((c) => html`<option value="${c.id}"${String(c.id) === connectionId ? html` selected` : ''}>${c.name} · ${kindTitle(c.kind)}</option>`)}${
      connectionId !== '' && !connections.some((c) => String(c.id) === connectionId)
        ? html`<option value="${connectionId}" selected>Not one of your connections</option>`
        : ''
    }`,
    error: errors?.phone_connection_id,
  })}</div>
<div>${selectRow({
    id: 'f-assistant_id',
    name: 'assistant_id',
    label: 'Answered by',
    options: assistantOptions(choices, text(values.assistant_id)),
    error: errors?.assistant_id,
  })}${choices.length === 0 ? html`<p class="hint">No assistants yet: <a href="/assistants/new">create one</a>, then pick it here or in the number’s row.</p>` : ''}</div></div>
<div class="actions"><button type="submit">Add number</button></div></form>`;
}

function connectionsTable(request: FastifyRequest, connections: Connection[]): Html {
  return html`<div class="table-wrap"><table class="connections"><thead><tr><th>Name</th><th>Details</th><th class="hide-phone">Numbers</th><th><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${connections.map(
    (c) => {
      const secret =
        c.kind === 'twilio' ? html`Auth token ${c.auth_token !== null ? 'set' : 'not set'}` : html`Password ${c.password !== null ? 'set' : 'not set'}`;
      const detail =
        c.kind === 'twilio'
          ? html`<code>${c.account_sid ?? ''}</code>`
          : html`<code>${c.sip_address ?? ''}</code> · ${(c.sip_transport ?? 'udp').toUpperCase()}${c.livekit_trunk_id ? html` · LiveKit trunk <code>${c.livekit_trunk_id}</code>` : ''}`;
      const numbers = c.numbers.length === 1 ? '1 number' : `${c.numbers.length} numbers`;
      return html`<tr><td><a href="/phone-numbers/connections/${c.id}">${c.name}</a><br><span class="muted">${kindTitle(c.kind)}</span></td>
<td class="detail">${detail}<br><span class="muted">${secret}</span></td><td class="hide-phone">${numbers}</td>
<td><form method="post" action="/phone-numbers/connections/${c.id}/delete" class="inline">${csrfField(request)}<button class="danger" type="submit" data-confirm="Remove the connection ${c.name}${c.numbers.length > 0 ? ` and its ${numbers}` : ''}? Past calls keep their records.">Remove<span class="visually-hidden"> ${c.name}</span></button></form></td></tr>`;
    },
  )}</tbody></table></div>`;
}

/** The warnings the API gives each connection: what will make its calls fail. */
export function warningsOf(connections: Connection[], publicUrl: string | undefined): Html {
  return html`${connections.flatMap((c) =>
    connectionWarnings(c.kind, publicUrl).map((w) => html`<div class="notice warn"><strong>${c.name}:</strong> ${w}</div>`),
  )}`;
}

function addConnectionForms(request: FastifyRequest, state: NumbersPageState): Html {
  return html`<div class="connection-forms">${KIND_FORMS.map((kind) => {
    const posted = state.connection?.kind === kind.kind ? state.connection : undefined;
    return html`<form method="post" action="/phone-numbers/connections" class="card" novalidate><h3>${kind.title}</h3>${csrfField(request)}<input type="hidden" name="kind" value="${kind.kind}">
<p class="hint">${kind.intro}</p>${refusedNotice(posted?.errors)}${connectionInputs(kind, { values: posted?.values ?? {}, errors: posted?.errors })}
<div class="actions"><button type="submit">Add ${kind.title}</button></div></form>`;
  })}</div>`;
}

type NumberRow = Awaited<ReturnType<typeof listPhoneNumbers>>['data'][number];

export async function numbersPage(request: FastifyRequest, deps: DashboardDeps, state: NumbersPageState): Promise<Html> {
  const org = request.signedIn!.organizationId;
  const [numbers, connections, choices] = await Promise.all([
    listPhoneNumbers(deps.prisma, org, state.page, NUMBERS_PER_PAGE),
    allConnections(deps, org),
    assistantChoices(deps, org),
  ]);
  const names = new Map(connections.map((c) => [c.id, c.name]));
  const pages = Math.ceil(numbers.total / NUMBERS_PER_PAGE);
  // Without a connection no number can be added, so the one empty state says where to start (a number posted anyway
  // is shown with its refusal).
  const numbersSection =
    connections.length === 0
      ? html`<div class="card empty"><p>No phone numbers yet.</p><p>Numbers come from your carrier: first add the connection to it below (a Twilio account or a SIP trunk), then add each number you have there and pick the assistant that answers it.</p></div>${
          state.number ? addNumberForm(request, state, connections, choices) : ''
        }`
      : html`${
          numbers.total === 0
            ? html`<div class="card empty">No phone numbers yet. Add one below: the number as your carrier has it, and the assistant that answers it.</div>`
            : html`${numbersTable(request, state, numbers.data, names, choices)}${
                pages > 1
                  ? html`<p>${numbers.total} numbers. ${state.page > 1 ? html`<a href="/phone-numbers?page=${state.page - 1}">Previous</a>` : ''} ${state.page < pages ? html`<a href="/phone-numbers?page=${state.page + 1}">Next</a>` : ''}</p>`
                  : ''
              }`
        }${addNumberForm(request, state, connections, choices)}`;
  return dashboardPage(
    request,
    'Phone numbers',
    html`${state.notice ? html`<div class="notice" role="status">${state.notice}</div>` : ''}${state.alert ? html`<div class="notice bad" role="alert">${state.alert}</div>` : ''}
${numbersSection}
<h2>Connections</h2>
<p class="hint">Your accounts at carriers: each number belongs to one, and calls to and from it go through it.</p>
${warningsOf(connections, deps.publicUrl)}${connections.length > 0 ? connectionsTable(request, connections) : ''}
${
  // Once there is a connection, adding another is the rarer task: folded away unless a refused one is being shown.
  connections.length === 0
    ? html`<h2>Add a connection</h2>${addConnectionForms(request, state)}`
    : html`<details class="add-connection"${state.connection ? html` open` : ''}><summary>Add a connection</summary>${addConnectionForms(request, state)}</details>`
}`,
  );
}
