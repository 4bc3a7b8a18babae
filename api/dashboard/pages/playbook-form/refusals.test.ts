import { describe, expect, it } from 'vitest';
import { zodIssuesToDetail } from '../../../../lib/zod/detail.js';
import { PlaybookCreate } from '../../../../modules/playbooks/index.js';
import { bodyOfValues, valuesOfPost } from './form-fields.js';
import { placePlaybookDetail } from './refusals.js';
import type { ToolChoice } from './tool-picker.js';

// The API's 422 `detail` placed at the control each refusal concerns, in the form's words.

const tools: ToolChoice[] = [
  { id: 1, name: 'lookup_order', type: 'http', enabled: true },
  { id: 2, name: 'old_lookup', type: 'http', enabled: false },
];

function refused(form: Record<string, string | string[]>) {
  const values = valuesOfPost(form);
  const built = bodyOfValues(values);
  const parsed = PlaybookCreate.safeParse(built.body);
  expect(parsed.success).toBe(false);
  return placePlaybookDetail(zodIssuesToDetail(parsed.error!.issues, 'body', built.body), values, built, tools);
}

describe('the API’s refusals at the playbook form’s controls', () => {
  it('names a missing name, a step too long by its number, and an empty turn of an example', () => {
    expect(refused({ name: ' ', instructions: `Greet\n${'x'.repeat(1001)}`, 'example[]': 'Caller: hi\nAssistant:' })).toEqual({
      name: 'Give the playbook a name.',
      instructions: 'Step 2 is too long: 1,000 characters at most a step.',
      'example.0': 'Turn 2 says nothing: write what is said, or remove the line.',
    });
  });

  it('puts a bad value name and a choice without values at their row', () => {
    expect(
      refused({
        name: 'p',
        'collect_name[]': ['ok', '2bad', 'tier'],
        'collect_type[]': ['string', 'string', 'enum'],
        'collect_description[]': ['', 'x', ''],
        'collect_values[]': ['', '', 'Gold'],
        'collect_required[]': [],
      }),
    ).toEqual({ 'collect.1.name': 'Start with a letter; use letters, digits and _ only (no spaces), 64 at most.' });
  });

  it('says a tool not the organisation’s, or disabled, at its box', () => {
    const values = valuesOfPost({ name: 'p', tool_ids: ['', '1', '2', '77'] });
    const built = bodyOfValues(values);
    const detail = [
      { loc: ['body', 'tool_ids', 1], msg: 'Tool 2 is disabled', type: 'value_error' },
      { loc: ['body', 'tool_ids', 2], msg: 'Tool 77 does not exist', type: 'value_error' },
    ];
    expect(placePlaybookDetail(detail, values, built, tools)).toEqual({
      'tool_ids.2': 'This tool is disabled: turn it on in its page, or untick it.',
      'tool_ids.77': 'Not one of this organisation’s tools: untick it.',
    });
  });
});
