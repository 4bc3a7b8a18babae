import { describe, expect, it } from 'vitest';
import { zodIssuesToDetail } from '../../../../lib/zod/detail.js';
import { ToolCreate } from '../../../../modules/tools/index.js';
import { bodyOfValues, valuesOfPost } from './form-fields.js';
import { placeToolDetail } from './refusals.js';

// The API's 422 `detail` placed at the control each refusal concerns, in the form's words.

function refused(form: Record<string, string | string[]>) {
  const values = valuesOfPost(form);
  const built = bodyOfValues(values);
  const parsed = ToolCreate.safeParse(built.body);
  expect(parsed.success).toBe(false);
  return placeToolDetail(zodIssuesToDetail(parsed.error!.issues, 'body', built.body), values);
}

describe('the API’s refusals at the tool form’s controls', () => {
  it('names what is missing in the form’s words: a name, a kind', () => {
    expect(refused({ name: '' })).toEqual({ name: 'Give the tool a name: the model calls it by this name.', type: 'Choose what the tool does.' });
    expect(refused({ name: 'has space', type: 'http', 'http.url': 'https://x.example.com' })).toEqual({
      name: 'Start with a letter and use only letters, digits, _ and - (no spaces), 64 at most.',
    });
  });

  it('says a time’s bounds in seconds, and a time that is no number as one', () => {
    expect(refused({ name: 'a', type: 'http', 'http.url': 'https://x.example.com', 'http.timeout_ms': '90' })).toEqual({
      'http.timeout_ms': 'From 0.5 to 30 seconds.',
    });
    expect(refused({ name: 'a', type: 'http', 'http.url': 'https://x.example.com', 'messages.slow_after_ms': 'soon' })).toEqual({
      'messages.slow_after_ms': 'Give a number of seconds, like 2.5.',
    });
  });

  it('puts a bad header name at its row, and an unreachable destination at the destination', () => {
    expect(
      refused({
        name: 'a',
        type: 'http',
        'http.url': 'https://x.example.com',
        'header_name[]': ['Accept', 'Bad Header'],
        'header_value[]': ['json', 'x'],
        'header_kept[]': ['', ''],
      }),
    ).toEqual({ 'header.1.name': 'A header name is letters, digits and - only: no spaces or colons.' });
    expect(refused({ name: 'a', type: 'transfer_call', 'transfer.destination': '555-0123' })).toEqual({
      'transfer.destination': 'A phone number with its country code (+14155550123) or a SIP address (sip:desk@pbx.example.com).',
    });
  });

  it('puts an argument’s refusal at its row, or at the JSON Schema when that is what was saved', () => {
    const values = valuesOfPost({
      'param_name[]': ['number', 'size'],
      'param_type[]': ['string', 'string'],
      'param_description[]': ['', ''],
      'param_values[]': ['', ''],
    });
    const detail = [
      {
        loc: ['body', 'parameters', 'properties', 'size', 'type'],
        msg: 'Not a valid JSON Schema: must be equal to one of the allowed values',
        type: 'value_error',
      },
    ];
    expect(placeToolDetail(detail, values)).toEqual({ 'param.1.type': detail[0]!.msg });
    const asJson = valuesOfPost({ parameters_as_json: 'true', parameters: '{}' });
    expect(placeToolDetail(detail, asJson)).toEqual({ parameters: `properties.size.type: ${detail[0]!.msg}` });
  });
});
