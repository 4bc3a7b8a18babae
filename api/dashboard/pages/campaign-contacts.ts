import type { FastifyRequest } from 'fastify';
import type { FieldErrors } from '../forms.js';
import { html, type Html } from '../html.js';
import { csrfField } from '../layout.js';

// The three ways the API adds contacts to a draft or paused campaign, as forms of its page: a CSV file (the campaign
// import), the contacts a search finds (add-by-filter), and contacts by id (add-by-ids).

/**
 * The ids typed in the form as the API's `contact_ids`: separated by commas, spaces or lines; whole numbers as numbers,
 * anything else passed on as typed so the API's validation refuses it at its place in the list.
 */
export function idsOfForm(raw: unknown): unknown[] {
  return String(raw ?? '')
    .split(/[\s,]+/)
    .filter((s) => s !== '')
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/** The first refusal of the list or of one of its ids (`contact_ids.2`), with where it is. */
function idsError(errors: FieldErrors | undefined): string | undefined {
  const key = Object.keys(errors ?? {}).find((k) => k === 'contact_ids' || k.startsWith('contact_ids.'));
  if (key === undefined) return undefined;
  const at = key.slice('contact_ids.'.length);
  return at ? `Id ${Number(at) + 1} in the list: ${errors![key]}` : errors![key];
}

export function addContactsForms(request: FastifyRequest, campaignId: number, errors: FieldErrors | undefined): Html {
  const error = idsError(errors);
  return html`<form method="post" action="/campaigns/${campaignId}/contacts" class="card"><h2>Add contacts</h2>${csrfField(request)}
<p class="hint">A CSV file as the contacts import takes it (a header row of contact fields and custom property keys), plus <code>var.&lt;name&gt;</code> columns for each contact's <code>{{var.*}}</code> in this campaign. Contacts without a phone number are not added.</p>
<label for="c-file">File</label><input id="c-file" type="file" accept=".csv,text/csv" data-into="c-csv">
<label for="c-csv">Or paste it</label><textarea id="c-csv" name="csv" rows="5"></textarea>
<div class="actions"><button class="secondary" type="submit">Add contacts</button></div></form>
<form method="post" action="/campaigns/${campaignId}/contacts/matching" class="card"><h2>Add existing contacts</h2>${csrfField(request)}
<div class="row"><div><label for="c-q">Matching <span class="hint">a search of the contacts list; empty for every contact with a phone number</span></label><input id="c-q" name="q" type="search"></div>
<div class="fit"><button class="secondary" type="submit">Add matching contacts</button></div></div></form>
<form method="post" action="/campaigns/${campaignId}/contacts/ids" class="card"><h2>Add contacts by id</h2>${csrfField(request)}
<label for="c-ids">Contact ids <span class="hint" id="c-ids-hint">separated by commas, spaces or lines; contacts without a phone number are not added</span></label>
<textarea id="c-ids" name="contact_ids" rows="2" aria-describedby="c-ids-hint${error ? ' c-ids-error' : ''}"${error ? html` aria-invalid="true"` : ''}></textarea>
${error ? html`<div class="error" id="c-ids-error">${error}</div>` : ''}
<div class="actions"><button class="secondary" type="submit">Add these contacts</button></div></form>`;
}
