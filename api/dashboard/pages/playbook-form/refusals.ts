import { AppError, ValidationFailed, type ValidationDetail } from '../../../../lib/errors.js';
import { formErrors, type FieldErrors } from '../../forms.js';
import { friendlyMessage } from '../../friendly-errors.js';
import { CHOICE_TYPE, collectKey, type CollectPart } from './collect-rows.js';
import { exampleKey } from './example-rows.js';
import type { PlaybookFormBody, PlaybookFormValues } from './form-fields.js';
import { maxOf } from './schema-facts.js';
import { type ToolChoice, toolKey } from './tool-picker.js';

// The API's refusals placed at the control they concern, in the words of the form: a step's `instructions.3` at the
// steps with its number, an example's turn at its example, a tool's `tool_ids.1` at the box of the tool it names, a
// value's `collect.2.name` at its row. What the API says stays what it means; only the wording follows the page.

type Detail = Pick<ValidationDetail, 'msg' | 'type'>;

const plain = (n: number | undefined) => (n === undefined ? '' : n.toLocaleString('en-GB'));
const PARTS = new Set<string>(['name', 'type', 'description', 'required', 'values']);

function stepInWords(step: number, d: Detail): string {
  if (d.type === 'string_too_long') return `Step ${step} is too long: ${plain(maxOf('instructions.[]'))} characters at most a step.`;
  return `Step ${step}: ${friendlyMessage(d)}`;
}

function collectInWords(part: string, d: Detail, index: number, values: PlaybookFormValues): string {
  const row = values.collect[index];
  if (part === 'name' && d.type === 'string_pattern_mismatch') return 'Start with a letter; use letters, digits and _ only (no spaces), 64 at most.';
  if (part === 'name' && values.collect.slice(0, index).some((c) => c.name.toLowerCase() === row?.name.toLowerCase()))
    return 'Another value above has this name.';
  if (part === 'values' && row?.type === CHOICE_TYPE && row.values.trim() === '') return 'Give the values it may be, one a line.';
  if (part === 'type' && d.type === 'enum') return 'Choose one of the types.';
  return friendlyMessage(d);
}

/** Each refusal of the API's `detail` at the control that shows it. */
export function placePlaybookDetail(
  detail: readonly ValidationDetail[],
  values: PlaybookFormValues,
  built: PlaybookFormBody,
  tools: readonly ToolChoice[],
): FieldErrors {
  const errors: FieldErrors = {};
  const put = (key: string, message: string) => {
    errors[key] ??= message;
  };
  for (const item of detail) {
    const path = item.loc[0] === 'body' ? item.loc.slice(1) : item.loc;
    const d: Detail = { msg: item.msg, type: item.type };
    const [field, second, third, fourth] = path;
    if (field === 'name' && (d.type === 'missing' || d.type === 'string_too_short')) put('name', 'Give the playbook a name.');
    else if (field === 'instructions' && typeof second === 'number') put('instructions', stepInWords(second + 1, d));
    else if (field === 'instructions' && d.type === 'too_long') put('instructions', `No more than ${plain(maxOf('instructions'))} steps.`);
    else if (field === 'examples' && typeof second === 'number') {
      const turn = typeof third === 'number' ? `Turn ${third + 1}` : '';
      const message =
        turn && fourth === 'content' && d.type === 'string_too_short'
          ? `${turn} says nothing: write what is said, or remove the line.`
          : turn
            ? `${turn}: ${friendlyMessage(d)}`
            : d.type === 'too_long'
              ? `No more than ${plain(maxOf('examples.[]'))} turns.`
              : friendlyMessage(d);
      put(exampleKey(second), message);
    } else if (field === 'tool_ids' && typeof second === 'number') {
      const posted = (built.body.tool_ids as unknown[] | undefined)?.[second];
      const id = String(posted ?? '');
      const tool = tools.find((t) => String(t.id) === id);
      const message = !tool
        ? 'Not one of this organisation’s tools: untick it.'
        : !tool.enabled
          ? 'This tool is disabled: turn it on in its page, or untick it.'
          : friendlyMessage(d);
      put(values.toolIds.includes(id) ? toolKey(id) : 'tool_ids', message);
    } else if (field === 'collect' && typeof second === 'number') {
      const part = typeof third === 'string' && PARTS.has(third) ? (third as CollectPart) : 'name';
      const message = collectInWords(part, d, second, values);
      put(collectKey(second, part), part === 'values' && typeof fourth === 'number' ? `Value ${fourth + 1}: ${message}` : message);
    } else if (field === 'mode' && d.type === 'enum') put('mode', 'Choose how the assistant takes it.');
    else put(path.join('.'), friendlyMessage(d));
  }
  return errors;
}

/** A service's refusal for this form: its validation at the controls, a name taken at the name, any other on the form. */
export function placePlaybookRefusal(
  error: unknown,
  values: PlaybookFormValues,
  built: PlaybookFormBody,
  tools: readonly ToolChoice[],
): { errors: FieldErrors; status: number } {
  if (error instanceof ValidationFailed) return { errors: placePlaybookDetail(error.detail, values, built, tools), status: 422 };
  if (error instanceof AppError && error.code === 'conflict' && typeof error.data?.name === 'string') return { errors: { name: error.message }, status: 409 };
  return { errors: formErrors(error), status: 422 };
}
