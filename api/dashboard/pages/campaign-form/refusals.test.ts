import { describe, expect, it } from 'vitest';
import { zodIssuesToDetail } from '../../../../lib/zod/detail.js';
import { CampaignWrite } from '../../../../modules/campaigns/index.js';
import { bodyOfValues, valuesOfPost } from './form-fields.js';
import { placeDetail } from './refusals.js';

// The API's 422 `detail` placed at the control each refusal concerns, in the form's words.

function refused(form: Record<string, string | string[]>) {
  const values = valuesOfPost(form);
  const built = bodyOfValues(values);
  const parsed = CampaignWrite.safeParse(built.body);
  expect(parsed.success).toBe(false);
  return placeDetail(zodIssuesToDetail(parsed.error!.issues, 'body', built.body), values, built);
}

describe('the API’s refusals at the campaign form’s controls', () => {
  it('shows a window that ends before it starts at every day row it was made from', () => {
    const errors = refused({
      name: 'x',
      assistant_id: '1',
      from_numbers: '+14155550121',
      'window_mon_start[]': ['09:00', '17:00'],
      'window_mon_end[]': ['12:00', '16:00'],
      'window_tue_start[]': '17:00',
      'window_tue_end[]': '16:00',
    });
    expect(Object.keys(errors)).toEqual(['window.mon.1', 'window.tue.0']);
    expect(errors['window.mon.1']).toMatch(/ends before it starts/);
  });

  it('asks for both times of a half-typed range, and for hours when no day has any', () => {
    expect(refused({ name: 'x', assistant_id: '1', from_numbers: '+14155550121', 'window_wed_start[]': '09:00', 'window_wed_end[]': '' })).toEqual({
      'window.wed.0': 'Give both times of the range, or clear both to remove it.',
    });
    expect(refused({ name: 'x', assistant_id: '1', from_numbers: '+14155550121' })).toEqual({ 'schedule.windows': 'Give at least one day a range of hours.' });
  });

  it('names what is missing in the form’s words: a name, an assistant, a number to call from', () => {
    expect(refused({ 'window_mon_start[]': '09:00', 'window_mon_end[]': '17:00' })).toEqual({
      name: 'Give the campaign a name.',
      assistant_id: 'Choose the assistant that talks on these calls.',
      from_numbers: 'Tick at least one number to call from.',
    });
  });

  it('says a share’s bounds in percent, a bad variable name at its row, and a number that is not one beside it', () => {
    const errors = refused({
      name: 'x',
      assistant_id: '1',
      from_numbers: ['+14155550121', '12'],
      'window_mon_start[]': '09:00',
      'window_mon_end[]': '17:00',
      'pacing.org_share': '2',
      'variable_name[]': ['fine', '9lives'],
      'variable_value[]': ['a', 'b'],
    });
    expect(errors).toEqual({
      'from_numbers.12': expect.stringMatching(/E\.164/),
      'pacing.org_share': 'From 5 % to 100 %.',
      'variable.1': expect.stringMatching(/letters, digits and _/),
    });
  });
});
