import { AppError, ValidationFailed, type ValidationDetail } from '../../../../lib/errors.js';
import { formErrors, type FieldErrors } from '../../forms.js';
import { friendlyMessage } from '../../friendly-errors.js';

// A custom property's form as a person fills it in, and the API's body it means: a select's options one a line (the
// schema's options are plain text), the key and type only when the property is made (they are fixed after). Whether
// the options are fine (unique, not empty, not too many) is the API's to say; the form only places what it says at
// the line it concerns.

export const TYPE_WORDS: Record<string, string> = {
  text: 'Text',
  number: 'Number',
  boolean: 'Yes or no',
  date: 'Date',
  datetime: 'Date and time',
  select: 'One of a list',
};

export interface PropertyValues {
  key: string;
  label: string;
  type: string;
  /** The options as typed, one a line. */
  options: string;
}

const first = (v: unknown): string => (typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : '');

export function valuesOfPost(posted: unknown): PropertyValues {
  const form = posted !== null && typeof posted === 'object' && !Array.isArray(posted) ? (posted as Record<string, unknown>) : {};
  return { key: first(form.key), label: first(form.label), type: first(form.type), options: first(form.options) };
}

export function valuesOfProperty(p: { key: string; label: string; type: string; options: readonly string[] | null }): PropertyValues {
  return { key: p.key, label: p.label, type: p.type, options: (p.options ?? []).join('\n') };
}

/** The lines typed, blank ones dropped, each as typed otherwise (the API trims what it trims). */
export const linesOf = (text: string): string[] => text.split(/\r?\n/).filter((l) => l.trim() !== '');

/** POST /api/contact-properties: options only for a select, so a list left under another type is not refused. */
export function createBody(values: PropertyValues): Record<string, unknown> {
  const body: Record<string, unknown> = { key: values.key.trim(), label: values.label, type: values.type };
  if (values.type === 'select' && linesOf(values.options).length > 0) body.options = linesOf(values.options);
  return body;
}

/** PATCH /api/contact-properties/{id}: the label, and a select's options. */
export function updateBody(values: PropertyValues, storedType: string): Record<string, unknown> {
  return { label: values.label, ...(storedType === 'select' ? { options: linesOf(values.options) } : {}) };
}

function inWords(path: (string | number)[], d: Pick<ValidationDetail, 'msg' | 'type'>, lines: string[]): [key: string, message: string] {
  const [field, index] = path;
  if (field === 'options') {
    if (typeof index === 'number') {
      const line = lines[index]?.trim() ?? '';
      return ['options', `“${line.length > 40 ? `${line.slice(0, 40)}…` : line}”: ${friendlyMessage(d)}`];
    }
    if (d.type === 'missing' || d.type === 'too_short') return ['options', 'Give the choices, one a line.'];
    if (d.type === 'unique_items') {
      const trimmed = lines.map((l) => l.trim());
      const twice = [...new Set(trimmed.filter((l, i) => trimmed.indexOf(l) !== i))];
      return ['options', `Each choice only once: ${twice.join(', ')} is there twice.`];
    }
    if (d.type === 'extra_forbidden') return ['options', 'Only a property of the type “One of a list” has choices.'];
    return ['options', friendlyMessage(d)];
  }
  if (field === 'key' && (d.type === 'missing' || d.type === 'string_type')) return ['key', 'Give the property a key.'];
  if (field === 'label' && (d.type === 'missing' || d.type === 'string_too_short')) return ['label', 'Give the property a label.'];
  if (field === 'type') return ['type', 'Pick a type.'];
  return [path.join('.'), friendlyMessage(d)];
}

/** The API's refusal at the control it concerns; options still held by contacts at the options, with how many hold each. */
export function propertyRefusal(error: unknown, values: PropertyValues): FieldErrors {
  const lines = linesOf(values.options);
  if (error instanceof ValidationFailed) {
    const errors: FieldErrors = {};
    for (const item of error.detail) {
      const path = item.loc[0] === 'body' ? item.loc.slice(1) : item.loc;
      // An empty key fails the key's pattern; what it lacks is a key at all.
      const [key, message] = path[0] === 'key' && values.key.trim() === '' ? ['key', 'Give the property a key.'] : inWords(path, item, lines);
      errors[key] ??= message;
    }
    return errors;
  }
  if (error instanceof AppError && error.code === 'option_in_use') {
    const held = Array.isArray(error.data?.options_in_use) ? (error.data.options_in_use as { option: string; contacts: number }[]) : [];
    const list = held.map((h) => `${h.option} (${h.contacts} ${h.contacts === 1 ? 'contact' : 'contacts'})`).join(', ');
    return { options: `Still held by contacts: ${list}. Change their value first, or keep the choice.` };
  }
  return formErrors(error);
}
