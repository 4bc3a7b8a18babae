import { describe, expect, it } from 'vitest';
import { ChartWrite } from '../../../../modules/analytics/index.js';
import { bodyOfValues, type Owned, valuesOfChart, valuesOfPost } from './form-fields.js';

// The chart form's posted fields turned into the API's body: what a browser posts without a script, what the schema
// then takes, and the way back from a stored chart to the same fields.

const owned: Owned = { assistants: new Set([7, 8]), campaigns: new Set([3]), contacts: new Set([21]) };

const base = { name: 'Daily calls', metric: 'calls', chart_type: 'line', limit: '10', timezone: 'UTC', 'period.preset': 'last_7_days' };

describe('the chart form’s fields as the API’s body', () => {
  it('makes the grouping from the time step, the call fields ticked and an outcome field, time first', () => {
    const { body, groupSources } = bodyOfValues(
      valuesOfPost({ ...base, 'group_by.time': 'day', group_by: ['campaign', 'assistant'], 'group_by.outcome': 'sentiment' }),
      owned,
    );
    // Three is one too many for the API: the form sends what was chosen and lets it say so.
    expect(body.group_by).toEqual(['day', 'assistant', 'campaign', 'outcome.sentiment']);
    expect(groupSources).toEqual(['time', 'field', 'field', 'outcome']);
  });

  it('sends each filter’s ticked values, typed numbers closed up, and ids as numbers', () => {
    const { body, problems } = bodyOfValues(
      valuesOfPost({
        ...base,
        'filters.status': ['completed', 'failed'],
        'filters.assistant_id': '7',
        'filters.phone_number': '+14155550100',
        'filters.phone_number.other': '+1 (415) 555-0199, +14155550100',
        'filters.end_reason': 'transferred',
        'filters.end_reason.other': 'sip_error',
      }),
      owned,
    );
    expect(problems).toEqual({});
    expect(body.filters).toEqual({
      status: ['completed', 'failed'],
      end_reason: ['transferred', 'sip_error'],
      assistant_id: [7],
      phone_number: ['+14155550100', '+14155550199'],
    });
    expect(body.period).toEqual({ preset: 'last_7_days' });
    expect(ChartWrite.safeParse(body).success).toBe(true);
  });

  it('refuses an assistant, a campaign or a contact that is not the organisation’s at its box', () => {
    const { problems } = bodyOfValues(
      valuesOfPost({ ...base, 'filters.assistant_id': ['7', '99'], 'filters.campaign_id': '4', 'filters.contact_id': ['21', '22'] }),
      owned,
    );
    expect(problems).toEqual({
      'filters.assistant_id.99': 'Not one of this organisation’s assistants: untick it.',
      'filters.campaign_id.4': 'Not one of this organisation’s campaigns: untick it.',
      'filters.contact_id.22': 'Not one of this organisation’s contacts: untick it.',
    });
  });

  it('reads a custom period’s last day as included: the API’s `to` is the day after', () => {
    const { body } = bodyOfValues(valuesOfPost({ ...base, 'period.preset': 'custom', 'period.from': '2026-03-01', 'period.last_day': '2026-03-31' }), owned);
    expect(body.period).toEqual({ from: '2026-03-01', to: '2026-04-01' });
    // Back again: the stored `to` is shown as the last day.
    const shown = valuesOfChart({ name: 'x', metric: 'calls', period: { from: '2026-03-01', to: '2026-04-01' } });
    expect(shown.fields).toMatchObject({ 'period.preset': 'custom', 'period.from': '2026-03-01', 'period.last_day': '2026-03-31' });
  });

  it('shows a period stored as instants by the days they fall on in the chart’s zone', () => {
    const shown = valuesOfChart({
      name: 'x',
      metric: 'calls',
      timezone: 'Europe/Paris',
      period: { from: '2026-02-28T23:00:00Z', to: '2026-03-08T00:00:00+01:00' },
    });
    expect(shown.fields['period.from']).toBe('2026-03-01');
    expect(shown.fields['period.last_day']).toBe('2026-03-07');
  });

  it('fills the form from a stored chart: time, fields, outcome and filters where they were', () => {
    const shown = valuesOfChart({
      name: 'By day',
      metric: 'outcomes',
      field: 'sentiment',
      group_by: ['direction', 'week', 'outcome.fields.plan'],
      filters: { assistant_id: [7], phone_number: ['+14155550100'] },
      period: { preset: 'this_month' },
      timezone: 'Asia/Tokyo',
      limit: 5,
    });
    expect(shown.fields).toMatchObject({
      'group_by.time': 'week',
      'group_by.outcome': 'fields.plan',
      field: 'sentiment',
      limit: '5',
      'period.preset': 'this_month',
    });
    expect(shown.groups).toEqual(['direction']);
    expect(shown.filters.assistant_id).toEqual(['7']);
    expect(shown.filters.phone_number).toEqual(['+14155550100']);
  });

  it('reads any shape a hand-made post sends as text, never throwing', () => {
    const odd = valuesOfPost({ name: { a: 1 }, group_by: [1, 'status'], 'filters.status': 5, 'period.preset': ['custom', 'x'] });
    expect(odd.fields.name).toBe('');
    expect(odd.groups).toEqual(['status']);
    expect(odd.filters.status).toEqual([]);
    expect(valuesOfPost([1, 2]).fields.metric).toBe('');
    const { body } = bodyOfValues(odd, owned);
    expect(body.period).toEqual({ from: '', to: '' });
  });
});
