import { html, type Html } from '../../html.js';
import { aria, errorLine, idOf, type Marks } from '../../form-marks.js';

// The chart form's own controls, on the campaign form's marks (one refusal each, remembered once shown, so any no
// control claims still reaches the notice): a list of boxes to tick, a select in people's words.

export interface Box {
  value: string;
  label: string;
  note?: string | undefined;
}

/**
 * Boxes to tick, each posting `name` with its value. Values ticked that no box offers (an end reason typed earlier,
 * an id that is not the organisation's) are shown ticked with `unknown`'s words, so they can be unticked.
 */
export function boxes(o: {
  key: string;
  name: string;
  legend: string;
  hint?: Html | string;
  options: Box[];
  chosen: readonly string[];
  marks: Marks;
  unknown?: (value: string) => Box;
  /** More under the boxes: a line to type values, a search. */
  after?: Html;
  className?: string;
}): Html {
  const id = idOf(o.key);
  const error = o.marks.at(o.key);
  const ticked = new Set(o.chosen);
  const offered = new Set(o.options.map((b) => b.value));
  const extra = o.chosen.filter((v) => !offered.has(v)).map((v) => o.unknown?.(v) ?? { value: v, label: v });
  const list = [...o.options, ...extra].map((b, i) => {
    const box = `${id}-${i}`;
    const boxError = o.marks.at(`${o.key}.${b.value}`);
    return html`<div class="check-row"><label class="check" for="${box}"><input type="checkbox" id="${box}" name="${o.name}" value="${b.value}"${ticked.has(b.value) ? html` checked` : ''}${aria(box, false, boxError)}> <span>${b.label}${b.note ? html` <span class="hint">${b.note}</span>` : ''}</span></label>${errorLine(box, boxError)}</div>`;
  });
  return html`<fieldset class="setting wide picker${o.className ? ` ${o.className}` : ''}" id="${id}"${aria(id, Boolean(o.hint), error)}><legend>${o.legend}</legend>${o.hint ? html`<span class="hint" id="${id}-hint">${o.hint}</span>` : ''}<div class="choices">${list}</div>${o.after ?? ''}${errorLine(id, error)}</fieldset>`;
}

/** A select whose options say in words what each value means; `groups` puts them under headings. */
export function selectRow(o: {
  key: string;
  label: string;
  value: string;
  marks: Marks;
  hint?: Html | string;
  options?: Box[];
  groups?: { label: string; options: (Box & { data?: Html })[] }[];
  /** A first choice that posts nothing: the API's default. */
  empty?: string;
  className?: string;
}): Html {
  const id = idOf(o.key);
  const error = o.marks.at(o.key);
  const option = (b: Box & { data?: Html }) =>
    html`<option value="${b.value}"${b.value === o.value ? html` selected` : ''}${b.data ?? ''}>${b.label}${b.note ? ` (${b.note})` : ''}</option>`;
  const all = [...(o.options ?? []), ...(o.groups ?? []).flatMap((g) => g.options)];
  // A value no option offers (text a hand-made post sent) is kept as it was, so the refusal beside it makes sense.
  const unlisted = o.value !== '' && !all.some((b) => b.value === o.value) ? option({ value: o.value, label: o.value }) : '';
  return html`<div class="setting${o.className ? ` ${o.className}` : ''}"><label for="${id}">${o.label}</label><select id="${id}" name="${o.key}"${aria(id, Boolean(o.hint), error)}>${o.empty !== undefined ? html`<option value=""${o.value === '' ? html` selected` : ''}>${o.empty}</option>` : ''}${unlisted}${(o.options ?? []).map(option)}${(
    o.groups ?? []
  ).map(
    (g) => html`<optgroup label="${g.label}">${g.options.map(option)}</optgroup>`,
  )}</select>${o.hint ? html`<span class="hint" id="${id}-hint">${o.hint}</span>` : ''}${errorLine(id, error)}</div>`;
}

/** A line of text or a date, with its hint and refusal. */
export function inputRow(o: {
  key: string;
  label: string;
  value: string;
  marks: Marks;
  hint?: Html | string;
  type?: 'text' | 'date' | 'search' | 'number';
  attrs?: Html;
  unit?: string;
  className?: string;
}): Html {
  const id = idOf(o.key);
  const error = o.marks.at(o.key);
  const input = html`<input id="${id}" name="${o.key}" type="${o.type ?? 'text'}" value="${o.value}"${o.attrs ?? ''}${aria(id, Boolean(o.hint), error)}>`;
  return html`<div class="setting${o.className ? ` ${o.className}` : ''}"><label for="${id}">${o.label}</label>${o.unit ? html`<div class="with-unit">${input}<span class="unit">${o.unit}</span></div>` : input}${o.hint ? html`<span class="hint" id="${id}-hint">${o.hint}</span>` : ''}${errorLine(id, error)}</div>`;
}
