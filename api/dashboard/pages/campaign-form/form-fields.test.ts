import { describe, expect, it } from 'vitest';
import { CampaignWrite } from '../../../../modules/campaigns/index.js';
import { OTHER_LEAVES } from './campaign-form.js';
import { bodyOfValues, valuesOfPost, valuesOfSettings } from './form-fields.js';
import { DEFAULTS } from './schema-facts.js';
import { postedForm } from '../../../../test/helpers/posted-form.js';

// The campaign form's posted fields turned into the API's body: what a browser posts without a script, what the
// schema then takes, and the way back from stored settings to the same fields.

const posted = postedForm;

const base: [string, string][] = [
  ['name', 'Spring renewals'],
  ['assistant_id', '7'],
  ['from_numbers', '+14155550121'],
];
const weekday: [string, string][] = [
  ['window_mon_start[]', '09:00'],
  ['window_mon_end[]', '17:00'],
];

describe('the campaign form’s fields as the API’s body', () => {
  it('makes one window of the days that share their hours, and remembers which day rows each window came from', () => {
    const fields: [string, string][] = [...base];
    for (const day of ['mon', 'tue', 'wed', 'thu', 'fri']) fields.push([`window_${day}_start[]`, '09:00'], [`window_${day}_end[]`, '17:00']);
    fields.push(['window_mon_start[]', '18:00'], ['window_mon_end[]', '20:00'], ['window_sat_start[]', '10:00'], ['window_sat_end[]', '14:00']);
    // A day's spare pair, left empty, is not a range.
    fields.push(['window_sun_start[]', ''], ['window_sun_end[]', '']);
    const { body, windowRows } = bodyOfValues(valuesOfPost(posted(fields)));
    expect((body.schedule as { windows: unknown }).windows).toEqual([
      { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' },
      { days: ['mon'], start: '18:00', end: '20:00' },
      { days: ['sat'], start: '10:00', end: '14:00' },
    ]);
    expect(windowRows[1]).toEqual([{ day: 'mon', index: 1 }]);
    expect(windowRows[0]).toHaveLength(5);
    expect(CampaignWrite.safeParse(body).success).toBe(true);
  });

  it('reads an end of 00:00 as midnight, and shows a stored 24:00 as 00:00', () => {
    const { body } = bodyOfValues(valuesOfPost(posted([...base, ['window_fri_start[]', '18:00'], ['window_fri_end[]', '00:00']])));
    expect((body.schedule as { windows: unknown }).windows).toEqual([{ days: ['fri'], start: '18:00', end: '24:00' }]);
    const shown = valuesOfSettings({ schedule: { ...DEFAULTS.schedule!, windows: [{ days: ['fri'], start: '18:00', end: '24:00' }] } });
    expect(shown.week.fri).toEqual([{ start: '18:00', end: '00:00' }]);
  });

  it('turns percentages into the API’s shares and back without rounding noise', () => {
    const { body } = bodyOfValues(valuesOfPost(posted([...base, ['pacing.org_share', '33.3'], ['circuit_breaker.failure_ratio', '7']])));
    expect(body.pacing).toMatchObject({ org_share: 0.333 });
    expect(body.circuit_breaker).toMatchObject({ failure_ratio: 0.07 });
    const shown = valuesOfSettings({ pacing: { max_concurrent_calls: 5, calls_per_minute: 30, org_share: 0.07 } });
    expect(shown.fields['pacing.org_share']).toBe('7');
  });

  it('reads the first and last call as local times in the campaign’s zone', () => {
    const { body } = bodyOfValues(
      valuesOfPost(posted([...base, ['schedule.timezone', 'Europe/Paris'], ['schedule.start_at', '2026-07-01T09:30'], ['schedule.end_at', '']])),
    );
    expect(body.schedule).toMatchObject({ timezone: 'Europe/Paris', start_at: '2026-07-01T09:30:00+02:00', end_at: null });
    const shown = valuesOfSettings({ schedule: { ...DEFAULTS.schedule!, timezone: 'Europe/Paris', start_at: '2026-07-01T07:30:00Z' } });
    expect(shown.fields['schedule.start_at']).toBe('2026-07-01T09:30');
  });

  it('reads a switch by its last posted value, and leaves an absent one to its default', () => {
    const on = bodyOfValues(valuesOfPost(posted([...base, ['voicemail.detect', 'false'], ['voicemail.detect', 'true']]))).body;
    const off = bodyOfValues(valuesOfPost(posted([...base, ['voicemail.detect', 'false']]))).body;
    const absent = bodyOfValues(valuesOfPost(posted([...base, ...weekday]))).body;
    expect((on.voicemail as { detect: unknown }).detect).toBe(true);
    expect((off.voicemail as { detect: unknown }).detect).toBe(false);
    expect(absent.voicemail).not.toHaveProperty('detect');
    expect(CampaignWrite.parse(absent).voicemail.detect).toBe(true);
  });

  it('leaves an emptied number to its default, and sends text that is not one for the API to refuse', () => {
    const { body } = bodyOfValues(valuesOfPost(posted([...base, ...weekday, ['pacing.calls_per_minute', ''], ['retry.busy.attempts', 'two']])));
    expect(body.pacing).toBeUndefined();
    const parsed = CampaignWrite.safeParse(body);
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues.map((i) => i.path.join('.'))).toEqual(['retry.busy.attempts']);
  });

  it('makes the variables one object, and refuses a value without a name or a name given twice at its row', () => {
    const { body, problems } = bodyOfValues(
      valuesOfPost(
        posted([
          ...base,
          ['variable_name[]', 'offer'],
          ['variable_value[]', '10% off'],
          ['variable_name[]', ''],
          ['variable_value[]', 'orphan'],
          ['variable_name[]', 'offer'],
          ['variable_value[]', 'again'],
          ['variable_name[]', ''],
          ['variable_value[]', ''],
        ]),
      ),
    );
    expect(body.variables).toEqual({ offer: '10% off' });
    expect(problems).toEqual({ 'variable.1': expect.stringMatching(/name/), 'variable.2': expect.stringMatching(/Another variable/) });
  });

  it('keeps the stored order of the numbers to call from, with a newly ticked one after them', () => {
    const values = valuesOfPost(posted([...base, ['from_numbers', '+14155550122'], ['from_numbers', '+14155550123']]));
    expect(bodyOfValues(values, ['+14155550123', '+14155550121']).body.from_numbers).toEqual(['+14155550123', '+14155550121', '+14155550122']);
  });

  it('reads fields of any shape a request can carry without failing: lists, objects, no body at all', () => {
    for (const body of [undefined, null, 'text', [1, 2], { name: ['A', 'B'], assistant_id: { id: 1 }, 'window_mon_start[]': [{}, '09:00'], from_numbers: 5 }]) {
      const values = valuesOfPost(body);
      const built = bodyOfValues(values);
      expect(typeof built.body.name).toBe('string');
      expect(CampaignWrite.safeParse(built.body).success).toBe(false);
    }
    expect(valuesOfPost({ name: ['A', 'B'] }).fields.name).toBe('A');
  });

  it('gives back exactly the stored settings when a stored campaign’s form is posted unchanged', () => {
    const stored = CampaignWrite.parse({
      name: 'Renewals',
      assistant_id: 3,
      from_numbers: ['+14155550122', '+14155550121'],
      number_rotation: 'sticky',
      schedule: {
        timezone: 'America/New_York',
        use_contact_timezone: false,
        windows: [
          { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' },
          { days: ['sat'], start: '10:00', end: '24:00' },
        ],
        start_at: '2026-07-01T13:00:00Z',
      },
      pacing: { org_share: 0.35 },
      retry: { no_answer: { attempts: 4, delay_minutes: 90 } },
      voicemail: { action: 'leave_message', message: 'Hello {{var.name}}' },
      circuit_breaker: { enabled: false, failure_ratio: 0.25 },
      variables: { offer: 'ten percent', region: 'north' },
    });
    // What the browser posts for the form as shown: every field with its shown value, and switches as they stand.
    const shown = valuesOfSettings(stored);
    const fields: [string, string][] = Object.entries(shown.fields).map(([k, v]) => [k, v] as [string, string]);
    for (const n of ['+14155550121', '+14155550122']) fields.push(['from_numbers', n]);
    for (const [day, ranges] of Object.entries(shown.week))
      for (const r of ranges) fields.push([`window_${day}_start[]`, r.start], [`window_${day}_end[]`, r.end]);
    for (const v of shown.variables) fields.push(['variable_name[]', v.name], ['variable_value[]', v.value]);
    const again = CampaignWrite.parse(bodyOfValues(valuesOfPost(posted(fields)), stored.from_numbers).body);
    expect(again).toEqual({ ...stored, schedule: { ...stored.schedule, start_at: '2026-07-01T09:00:00-04:00' } });
    expect(Date.parse(again.schedule.start_at!)).toBe(Date.parse(stored.schedule.start_at!));
  });

  it('has a control of its own for every setting of the API, so none falls to “Other settings”', () => {
    expect(OTHER_LEAVES.map((l) => l.key)).toEqual([]);
  });
});
