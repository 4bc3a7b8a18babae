import { describe, expect, it } from 'vitest';
import { zodIssuesToDetail } from '../../../../lib/zod/detail.js';
import { ChartWrite } from '../../../../modules/analytics/index.js';
import { bodyOfValues, valuesOfPost } from './form-fields.js';
import { placeDetail } from './refusals.js';

// The API's 422 `detail` placed at the control each refusal concerns, in the chart form's words.

const owned = { assistants: new Set<number>(), campaigns: new Set<number>(), contacts: new Set<number>() };

function refused(form: Record<string, string | string[]>) {
  const values = valuesOfPost(form);
  const built = bodyOfValues(values, owned);
  const parsed = ChartWrite.safeParse(built.body);
  expect(parsed.success).toBe(false);
  return placeDetail(zodIssuesToDetail(parsed.error!.issues, 'body', built.body), values, built);
}

describe('the API’s refusals at the chart form’s controls', () => {
  it('asks for a name and a measure in the form’s words', () => {
    expect(refused({ name: '  ', 'period.preset': 'today' })).toEqual({ name: 'Give the chart a name.', metric: 'Choose what to measure.' });
  });

  it('names the aggregations a measure takes when another is chosen', () => {
    expect(refused({ name: 'Spend', metric: 'cost', aggregation: 'p99' })).toEqual({
      aggregation: 'Cost is shown as Total, Average: pick one of these, or the usual.',
    });
  });

  it('puts a custom period’s missing days at the first and last day', () => {
    expect(refused({ name: 'x', metric: 'calls', 'period.preset': 'custom', 'period.from': '', 'period.last_day': '' })).toEqual({
      'period.from': 'Pick the first day.',
      'period.last_day': 'Pick the last day.',
    });
  });

  it('says too many groupings at the grouping, and a bad outcome field at its line', () => {
    expect(refused({ name: 'x', metric: 'calls', 'group_by.time': 'day', group_by: ['assistant', 'status'] })).toEqual({
      group_by: 'Split by 2 at most, the time counting as one.',
    });
    expect(refused({ name: 'x', metric: 'calls', 'group_by.outcome': 'bad field!' })).toEqual({
      'group_by.outcome': expect.stringMatching(/^Letters, digits and _/),
    });
  });

  it('puts a typed number that is not one at the line it was typed in, and the measure’s missing field at the field', () => {
    expect(refused({ name: 'x', metric: 'outcomes', 'filters.phone_number.other': '12345' })).toEqual({
      field: 'Top outcomes reads a field of the post-call analysis: type one, such as sentiment.',
      'filters.phone_number.other': '12345: Not a phone number in international form, like +14155550123.',
    });
  });

  it('says a limit out of bounds with the bounds, and a preset that is none at the period', () => {
    expect(refused({ name: 'x', metric: 'calls', limit: '500', 'period.preset': 'fortnight' })).toEqual({
      limit: 'From 1 to 50.',
      'period.preset': 'Pick one of the periods.',
    });
  });
});
