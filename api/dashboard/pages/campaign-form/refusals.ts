import { AppError, ValidationFailed, type ValidationDetail } from '../../../../lib/errors.js';
import { formErrors, type FieldErrors } from '../../forms.js';
import { friendlyMessage } from '../../friendly-errors.js';
import type { FormBody, FormValues } from './form-fields.js';
import { PERCENT } from './form-fields.js';
import { LEAF } from './schema-facts.js';
import { rangeKey } from './schedule-editor.js';
import { variableKey } from './variable-rows.js';

// The API's refusals placed at the control they concern, in the words of the form rather than of the JSON: a window's
// `schedule.windows.2.end` at each day row it was made from, `variables.<name>` at that variable's row,
// `from_numbers.1` beside that number's box, a share's bounds in percent. What the API says stays what it means; only
// the wording follows what the person sees. A running campaign's 409 names the settings that wait for a pause.

type Detail = Omit<ValidationDetail, 'loc'> & { path: (string | number)[] };

const pct = (n: number | undefined) => (n === undefined ? '' : String(Number((n * 100).toPrecision(12))));

/** The message for a setting, in the form's words where its own would name JSON or a unit the form does not show. */
function inWords(key: string, d: Detail): string {
  const [field] = d.path;
  if (key === 'name' && (d.type === 'missing' || d.type === 'string_too_short')) return 'Give the campaign a name.';
  if (key === 'assistant_id') {
    if (d.type === 'not_found') return 'Not one of this organisation’s assistants: choose one from the list.';
    if (d.type === 'missing' || d.type.startsWith('int_')) return 'Choose the assistant that talks on these calls.';
  }
  if (key === 'from_numbers' && (d.type === 'too_short' || d.type === 'missing')) return 'Tick at least one number to call from.';
  if (field === 'from_numbers' && d.type === 'not_managed_number') return 'Not one of this organisation’s numbers: untick it.';
  if (key === 'schedule.windows' && (d.type === 'too_short' || d.type === 'missing')) return 'Give at least one day a range of hours.';
  if ((key === 'schedule.start_at' || key === 'schedule.end_at') && d.type === 'string_pattern_mismatch') return 'Give a date and a time.';
  if (key === 'schedule.end_at' && d.type === 'value_error') return 'Must be after “No calls before”.';
  if (PERCENT.has(key)) {
    const leaf = LEAF.get(key);
    if (d.type === 'greater_than') return `More than ${pct(leaf?.min)} % and at most ${pct(leaf?.max)} %.`;
    if (d.type === 'greater_than_equal' || d.type === 'less_than_equal' || d.type === 'less_than') return `From ${pct(leaf?.min)} % to ${pct(leaf?.max)} %.`;
    if (d.type.endsWith('_type') || d.type.endsWith('_parsing')) return 'Give a percentage.';
  }
  if (key === 'voicemail.message' && d.type === 'missing') return 'Write the message to leave, or choose to hang up.';
  const leaf = LEAF.get(key);
  if (leaf?.kind === 'integer' || leaf?.kind === 'number') {
    if (d.type === 'less_than_equal' && leaf.max !== undefined) return `At most ${leaf.max.toLocaleString('en-GB')}.`;
    if (d.type === 'greater_than_equal' && leaf.min !== undefined) return `At least ${leaf.min.toLocaleString('en-GB')}.`;
    if (d.type.endsWith('_type') || d.type.endsWith('_parsing')) return leaf.kind === 'integer' ? 'Give a whole number.' : 'Give a number.';
  }
  return friendlyMessage(d);
}

function rangeInWords(d: Detail): string {
  const part = d.path[3];
  if ((part === 'start' || part === 'end') && d.type === 'string_pattern_mismatch') return 'Give both times of the range, or clear both to remove it.';
  if (part === 'end' && d.type === 'value_error') return 'It ends before it starts: the end must come later the same day (00:00 is midnight).';
  return friendlyMessage(d);
}

/** Each refusal of the API's `detail` at the control that shows it. */
export function placeDetail(detail: readonly ValidationDetail[], values: FormValues, built: FormBody): FieldErrors {
  const errors: FieldErrors = {};
  const put = (key: string, message: string) => {
    errors[key] ??= message;
  };
  for (const item of detail) {
    const path = item.loc[0] === 'body' ? item.loc.slice(1) : item.loc;
    const d: Detail = { path, msg: item.msg, type: item.type };
    const [field, second] = path;
    if (field === 'schedule' && second === 'windows' && typeof path[2] === 'number') {
      const rows = built.windowRows[path[2]] ?? [];
      for (const row of rows) put(rangeKey(row.day, row.index), rangeInWords(d));
      if (rows.length === 0) put('schedule.windows', friendlyMessage(d));
    } else if (field === 'variables' && path.length > 1) {
      const index = values.variables.findIndex((v) => v.name === String(second));
      const message =
        d.type === 'invalid_key'
          ? 'A name is letters, digits and _, and does not start with a digit (64 at most).'
          : `${String(second)}: ${friendlyMessage(d)}`;
      put(index >= 0 ? variableKey(index) : 'variables', message);
    } else if (field === 'from_numbers' && typeof second === 'number') {
      const number = (built.body.from_numbers as unknown[] | undefined)?.[second];
      put(typeof number === 'string' ? `from_numbers.${number}` : 'from_numbers', inWords(`from_numbers.${second}`, d));
    } else {
      const key = path.join('.');
      put(key, inWords(key, d));
    }
  }
  return errors;
}

/**
 * A service's refusal for this form: its validation at the controls, a running campaign's 409 at each setting that
 * waits for a pause (the service lists them in `fields`), any other refusal on the form as a whole.
 */
export function placeRefusal(error: unknown, values: FormValues, built: FormBody): { errors: FieldErrors; status: number } {
  if (error instanceof ValidationFailed) return { errors: placeDetail(error.detail, values, built), status: 422 };
  if (error instanceof AppError && error.code === 'invalid_state') {
    const frozen = Array.isArray(error.data?.fields) ? error.data.fields.map(String) : [];
    const errors: FieldErrors = { '': error.message };
    for (const field of frozen) errors[field] = 'Cannot change while the campaign runs: pause it first.';
    return { errors, status: 409 };
  }
  return { errors: formErrors(error), status: 422 };
}
