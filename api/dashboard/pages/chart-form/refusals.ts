import { AppError, ValidationFailed, type ValidationDetail } from '../../../../lib/errors.js';
import { zodIssuesToDetail } from '../../../../lib/zod/detail.js';
import { STATUS_OF } from '../../../http/error-handler.js';
import { formErrors, type FieldErrors } from '../../forms.js';
import { friendlyMessage } from '../../friendly-errors.js';
import { type ChartBody, type ChartFormValues, CUSTOM, type FilterName, FILTERS, TYPED } from './form-fields.js';
import { AGGREGATION_WORDS, aggregationsOf, inWords, metricLabel } from './labels.js';
import { LIMIT, MOST_GROUPS, MOST_VALUES, RANGE } from './schema-facts.js';

// The API's refusals placed at the control they concern, in the words of the form rather than of the JSON: the
// period's `to` at the last day (which the form shows inclusive), a value of `filters.phone_number` at the box or the
// line it came from, the aggregations a measure takes by their names. What the API says stays what it means; only the
// wording follows what the person sees.

type Detail = Omit<ValidationDetail, 'loc'> & { path: (string | number)[] };

const FIELD_PATH_WORDS = 'Letters, digits and _, dotted up to 4 deep (sentiment, fields.plan), or collected.<name> for a value a playbook collected.';

function inWordsAt(key: string, d: Detail, values: ChartFormValues): string {
  const missing = d.type === 'missing' || d.type === 'string_too_short';
  if (key === 'name' && missing) return 'Give the chart a name.';
  if (key === 'metric') return 'Choose what to measure.';
  if (key === 'chart_type') return 'Pick one of the ways to draw it.';
  if (key === 'aggregation' && d.type === 'value_error') {
    const metric = values.fields.metric;
    return `${metricLabel(metric)} is shown as ${aggregationsOf(metric)
      .map((a) => inWords(a, AGGREGATION_WORDS))
      .join(', ')}: pick one of these, or the usual.`;
  }
  if (key === 'field') {
    if (d.type === 'missing') return `${metricLabel(values.fields.metric)} reads a field of the post-call analysis: type one, such as sentiment.`;
    return FIELD_PATH_WORDS;
  }
  if (key === 'limit') {
    if (d.type.startsWith('int_') || d.type.startsWith('float_')) return 'Give a whole number.';
    if (d.type === 'greater_than_equal' || d.type === 'less_than_equal') return `From ${LIMIT.min} to ${LIMIT.max}.`;
  }
  if (key === 'timezone' && d.type === 'value_error') return 'Not a time zone this service knows: pick one from the list.';
  if (key === 'group_by') {
    if (d.type === 'too_long') return `Split by ${MOST_GROUPS} at most, the time counting as one.`;
    if (d.msg === 'A group-by is named twice') return 'Each only once.';
    if (d.msg === 'At most one time bucket') return 'One time step at most.';
  }
  if (key === 'group_by.outcome') return FIELD_PATH_WORDS;
  if (key === 'period.from' || key === 'period.last_day') {
    if (d.type === 'datetime_parsing' || d.type === 'missing' || d.type === 'string_type')
      return key === 'period.from' ? 'Pick the first day.' : 'Pick the last day.';
    if (d.type === 'value_error') return 'The last day is before the first.';
  }
  return friendlyMessage(d);
}

function filterInWords(name: FilterName, d: Detail): string {
  if (d.type === 'too_long') return `No more than ${MOST_VALUES}.`;
  if (name === 'phone_number' && d.type === 'value_error') return 'Not a phone number in international form, like +14155550123.';
  if (d.type.startsWith('int_')) return 'Not an id: untick it.';
  return friendlyMessage(d);
}

/** Each refusal of the API's `detail` at the control that shows it. */
export function placeDetail(detail: readonly ValidationDetail[], values: ChartFormValues, built: ChartBody): FieldErrors {
  const errors: FieldErrors = {};
  const put = (key: string, message: string) => {
    errors[key] ??= message;
  };
  const custom = values.fields['period.preset'].trim() === CUSTOM;
  for (const item of detail) {
    const path = item.loc[0] === 'body' ? item.loc.slice(1) : item.loc;
    const d: Detail = { path, msg: item.msg, type: item.type };
    const [field, second, third] = path;
    if (field === 'period') {
      if (!custom) {
        put('period.preset', 'Pick one of the periods.');
      } else if (second === 'from' || second === 'to') {
        const key = second === 'from' ? 'period.from' : 'period.last_day';
        put(key, inWordsAt(key, d, values));
      } else {
        // Neither form of a period fitted: the two days' own refusals, as the range alone says them.
        const range = RANGE.safeParse(built.body.period);
        const inner = range.success ? [] : zodIssuesToDetail(range.error.issues, 'body', built.body.period);
        for (const r of inner) {
          const key = r.loc[1] === 'to' ? 'period.last_day' : 'period.from';
          put(key, inWordsAt(key, { path: r.loc.slice(1), msg: r.msg, type: r.type }, values));
        }
        if (inner.length === 0) put('period.preset', friendlyMessage(d));
      }
    } else if (field === 'group_by') {
      const key = typeof second === 'number' && built.groupSources[second] === 'outcome' ? 'group_by.outcome' : 'group_by';
      put(key, inWordsAt(key, d, values));
    } else if (field === 'filters' && (FILTERS as readonly unknown[]).includes(second)) {
      const name = second as FilterName;
      const value = typeof third === 'number' ? (built.body.filters as Record<string, unknown[]>)[name]?.[third] : undefined;
      const ticked = value !== undefined && values.filters[name].includes(String(value));
      if (value !== undefined && TYPED.has(name) && !ticked) put(`filters.${name}.other`, `${String(value)}: ${filterInWords(name, d)}`);
      else if (value !== undefined && ticked) put(`filters.${name}.${String(value)}`, filterInWords(name, d));
      else put(`filters.${name}`, filterInWords(name, d));
    } else if (field === 'filters') {
      put('filters', friendlyMessage(d));
    } else {
      const key = path.join('.');
      put(key, inWordsAt(key, d, values));
    }
  }
  return errors;
}

/** A service's refusal for this form: its validation at the controls, any other refusal (too many charts) on the form. */
export function placeRefusal(error: unknown, values: ChartFormValues, built: ChartBody): { errors: FieldErrors; status: number } {
  if (error instanceof ValidationFailed) return { errors: placeDetail(error.detail, values, built), status: 422 };
  const errors = formErrors(error);
  return { errors, status: error instanceof AppError ? STATUS_OF[error.kind] : 422 };
}
