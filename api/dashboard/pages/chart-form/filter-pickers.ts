import type { FieldErrors } from '../../forms.js';
import { html, type Html } from '../../html.js';
import { errorLine, idOf, type Marks } from '../../form-marks.js';
import { numberInWords } from '../campaign-form/pickers.js';
import { boxes, inputRow } from './controls.js';
import type { ChartFormValues } from './form-fields.js';
import { DIRECTION_WORDS, END_REASON_WORDS, inWords, KNOWN_END_REASONS, STATUS_WORDS, STATUSES, TRANSPORT_WORDS, DIRECTIONS, TRANSPORTS } from './labels.js';
import { type ChartChoices, FOUND_AT_MOST } from './pickers.js';
import { MOST_VALUES } from './schema-facts.js';

// "Which calls": each filter of the API a list of boxes. Call states, directions and carriers in words; the
// organisation's assistants, campaigns and numbers by name; end reasons by what they mean, with a line for one the list
// lacks; numbers with a line for any other (a caller's); contacts found by a search, which the form runs when its button
// is pressed (a plain post, so it needs no script), keeping everything else as typed.

const ours = (what: string) => (value: string) => ({ value, label: `${what} ${value}`, note: 'not one of this organisation’s' });

function contactsPicker(values: ChartFormValues, choices: ChartChoices, marks: Marks): Html {
  const chosen = values.filters.contact_id;
  const ticked = chosen.map((v) => {
    const c = choices.contacts.get(Number(v));
    return c ? { value: v, label: c.name, note: c.note } : ours('Contact')(v);
  });
  const found = (choices.found ?? []).filter((c) => !chosen.includes(String(c.id))).map((c) => ({ value: String(c.id), label: c.name, note: c.note }));
  const search = values.fields.contact_search;
  const searchId = idOf('contact_search');
  const outcome =
    choices.found === undefined
      ? ''
      : choices.found.length === 0
        ? html`<p class="hint" role="status">No contacts match “${search}”.</p>`
        : html`<p class="hint" role="status">${choices.found.length} found for “${search}”${choices.found.length === FOUND_AT_MOST ? ', the first shown: narrow the search to see others' : ''}. Tick those to count.</p>`;
  return boxes({
    key: 'filters.contact_id',
    name: 'filters.contact_id',
    legend: 'Contacts',
    hint: 'Find contacts by name, phone or email, then tick them.',
    options: [...ticked, ...found],
    chosen,
    marks,
    className: 'contacts-picker',
    after: html`${outcome}<div class="contact-search"><label for="${searchId}">Find contacts</label><div class="search-line"><input id="${searchId}" name="contact_search" type="search" value="${search}" placeholder="Name, phone or email" autocomplete="off" data-contact-search><button type="submit" name="intent" value="find" class="secondary" data-find-contacts>Find</button></div>${errorLine(searchId, marks.at('contact_search'))}</div>`,
  });
}

function typedLine(name: 'end_reason' | 'phone_number', label: string, hint: string, values: ChartFormValues, marks: Marks): Html {
  const key = `filters.${name}.other` as const;
  return inputRow({ key, label, value: values.fields[key], marks, hint, attrs: html` autocomplete="off" spellcheck="false"` });
}

export function filtersSection(values: ChartFormValues, choices: ChartChoices, marks: Marks, errors: FieldErrors): Html {
  const f = values.filters;
  const reasonsTicked =
    f.end_reason.length > 0 || values.fields['filters.end_reason.other'] !== '' || Object.keys(errors).some((k) => k.startsWith('filters.end_reason'));
  const numbers = choices.numbers.map((n) => ({ value: n.number, label: numberInWords(n.number), note: n.label ?? undefined }));
  const empty = (what: string, link: string, text: string) => html`<p class="muted">No ${what} yet. <a href="${link}">${text}</a></p>`;
  return html`<fieldset class="card chart-section" id="filters"><legend>Which calls</legend><p class="muted intro">Nothing ticked in a list: every call. Boxes of one list add up (this or that); different lists narrow (this and that). ${MOST_VALUES} at most a list.</p>${errorLine(idOf('filters'), marks.at('filters'))}
<div class="settings">${boxes({ key: 'filters.status', name: 'filters.status', legend: 'Status', options: STATUSES.map((s) => ({ value: s, label: inWords(s, STATUS_WORDS) })), chosen: f.status, marks, className: 'columns' })}
${boxes({ key: 'filters.direction', name: 'filters.direction', legend: 'Direction', options: DIRECTIONS.map((d) => ({ value: d, label: inWords(d, DIRECTION_WORDS) })), chosen: f.direction, marks })}
${boxes({ key: 'filters.transport', name: 'filters.transport', legend: 'How the call was carried', options: TRANSPORTS.map((t) => ({ value: t, label: inWords(t, TRANSPORT_WORDS) })), chosen: f.transport, marks })}
${boxes({
  key: 'filters.assistant_id',
  name: 'filters.assistant_id',
  legend: 'Assistants',
  options: choices.assistants.map((a) => ({ value: String(a.id), label: a.name, note: a.note })),
  chosen: f.assistant_id,
  marks,
  unknown: ours('Assistant'),
  className: 'columns',
  after: choices.assistants.length === 0 ? empty('assistants', '/assistants/new', 'Create an assistant') : undefined,
})}
${boxes({
  key: 'filters.campaign_id',
  name: 'filters.campaign_id',
  legend: 'Campaigns',
  options: choices.campaigns.map((c) => ({ value: String(c.id), label: c.name, note: c.note })),
  chosen: f.campaign_id,
  marks,
  unknown: ours('Campaign'),
  className: 'columns',
  after: choices.campaigns.length === 0 ? html`<p class="muted">No campaigns yet.</p>` : undefined,
})}
${boxes({
  key: 'filters.phone_number',
  name: 'filters.phone_number',
  legend: 'Phone numbers',
  hint: 'A call counts when it came from or went to a number ticked or typed.',
  options: numbers,
  chosen: f.phone_number,
  marks,
  unknown: (v) => ({ value: v, label: numberInWords(v) }),
  className: 'columns',
  after: typedLine('phone_number', 'Other numbers', 'A caller’s number, in international form: +14155550123. Separate several with commas.', values, marks),
})}
<details class="setting wide reasons"${reasonsTicked ? html` open` : ''}><summary>Why the call ended${f.end_reason.length > 0 ? ` (${f.end_reason.length} ticked)` : ''}</summary>
${boxes({
  key: 'filters.end_reason',
  name: 'filters.end_reason',
  legend: 'End reasons',
  options: KNOWN_END_REASONS.map((r) => ({ value: r, label: inWords(r, END_REASON_WORDS) })),
  chosen: f.end_reason,
  marks,
  className: 'columns',
  after: typedLine('end_reason', 'Other end reasons', 'As the call’s end reason reads, such as sip_error. Separate several with commas.', values, marks),
})}</details>
${contactsPicker(values, choices, marks)}</div></fieldset>`;
}
