import type { FastifyRequest } from 'fastify';
import { getPhoneConnection } from '../../../../modules/telephony/index.js';
import { formError, type FieldErrors } from '../../forms.js';
import { html, type Html } from '../../html.js';
import { csrfField, dashboardPage } from '../../layout.js';
import type { DashboardDeps } from '../../deps.js';
import { connectionInputs, kindForm, kindTitle } from './connection-forms.js';
import { warningsOf } from './numbers-page.js';

// One connection: its details changed as PATCH /api/phone-connections/{id} changes them (a new auth token or password
// typed in replaces the stored one; left empty, it is kept), and removed with its numbers.

export interface ConnectionPageState {
  notice?: string | undefined;
  values?: Record<string, unknown>;
  errors?: FieldErrors;
}

export async function connectionPage(request: FastifyRequest, deps: DashboardDeps, id: number, state: ConnectionPageState = {}): Promise<Html> {
  const connection = await getPhoneConnection(deps.prisma, deps.secrets, request.signedIn!.organizationId, id);
  const kind = kindForm(connection.kind);
  const stored = connection as unknown as Record<string, unknown>;
  // What is stored, as the form shows it: every detail but the secrets, which are only said to be set.
  const values =
    state.values ??
    Object.fromEntries((kind?.fields ?? []).filter((f) => !f.secret).map((f) => [f.name, typeof stored[f.name] === 'string' ? stored[f.name] : '']));
  const errors = state.errors;
  const refused =
    errors && Object.keys(errors).length > 0
      ? errors['']
        ? formError(errors)
        : html`<div class="notice bad" role="alert">Not saved: see the marked fields.</div>`
      : '';
  const numbers = connection.numbers;
  return dashboardPage(
    request,
    connection.name,
    html`<p><a href="/phone-numbers">← Phone numbers</a></p>${state.notice ? html`<div class="notice" role="status">${state.notice}</div>` : ''}${warningsOf([connection], deps.publicUrl)}
<div class="card"><dl class="facts"><dt>Kind</dt><dd>${kindTitle(connection.kind)}</dd><dt>Numbers</dt><dd>${numbers.length > 0 ? numbers.join(', ') : html`none yet: <a href="/phone-numbers">add one</a>`}</dd></dl></div>
${
  kind
    ? html`<form method="post" action="/phone-numbers/connections/${connection.id}" class="card" novalidate><h2>Details</h2>${csrfField(request)}${refused}
<p class="hint">${kind.intro}</p>${connectionInputs(kind, { values, errors, stored: connection })}
<div class="actions"><button type="submit">Save</button><a href="/phone-numbers">Cancel</a></div></form>`
    : ''
}
<form method="post" action="/phone-numbers/connections/${connection.id}/delete">${csrfField(request)}<button class="danger" type="submit" data-confirm="Remove the connection ${connection.name}${numbers.length > 0 ? ` and its ${numbers.length === 1 ? 'number' : `${numbers.length} numbers`}` : ''}? Past calls keep their records.">Remove connection</button></form>`,
  );
}
