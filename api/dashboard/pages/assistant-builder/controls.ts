import type { Voice } from '../../../../modules/assistants/index.js';
import type { FieldErrors } from '../../forms.js';
import { html, type Html } from '../../html.js';
import type { Leaf } from '../../schema-form.js';
import { fallbackRows } from './fallback-rows.js';
import { languageRows } from './language-rows.js';
import type { Field } from './sections.js';

// One setting of the builder as a person edits it: a switch for yes/no, a list a line, checkboxes naming the
// organisation's tools, documents and playbooks, the voice list of the chosen provider. The posted names are the
// setting's dotted path, so the API's errors land on the field they name (form-body.ts reads them back).

/** A thing a picker offers: one of the organisation's tools, documents or playbooks. */
export interface Choice {
  id: number;
  name: string;
  note?: string;
}

export interface PickerChoices {
  tools: Choice[];
  documents: Choice[];
  playbooks: Choice[];
  /** The organisation's numbers, each with the assistant that answers it now (null: none). */
  numbers: (Choice & { assistantId: number | null; assistantName?: string })[];
}

/** The marker a voice select posts when the voice is typed in instead. */
export const OTHER_VOICE = '__other';

export interface ControlContext {
  errors: FieldErrors;
  /** The assistant being edited; none while it is being created. */
  assistantId?: number;
  /** The numbers ticked in a form sent back with a refusal: what the person chose, not what is stored. */
  checkedNumbers?: Set<number>;
  pickers: PickerChoices;
  voices: Record<string, Voice[]>;
  /** The voice provider chosen in the form, whose list the voice select shows first. */
  voiceProvider: string;
}

export function idOf(key: string): string {
  return `f-${key.replace(/\./g, '-')}`;
}

/** The first error at or under this setting (a list's errors name its items). */
function errorOf(key: string, errors: FieldErrors): string | undefined {
  if (errors[key]) return errors[key];
  const inside = Object.keys(errors).find((k) => k.startsWith(`${key}.`));
  return inside ? `${inside.slice(key.length + 1)}: ${errors[inside]}` : undefined;
}

function defaultHint(leaf: Leaf | undefined, field: Field): string | undefined {
  if (!leaf || leaf.default === undefined || leaf.default === null) return undefined;
  if (leaf.kind !== 'number' && leaf.kind !== 'integer') return undefined;
  return `Default ${String(leaf.default)}${field.unit ? ` ${field.unit}` : ''}`;
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value, null, 2);
  return String(value);
}

/** A setting's row: label, help, control, error. */
export function settingRow(field: Field, leaf: Leaf | undefined, value: unknown, ctx: ControlContext): Html {
  const id = idOf(field.key);
  const error = errorOf(field.key, ctx.errors);
  const hints = [field.help, defaultHint(leaf, field)].filter((h): h is string => Boolean(h));
  const hint = hints.length > 0 ? html`<span class="hint" id="${id}-hint">${hints.join(' · ')}</span>` : '';
  const described = [hints.length > 0 ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  const aria = html`${described ? html` aria-describedby="${described}"` : ''}${error ? html` aria-invalid="true"` : ''}`;
  const errorLine = error ? html`<div class="error" id="${id}-error">${error}</div>` : '';
  const control = field.control ?? controlOfLeaf(leaf);

  if (control === 'switch') {
    const on = value === true || (value === undefined && leaf?.default === true);
    return html`<div class="setting switch-row"><input type="hidden" name="${field.key}" value="false"><input type="checkbox" role="switch" class="switch" id="${id}" name="${field.key}" value="true"${on ? html` checked` : ''}${aria}><label for="${id}">${field.label}</label>${hint}${errorLine}</div>`;
  }
  const label = html`<label for="${id}">${field.label}</label>`;
  if (control === 'tools' || control === 'documents' || control === 'playbooks') {
    return pickerRow(field, control, value, ctx, hint, errorLine);
  }
  if (control === 'numbers') return numbersRow(field, ctx, hint, errorLine);
  if (control === 'voice') return voiceRow(field, value, ctx, label, hint, errorLine, aria);
  if (control === 'fallbacks') return fallbackRows(field, value, ctx.errors, hint, ctx.errors[field.key] ? errorLine : '');
  if (control === 'languages') return languageRows(field, value, ctx.errors, hint, ctx.errors[field.key] ? errorLine : '');
  if (control === 'secret') {
    // What a read shows of a saved secret is its mask; posted back as `.kept`, it keeps the saved secret (keys.ts).
    const saved = typeof value === 'string' && value !== '' ? value : '';
    const keep = saved ? html`<input type="hidden" name="${field.key}.kept" value="${saved}">` : '';
    return html`<div class="setting">${label}<input type="password" autocomplete="off" id="${id}" name="${field.key}" placeholder="${saved ? `Saved secret ${saved}` : 'whsec_…'}"${aria}>${keep}${hint}${saved ? html` <span class="hint">Leave empty to keep the saved secret.</span>` : ''}${errorLine}</div>`;
  }
  if (control === 'lines') {
    const lines = Array.isArray(value) ? value.map(String).join('\n') : asText(value);
    return html`<div class="setting wide">${label}${hint}<textarea class="lines" id="${id}" name="${field.key}" rows="${Math.min(8, Math.max(3, lines.split('\n').length + 1))}"${aria}>${lines}</textarea>${errorLine}</div>`;
  }
  if (control === 'text' || leaf?.long) {
    const text = asText(value);
    const rows = field.key.endsWith('system_prompt') ? 10 : 3;
    return html`<div class="setting wide">${label}${hint}<textarea class="prose" id="${id}" name="${field.key}" rows="${Math.max(rows, Math.min(20, text.split('\n').length + 1))}"${aria}>${text}</textarea>${errorLine}</div>`;
  }
  if (leaf?.kind === 'json') {
    const text = asText(value);
    return html`<div class="setting wide">${label}${hint}<textarea class="json" id="${id}" name="${field.key}" rows="${Math.min(12, Math.max(2, text.split('\n').length))}"${aria}>${text}</textarea>${errorLine}</div>`;
  }
  if (leaf?.kind === 'enum') {
    const current = asText(value);
    const labels = field.choices ?? {};
    const options = leaf.options;
    return html`<div class="setting">${label}<select id="${id}" name="${field.key}"${aria}>${leaf.nullable ? html`<option value=""${current === '' ? html` selected` : ''}>${field.noneLabel ?? 'None'}</option>` : ''}${options.map((o) => html`<option value="${o}"${o === current ? html` selected` : ''}>${labels[o] ?? o.replace(/_/g, ' ')}</option>`)}</select>${hint}${errorLine}</div>`;
  }
  const numeric = leaf?.kind === 'number' || leaf?.kind === 'integer';
  const bounds = numeric ? html`${leaf?.min !== undefined ? html` min="${leaf.min}"` : ''}${leaf?.max !== undefined ? html` max="${leaf.max}"` : ''}` : '';
  const input = html`<input id="${id}" name="${field.key}" type="${numeric ? 'number' : 'text'}"${numeric ? html` step="${leaf?.kind === 'integer' ? '1' : 'any'}" inputmode="decimal"` : ''}${bounds} value="${asText(value)}"${aria}>`;
  return html`<div class="setting">${label}${field.unit ? html`<div class="with-unit">${input}<span class="unit">${field.unit}</span></div>` : input}${hint}${errorLine}</div>`;
}

function controlOfLeaf(leaf: Leaf | undefined): Field['control'] {
  if (leaf?.kind === 'boolean') return 'switch';
  return undefined;
}

const PICKER = {
  tools: { empty: 'No tools yet.', create: '/tools/new', createText: 'Create a tool' },
  documents: { empty: 'No documents yet.', create: '/documents', createText: 'Add a document' },
  playbooks: { empty: 'No playbooks yet.', create: '/playbooks/new', createText: 'Create a playbook' },
} as const;

function pickerRow(field: Field, kind: keyof typeof PICKER, value: unknown, ctx: ControlContext, hint: Html | string, errorLine: Html | string): Html {
  const chosen = new Set(Array.isArray(value) ? value.map(Number) : []);
  const choices = ctx.pickers[kind];
  const id = idOf(field.key);
  // The empty value says the list was in the form: none ticked is an empty list, not "unchanged".
  const present = html`<input type="hidden" name="${field.key}" value="">`;
  if (choices.length === 0) {
    return html`<fieldset class="setting wide picker" id="${id}">${present}<legend>${field.label}</legend><p class="muted">${PICKER[kind].empty} <a href="${PICKER[kind].create}">${PICKER[kind].createText}</a></p>${errorLine}</fieldset>`;
  }
  return html`<fieldset class="setting wide picker" id="${id}">${present}<legend>${field.label}</legend>${hint}<div class="choices">${choices.map(
    (c) =>
      html`<label class="check"><input type="checkbox" name="${field.key}" value="${c.id}"${chosen.has(c.id) ? html` checked` : ''}> ${c.name}${c.note ? html` <span class="hint">${c.note}</span>` : ''}</label>`,
  )}</div>${errorLine}</fieldset>`;
}

function voiceRow(field: Field, value: unknown, ctx: ControlContext, label: Html, hint: Html | string, errorLine: Html | string, aria: Html): Html {
  const id = idOf(field.key);
  const current = typeof value === 'string' ? value : '';
  const voices = ctx.voices[ctx.voiceProvider] ?? [];
  const known = voices.some((v) => v.id === current);
  const otherValue = current !== '' && !known ? current : '';
  // The chosen provider's voices; every provider's list rides along for the page's script, which swaps them when the
  // provider changes.
  return html`<div class="setting voice">${label}<select class="voice-list" id="${id}" name="${field.key}" data-voices="${JSON.stringify(ctx.voices)}"${aria}>${voiceOptions(voices, current)}</select>
<input type="text" class="voice-other" name="${field.key}.other" aria-label="Voice id" placeholder="A voice id from your vendor’s library" value="${otherValue}"${otherValue ? '' : html` hidden`}>
<div class="actions tight"><button type="button" class="secondary" data-voice-preview>Play a sample</button><span class="hint" data-voice-preview-status aria-live="polite"></span></div>${hint}${errorLine}</div>`;
}

function voiceOptions(voices: Voice[], current: string): Html {
  const known = voices.some((v) => v.id === current);
  return html`<option value=""${current === '' ? html` selected` : ''}>Provider’s default voice</option>${voices.map(
    (v) => html`<option value="${v.id}"${v.id === current ? html` selected` : ''}>${v.name} · ${v.description}</option>`,
  )}<option value="${OTHER_VOICE}"${current !== '' && !known ? html` selected` : ''}>Another voice id…</option>`;
}

/** The numbers this assistant answers, ticked: ticking one another assistant answers moves it here, as the note says. */
function numbersRow(field: Field, ctx: ControlContext, hint: Html | string, errorLine: Html | string): Html {
  const id = idOf(field.key);
  const present = html`<input type="hidden" name="${field.key}" value="">`;
  if (ctx.pickers.numbers.length === 0) {
    return html`<fieldset class="setting wide picker" id="${id}">${present}<legend>${field.label}</legend><p class="muted">No phone numbers yet. <a href="/phone-numbers">Add a number</a></p>${errorLine}</fieldset>`;
  }
  return html`<fieldset class="setting wide picker" id="${id}">${present}<legend>${field.label}</legend>${hint}<div class="choices">${ctx.pickers.numbers.map(
    (n) => {
      const mine = ctx.assistantId !== undefined && n.assistantId === ctx.assistantId;
      const elsewhere = !mine && n.assistantId !== null ? html` <span class="hint">answered by ${n.assistantName ?? 'another assistant'} now</span>` : '';
      return html`<label class="check"><input type="checkbox" name="${field.key}" value="${n.id}"${(ctx.checkedNumbers ? ctx.checkedNumbers.has(n.id) : mine) ? html` checked` : ''}> ${n.name}${n.note ? html` <span class="hint">${n.note}</span>` : ''}${elsewhere}</label>`;
    },
  )}</div>${errorLine}</fieldset>`;
}
