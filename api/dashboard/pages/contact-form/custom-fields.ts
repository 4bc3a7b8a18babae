import { DateTime } from 'luxon';
import { ValidationFailed, type ValidationDetail } from '../../../../lib/errors.js';
import { canonicalTimeZone, type ContactPropertyOut } from '../../../../modules/contacts/index.js';
import { errorsOfDetail, formErrors, type FieldErrors } from '../../forms.js';
import { friendlyMessage } from '../../friendly-errors.js';
import { html, type Html } from '../../html.js';
import { aria, errorLine } from '../campaign-form/controls.js';

// A contact's custom fields, one control per property the organisation defined, labelled with the property's label
// and typed as it is: a line of text, a number, a date, a date and time, a switch, a select of its options. Each posts
// as `cf.<key>`; the text is handed to the contact service, which coerces it to the property's type exactly as it
// does an API request's or an import's, so a refusal is its own, shown at the control in plain words.

export type Property = Pick<ContactPropertyOut, 'key' | 'label' | 'type' | 'options'>;

/** The name a property's control posts under. */
export const fieldOf = (key: string): string => `cf.${key}`;
const idOf = (key: string): string => `f-cf-${key}`;
const LOCAL = "yyyy-LL-dd'T'HH:mm";

// A posted field is a string, a list of strings when repeated, or (from a hand-made request) anything at all.
const texts = (v: unknown): string[] => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

/** The zone a date and time is typed in: the contact's own, or UTC while it has none. */
export const zoneOf = (timezone: unknown): string => (typeof timezone === 'string' && canonicalTimeZone(timezone)) || 'UTC';

/** The controls filled from stored values; a date and time shown on the contact's clock. */
export function valuesOfContact(properties: readonly Property[], stored: Record<string, unknown>, zone: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const p of properties) {
    const value = stored[p.key];
    if (value === undefined || value === null) values[p.key] = '';
    else if (p.type === 'datetime' && typeof value === 'string') {
      const at = DateTime.fromISO(value, { setZone: true }).setZone(zone);
      values[p.key] = at.isValid ? at.toFormat(LOCAL) : value;
    } else values[p.key] = String(value);
  }
  return values;
}

/** The controls as posted: a switch posts its marker then "true" when on, so the last one counts. */
export function valuesOfPost(properties: readonly Property[], posted: unknown): Record<string, string> {
  const form = posted !== null && typeof posted === 'object' && !Array.isArray(posted) ? (posted as Record<string, unknown>) : {};
  const values: Record<string, string> = {};
  for (const p of properties) {
    const sent = texts(form[fieldOf(p.key)]);
    values[p.key] = (p.type === 'boolean' ? sent.at(-1) : sent[0]) ?? '';
  }
  return values;
}

/**
 * `custom_fields` for the contact service. An empty control is no value: left out of a new contact, removed (null)
 * from a stored one. A switch never set and left off stays unset; once set, off is "no".
 */
export function customFieldsBody(
  properties: readonly Property[],
  values: Record<string, string>,
  o: { update: boolean; zone: string },
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const p of properties) {
    const typed = values[p.key] ?? '';
    if (p.type === 'boolean') {
      // Anything but the switch's own two values (a hand-made post) goes as sent, for the service to refuse.
      if (typed !== '') body[p.key] = typed === 'true' ? true : typed === 'false' ? false : typed;
      continue;
    }
    if (typed.trim() === '') {
      if (o.update) body[p.key] = null;
      continue;
    }
    if (p.type === 'datetime') {
      const at = DateTime.fromISO(typed.trim(), { zone: o.zone });
      // A date and time typed with its own offset, or text that is none, goes as typed: the API takes the one, refuses the other.
      body[p.key] = at.isValid && /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?$/.test(typed.trim()) ? at.toISO({ suppressMilliseconds: true }) : typed;
    } else {
      body[p.key] = typed;
    }
  }
  return body;
}

const TYPE_WORDS: Record<string, string> = {
  number: 'Give a number, such as 42 or 3.5.',
  date: 'Pick a date.',
  datetime: 'Pick a date and a time.',
  boolean: 'Choose yes or no.',
  select: 'Pick one of the choices.',
};

/** A refusal of one custom field in the form's words: what its control takes, not the API's sentence. */
function inWords(property: Property | undefined, d: Pick<ValidationDetail, 'msg' | 'type'>): string {
  if (!property) return 'This organisation has no custom property of this name.';
  if (property.type === 'text') return friendlyMessage(d);
  return TYPE_WORDS[property.type] ?? friendlyMessage(d);
}

/** A contact service's refusal for the contact form: custom fields at their controls (`cf.<key>`), the rest by field. */
export function contactRefusal(error: unknown, properties: readonly Property[]): FieldErrors {
  if (!(error instanceof ValidationFailed)) return formErrors(error);
  const byKey = new Map(properties.map((p) => [p.key, p]));
  const errors: FieldErrors = {};
  const rest: ValidationDetail[] = [];
  for (const d of error.detail) {
    const path = d.loc[0] === 'body' ? d.loc.slice(1) : d.loc;
    if (path[0] === 'custom_fields' && path.length > 1) errors[fieldOf(String(path[1]))] ??= inWords(byKey.get(String(path[1])), d);
    else rest.push(d);
  }
  return { ...errorsOfDetail(rest), ...errors };
}

function control(p: Property, value: string, error: string | undefined, zone: string): Html {
  const id = idOf(p.key);
  const name = fieldOf(p.key);
  const hints: Record<string, string> = {
    text: '',
    number: 'A number.',
    date: '',
    datetime: `On the contact’s clock: ${zone}.`,
    select: '',
    boolean: '',
  };
  const hint = hints[p.type] ?? '';
  const described = aria(id, hint !== '', error);
  const hintLine = hint ? html`<span class="hint" id="${id}-hint">${hint}</span>` : '';
  const label = html`<label for="${id}">${p.label}</label>`;
  if (p.type === 'boolean') {
    // The marker says whether a value was stored: off then means "no"; never set and left off, it stays unset.
    const marker = value === '' ? '' : 'false';
    return html`<div class="setting switch-row"><input type="hidden" name="${name}" value="${marker}"><input type="checkbox" role="switch" class="switch" id="${id}" name="${name}" value="true"${value === 'true' ? html` checked` : ''}${described}>${label}${value === '' ? html`<span class="hint">Not set</span>` : ''}${errorLine(id, error)}</div>`;
  }
  if (p.type === 'select') {
    const options = p.options ?? [];
    // A value the options lack (text a hand-made post sent) is kept, so the refusal beside it makes sense.
    const unlisted = value !== '' && !options.includes(value) ? html`<option selected>${value}</option>` : '';
    return html`<div class="setting">${label}<select id="${id}" name="${name}"${described}><option value=""${value === '' ? html` selected` : ''}>Not set</option>${unlisted}${options.map(
      (o) => html`<option${o === value ? html` selected` : ''}>${o}</option>`,
    )}</select>${hintLine}${errorLine(id, error)}</div>`;
  }
  const type = p.type === 'number' ? 'number' : p.type === 'date' ? 'date' : p.type === 'datetime' ? 'datetime-local' : 'text';
  const extra = p.type === 'number' ? html` step="any" inputmode="decimal"` : p.type === 'text' ? html` maxlength="2000"` : '';
  return html`<div class="setting">${label}<input id="${id}" name="${name}" type="${type}" value="${value}"${extra}${described}>${hintLine}${errorLine(id, error)}</div>`;
}

/** The custom fields' card: a control per property, or where properties are made when there are none. */
export function customFieldsSection(properties: readonly Property[], values: Record<string, string>, errors: FieldErrors, zone: string): Html {
  const known = new Set(properties.map((p) => fieldOf(p.key)));
  // A refusal of a key no control has (a hand-made post) is said at the top of the card, so none goes unseen.
  const stray = Object.entries(errors).filter(([k]) => k.startsWith('cf.') && !known.has(k));
  const whole = errors.custom_fields;
  const body =
    properties.length === 0
      ? html`<p class="muted">No custom properties yet. <a href="/contacts/properties/new">Add a property</a> to keep your own fields on contacts, such as a plan or a renewal date.</p>`
      : html`<div class="settings">${properties.map((p) => control(p, values[p.key] ?? '', errors[fieldOf(p.key)], zone))}</div>`;
  return html`<fieldset class="card custom-fields" id="custom-fields"><legend>Custom fields</legend><p class="muted intro">The organisation’s own fields (<a href="/contacts/properties">properties</a>), read in templates as <code>{{contact.&lt;key&gt;}}</code>. Empty is no value.</p>${
    whole ? html`<div class="error" role="alert">${whole}</div>` : ''
  }${stray.length > 0 ? html`<ul class="error">${stray.map(([k, m]) => html`<li><code>${k.slice(3)}</code>: ${m}</li>`)}</ul>` : ''}${body}</fieldset>`;
}
