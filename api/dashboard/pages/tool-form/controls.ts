import type { FieldErrors } from '../../forms.js';
import { html, type Html } from '../../html.js';
import { aria, errorLine, idOf, type Marks } from '../../form-marks.js';

// The controls the tool and playbook forms are drawn with: a label in people's words, the unit beside a number, the
// default in the hint, the API's refusal under the control and tied to it for screen readers. Every control reads its
// refusal from one `Marks`, which remembers what it showed, so a refusal no control claims still reaches the notice.

export { aria, errorLine, idOf, Marks, refusalNotice } from '../../form-marks.js';

const hintLine = (id: string, help: Html | string | undefined) => (help ? html`<span class="hint" id="${id}-hint">${help}</span>` : html``);

export function textRow(o: {
  key: string;
  label: string;
  value: string;
  marks: Marks;
  help?: Html | string;
  wide?: boolean;
  placeholder?: string;
  inputmode?: string;
  code?: boolean;
}): Html {
  const id = idOf(o.key);
  const error = o.marks.at(o.key);
  return html`<div class="setting${o.wide ? ' wide' : ''}"><label for="${id}">${o.label}</label><input id="${id}" name="${o.key}" type="text" value="${o.value}"${o.placeholder ? html` placeholder="${o.placeholder}"` : ''}${o.inputmode ? html` inputmode="${o.inputmode}"` : ''}${o.code ? html` class="code" autocomplete="off" spellcheck="false"` : ''}${aria(id, Boolean(o.help), error)}>${hintLine(id, o.help)}${errorLine(id, error)}</div>`;
}

/** Text of more than a line: a description, a message to speak, steps one a line, a JSON template. */
export function textAreaRow(o: {
  key: string;
  label: string;
  value: string;
  marks: Marks;
  help?: Html | string;
  rows?: number;
  kind?: 'prose' | 'lines' | 'json';
  placeholder?: string;
}): Html {
  const id = idOf(o.key);
  const error = o.marks.at(o.key);
  const rows = Math.min(16, Math.max(o.rows ?? 3, o.value.split('\n').length + 1));
  return html`<div class="setting wide"><label for="${id}">${o.label}</label><textarea class="${o.kind ?? 'prose'}" id="${id}" name="${o.key}" rows="${rows}"${o.placeholder ? html` placeholder="${o.placeholder}"` : ''}${o.kind === 'json' ? html` spellcheck="false"` : ''}${aria(id, Boolean(o.help), error)}>${o.value}</textarea>${hintLine(id, o.help)}${errorLine(id, error)}</div>`;
}

/** A yes/no setting as a switch; the hidden "false" is posted first, so an unticked switch still says no. */
export function switchRow(o: { key: string; label: string; on: boolean; marks: Marks; help?: string }): Html {
  const id = idOf(o.key);
  const error = o.marks.at(o.key);
  return html`<div class="setting wide switch-row"><input type="hidden" name="${o.key}" value="false"><input type="checkbox" role="switch" class="switch" id="${id}" name="${o.key}" value="true"${o.on ? html` checked` : ''}${aria(id, Boolean(o.help), error)}><label for="${id}">${o.label}</label>${hintLine(id, o.help)}${errorLine(id, error)}</div>`;
}

/** A number typed in `unit`, with its default and bounds in the hint. */
export function numberRow(o: {
  key: string;
  label: string;
  unit: string;
  value: string;
  marks: Marks;
  help?: string;
  min?: number;
  max?: number;
  placeholder?: string;
  decimals?: boolean;
}): Html {
  const id = idOf(o.key);
  const error = o.marks.at(o.key);
  const bounds = html`${o.min !== undefined ? html` min="${o.min}"` : ''}${o.max !== undefined ? html` max="${o.max}"` : ''}`;
  const input = html`<input id="${id}" name="${o.key}" type="number" inputmode="${o.decimals ? 'decimal' : 'numeric'}" step="${o.decimals ? 'any' : '1'}"${bounds}${o.placeholder ? html` placeholder="${o.placeholder}"` : ''} value="${o.value}"${aria(id, Boolean(o.help), error)}>`;
  return html`<div class="setting"><label for="${id}">${o.label}</label><div class="with-unit">${input}<span class="unit">${o.unit}</span></div>${hintLine(id, o.help)}${errorLine(id, error)}</div>`;
}

export interface Choice {
  value: string;
  label: string;
  help?: string;
}

/** One of a few choices, each said in words with what it does. */
export function radioRow(o: { key: string; legend: string; choices: Choice[]; value: string; marks: Marks; className?: string }): Html {
  const id = idOf(o.key);
  const error = o.marks.at(o.key);
  return html`<fieldset class="setting wide choice${o.className ? ` ${o.className}` : ''}" id="${id}"${aria(id, false, error)}><legend>${o.legend}</legend>${o.choices.map(
    (c) =>
      html`<label class="radio"><input type="radio" name="${o.key}" value="${c.value}"${c.value === o.value ? html` checked` : ''}> <span><span class="choice-label">${c.label}</span>${c.help ? html`<span class="hint"> ${c.help}</span>` : ''}</span></label>`,
  )}${errorLine(id, error)}</fieldset>`;
}

export function selectRow(o: { key: string; label: string; choices: Choice[]; value: string; marks: Marks; help?: string }): Html {
  const id = idOf(o.key);
  const error = o.marks.at(o.key);
  const known = o.choices.some((c) => c.value === o.value);
  // A value posted that is no choice (a hand-made request) is kept, selected, for the refusal beside it to make sense.
  const options = known || o.value === '' ? o.choices : [...o.choices, { value: o.value, label: o.value }];
  return html`<div class="setting"><label for="${id}">${o.label}</label><select id="${id}" name="${o.key}"${aria(id, Boolean(o.help), error)}>${options.map(
    (c) => html`<option value="${c.value}"${c.value === o.value ? html` selected` : ''}>${c.label}</option>`,
  )}</select>${hintLine(id, o.help)}${errorLine(id, error)}</div>`;
}

/** A card of the form: its legend, a line of what it is for, a refusal of the whole group. */
export function section(o: { id: string; title: string; intro: Html | string; marks: Marks; body: Html; key?: string; kind?: string }): Html {
  const error = o.key ? o.marks.at(o.key) : undefined;
  return html`<fieldset class="card form-section" id="${o.id}"${o.kind ? html` data-kind-section="${o.kind}"` : ''}><legend>${o.title}</legend><p class="muted intro">${o.intro}</p>${error ? html`<div class="error" id="${o.id}-error" role="alert">${error}</div>` : ''}${o.body}</fieldset>`;
}
