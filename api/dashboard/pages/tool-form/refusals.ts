import { AppError, ValidationFailed, type ValidationDetail } from '../../../../lib/errors.js';
import { formErrors, type FieldErrors } from '../../forms.js';
import { friendlyMessage } from '../../friendly-errors.js';
import type { ToolFormValues } from './form-fields.js';
import { headerKey, queryKey } from './header-rows.js';
import { paramKey } from './parameter-rows.js';
import { IN_SECONDS, shownNumber } from './schema-facts.js';

// The API's refusals placed at the control they concern, in the words of the form rather than of the JSON: a header's
// `http.headers.<name>` at the row of that name, an argument's `parameters.properties.<name>` at its row (or at the
// JSON Schema when that is what was saved), a time's bounds in seconds. What the API says stays what it means; only
// the wording follows what the person sees.

type Detail = Pick<ValidationDetail, 'msg' | 'type'>;

const plain = (n: number | undefined) => (n === undefined ? '' : n.toLocaleString('en-GB'));

/** The message for a single setting, in the form's words where its own would name JSON or a unit the form does not show. */
function inWords(key: string, d: Detail): string {
  if (key === 'name') {
    if (d.type === 'missing' || d.type === 'string_too_short' || d.type === 'string_type') return 'Give the tool a name: the model calls it by this name.';
    if (d.type === 'string_pattern_mismatch') return 'Start with a letter and use only letters, digits, _ and - (no spaces), 64 at most.';
  }
  if (key === 'type' && (d.type === 'missing' || d.type === 'enum' || d.type === 'literal_error')) return 'Choose what the tool does.';
  if (key === 'http.url' && (d.type === 'missing' || d.type === 'string_too_short')) return 'Give the address the request goes to, starting with https://.';
  if (key === 'http.method' && d.type === 'enum') return 'Choose one of the methods.';
  if (key === 'transfer.destination' && (d.type === 'string_pattern_mismatch' || d.type === 'missing'))
    return 'A phone number with its country code (+14155550123) or a SIP address (sip:desk@pbx.example.com).';
  if (key === 'transfer.mode' && d.type === 'enum') return 'Choose how the call is handed over.';
  if (IN_SECONDS.has(key)) {
    const [min, max] = [shownNumber(key, 'min'), shownNumber(key, 'max')];
    if (d.type === 'greater_than_equal' || d.type === 'less_than_equal') return `From ${plain(min)} to ${plain(max)} seconds.`;
    if (d.type.endsWith('_type') || d.type.endsWith('_parsing')) return 'Give a number of seconds, like 2.5.';
  }
  if (key === 'enabled' && d.type === 'bool_type') return 'Turn it on or off.';
  return friendlyMessage(d);
}

/** Where a refusal inside the parameters goes: the row of the argument it names, or the schema as a whole. */
function parameterPlace(path: (string | number)[], values: ToolFormValues): string {
  const asJson = values.fields.parameters_as_json === 'true';
  if (asJson) return 'parameters';
  const [, properties, name, part] = path;
  const index = properties === 'properties' ? values.params.findIndex((p) => p.name === String(name)) : -1;
  if (index < 0) return 'parameters.rows';
  return paramKey(index, part === 'type' ? 'type' : part === 'enum' ? 'values' : part === 'description' ? 'description' : 'name');
}

/** Each refusal of the API's `detail` at the control that shows it. */
export function placeToolDetail(detail: readonly ValidationDetail[], values: ToolFormValues): FieldErrors {
  const errors: FieldErrors = {};
  const put = (key: string, message: string) => {
    errors[key] ??= message;
  };
  for (const item of detail) {
    const path = item.loc[0] === 'body' ? item.loc.slice(1) : item.loc;
    const d: Detail = { msg: item.msg, type: item.type };
    const [field, second, third] = path;
    if (field === 'http' && (second === 'headers' || second === 'secret_headers') && third !== undefined) {
      const secret = second === 'secret_headers';
      const index = values.headers.findIndex((h) => h.name === String(third) && h.secret === secret);
      const badName = d.type === 'invalid_key';
      const message = badName ? 'A header name is letters, digits and - only: no spaces or colons.' : friendlyMessage(d);
      put(index >= 0 ? headerKey(index, badName ? 'name' : 'value') : 'http.headers', message);
    } else if (field === 'http' && second === 'query' && third !== undefined) {
      const index = values.query.findIndex((q) => q.name === String(third));
      const badName = d.type === 'invalid_key';
      put(
        index >= 0 ? queryKey(index, badName ? 'name' : 'value') : 'http.query',
        badName ? 'Give the parameter a name of 100 characters at most.' : friendlyMessage(d),
      );
    } else if (field === 'http' && second === 'body') {
      put('http.body', friendlyMessage(d));
    } else if (field === 'parameters') {
      const place = parameterPlace(path, values);
      const inside = path.slice(1).join('.');
      put(place, place === 'parameters' && inside !== '' ? `${inside}: ${friendlyMessage(d)}` : friendlyMessage(d));
    } else {
      const key = path.join('.');
      // An empty name fails the name's pattern: it is missing, as the person sees it.
      const missingName = key === 'name' && (values.fields.name ?? '').trim() === '';
      put(key, inWords(key, missingName ? { ...d, type: 'missing' } : d));
    }
  }
  return errors;
}

/** A service's refusal for this form: its validation at the controls, a name taken at the name, any other on the form. */
export function placeToolRefusal(error: unknown, values: ToolFormValues): { errors: FieldErrors; status: number } {
  if (error instanceof ValidationFailed) return { errors: placeToolDetail(error.detail, values), status: 422 };
  if (error instanceof AppError && error.code === 'conflict' && typeof error.data?.name === 'string') return { errors: { name: error.message }, status: 409 };
  return { errors: formErrors(error), status: 422 };
}
