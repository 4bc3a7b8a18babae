import { html, type Html } from '../../html.js';
import { LEAF } from './schema-facts.js';
import { PERCENT } from './form-fields.js';
import { aria, errorLine, idOf, type Marks } from '../../form-marks.js';

// The campaign form's controls: a label in people's words, the unit beside the input, the default and bounds in the
// hint, the API's refusal under it and tied to it for screen readers. Every control reads its refusal from one
// `Marks`, which remembers what it showed, so a refusal no control claims still reaches the page's notice.

export { aria, errorLine, idOf, Marks } from '../../form-marks.js';

const plain = (n: number) => n.toLocaleString('en-GB');

/** A number setting's default and bounds in words, in the unit it is typed in. */
export function boundsHint(key: string, unit: string): string {
  const leaf = LEAF.get(key);
  if (!leaf) return '';
  const scale = (n: number) => (PERCENT.has(key) ? Number((n * 100).toPrecision(12)) : n);
  const parts: string[] = [];
  if (typeof leaf.default === 'number') parts.push(`Default ${plain(scale(leaf.default))} ${unit}`);
  // A share's lower bound of 0 may exclude 0 itself (a failure ratio must be above it): only its upper bound is said.
  if (leaf.min === 0 && leaf.max !== undefined && PERCENT.has(key)) parts.push(`up to ${plain(scale(leaf.max))}`);
  else if (leaf.min !== undefined && leaf.max !== undefined) parts.push(`${plain(scale(leaf.min))} to ${plain(scale(leaf.max))}`);
  return parts.join(' · ');
}

export function numberInput(o: { key: string; value: string; marks: Marks; label?: string; hint?: boolean; decimals?: boolean }): Html {
  const id = idOf(o.key);
  const leaf = LEAF.get(o.key);
  const error = o.marks.at(o.key);
  const scale = (n: number) => (PERCENT.has(o.key) ? Number((n * 100).toPrecision(12)) : n);
  const bounds = html`${leaf?.min !== undefined ? html` min="${scale(leaf.min)}"` : ''}${leaf?.max !== undefined ? html` max="${scale(leaf.max)}"` : ''}`;
  const placeholder = typeof leaf?.default === 'number' ? html` placeholder="${scale(leaf.default)}"` : '';
  return html`<input id="${id}" name="${o.key}" type="number" inputmode="${o.decimals ? 'decimal' : 'numeric'}" step="${o.decimals ? 'any' : '1'}"${bounds}${placeholder} value="${o.value}"${o.label ? html` aria-label="${o.label}"` : ''}${aria(id, o.hint ?? true, error)}>`;
}

/** A number with its unit after it, its default and bounds below. */
export function numberRow(o: { key: string; label: string; unit: string; value: string; marks: Marks; help?: string; decimals?: boolean }): Html {
  const id = idOf(o.key);
  const hint = [o.help, boundsHint(o.key, o.unit)].filter(Boolean).join(' · ');
  const input = numberInput({ key: o.key, value: o.value, marks: o.marks, decimals: o.decimals ?? PERCENT.has(o.key) });
  return html`<div class="setting"><label for="${id}">${o.label}</label><div class="with-unit">${input}<span class="unit">${o.unit}</span></div><span class="hint" id="${id}-hint">${hint}</span>${errorLine(id, o.marks.at(o.key))}</div>`;
}

export function textRow(o: { key: string; label: string; value: string; marks: Marks; help?: string; type?: string; wide?: boolean }): Html {
  const id = idOf(o.key);
  const error = o.marks.at(o.key);
  return html`<div class="setting${o.wide ? ' wide' : ''}"><label for="${id}">${o.label}</label><input id="${id}" name="${o.key}" type="${o.type ?? 'text'}" value="${o.value}"${aria(id, Boolean(o.help), error)}>${o.help ? html`<span class="hint" id="${id}-hint">${o.help}</span>` : ''}${errorLine(id, error)}</div>`;
}

/** A yes/no setting as a switch; the hidden "false" is posted first, so an unticked switch still says no. */
export function switchRow(o: { key: string; label: string; value: string; marks: Marks; help?: string }): Html {
  const id = idOf(o.key);
  const error = o.marks.at(o.key);
  const on = o.value === 'true' || (o.value === '' && LEAF.get(o.key)?.default === true);
  return html`<div class="setting wide switch-row"><input type="hidden" name="${o.key}" value="false"><input type="checkbox" role="switch" class="switch" id="${id}" name="${o.key}" value="true"${on ? html` checked` : ''}${aria(id, Boolean(o.help), error)}><label for="${id}">${o.label}</label>${o.help ? html`<span class="hint" id="${id}-hint">${o.help}</span>` : ''}${errorLine(id, error)}</div>`;
}

/** One of a few choices, each said in words with what it does. */
export function radioRow(o: { key: string; legend: string; choices: { value: string; label: string; help?: string }[]; value: string; marks: Marks }): Html {
  const id = idOf(o.key);
  const error = o.marks.at(o.key);
  const current = o.value || String(LEAF.get(o.key)?.default ?? '');
  return html`<fieldset class="setting wide choice" id="${id}"${aria(id, false, error)}><legend>${o.legend}</legend>${o.choices.map(
    (c) =>
      html`<label class="radio"><input type="radio" name="${o.key}" value="${c.value}"${c.value === current ? html` checked` : ''}> <span>${c.label}${c.help ? html`<span class="hint"> · ${c.help}</span>` : ''}</span></label>`,
  )}${errorLine(id, error)}</fieldset>`;
}

/** A group of settings: its legend, a line of what it is for, a refusal of the whole group (a running campaign's 409). */
export function section(o: { id: string; key: string; title: string; intro: Html | string; marks: Marks; body: Html }): Html {
  const error = o.marks.at(o.key);
  return html`<fieldset class="card campaign-section" id="${o.id}"><legend>${o.title}</legend><p class="muted intro">${o.intro}</p>${error ? html`<div class="error" id="${o.id}-error" role="alert">${error}</div>` : ''}${o.body}</fieldset>`;
}
