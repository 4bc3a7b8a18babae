import { describe, expect, it } from 'vitest';
import { PlaybookCreate, type PlaybookOut } from '../../../../modules/playbooks/index.js';
import { messagesOfScript, scriptOf } from './example-rows.js';
import { bodyOfValues, valuesOfPlaybook, valuesOfPost } from './form-fields.js';

// The playbook form's posted fields turned into the API's body, and back from a stored playbook to the same fields.

const stored: PlaybookOut = {
  id: 9,
  name: 'Order status',
  description: 'The caller asks about an order',
  enabled: true,
  goal: 'Say where the order is',
  instructions: ['Ask for the number', 'Look it up'],
  examples: [
    [
      { role: 'user', content: 'Where is my order?' },
      { role: 'assistant', content: 'I can check.\nWhat is its number?' },
    ],
  ],
  content: 'Orders ship from Leeds.',
  tool_ids: [5, 3],
  collect: [
    { name: 'order_number', type: 'string', description: 'On the receipt', required: true, values: null },
    { name: 'tier', type: 'enum', description: '', required: false, values: ['Gold', 'Silver'] },
  ],
  mode: 'handoff',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};

/** What the browser posts for the form as shown, with the spare rows empty. */
function shownAsPosted(playbook: PlaybookOut): Record<string, string | string[]> {
  const v = valuesOfPlaybook(playbook);
  const column = <T>(rows: T[], pick: (r: T) => string, spare = '') => [...rows.map(pick), spare];
  return {
    ...v.fields,
    'example[]': [...v.examples, ''],
    tool_ids: ['', ...v.toolIds],
    'collect_name[]': column(v.collect, (c) => c.name),
    'collect_type[]': column(v.collect, (c) => c.type, 'string'),
    'collect_description[]': column(v.collect, (c) => c.description),
    'collect_values[]': column(v.collect, (c) => c.values),
    'collect_required[]': v.collect.flatMap((c, i) => (c.required ? [String(i)] : [])),
  };
}

describe('the playbook form’s fields as the API’s body', () => {
  it('reads an example written as a script, a turn a line, and writes it back the same', () => {
    const script = 'Caller: Where is my order?\nAssistant: I can check.\nWhat is its number?\ncaller:  4417';
    expect(messagesOfScript(script)).toEqual({
      messages: [
        { role: 'user', content: 'Where is my order?' },
        { role: 'assistant', content: 'I can check.\nWhat is its number?' },
        { role: 'user', content: '4417' },
      ],
    });
    expect(messagesOfScript('Hello\nCaller: hi')).toEqual({ line: 1 });
    expect(scriptOf(stored.examples[0]!)).toBe('Caller: Where is my order?\nAssistant: I can check.\nWhat is its number?');
  });

  it('gives back the stored playbook when its form is posted unchanged, its tools left out as unchanged', () => {
    const { body, problems } = bodyOfValues(valuesOfPost(shownAsPosted(stored)), stored.tool_ids);
    expect(problems).toEqual({});
    expect(body).not.toHaveProperty('tool_ids');
    const { id: _i, created_at: _c, updated_at: _u, ...fields } = stored;
    expect(PlaybookCreate.parse({ ...body, tool_ids: stored.tool_ids })).toEqual(fields);
  });

  it('keeps the stored order of the tools, with a newly ticked one after them, and sends the list when it changed', () => {
    const values = valuesOfPost({ ...shownAsPosted(stored), tool_ids: ['', '3', '8', '5'] });
    expect(bodyOfValues(values, [5, 3]).body.tool_ids).toEqual([5, 3, 8]);
    expect(bodyOfValues(valuesOfPost({ ...shownAsPosted(stored), tool_ids: '' }), [5, 3]).body.tool_ids).toEqual([]);
    expect(bodyOfValues(valuesOfPost({ tool_ids: ['2', 'x'] })).body.tool_ids).toEqual([2, 'x']);
  });

  it('makes steps of the lines, and values to collect of the rows, a list of values only for a choice', () => {
    const { body, problems } = bodyOfValues(
      valuesOfPost({
        name: 'Renewals',
        instructions: '  Greet the caller \n\nAsk for the plan\r\n',
        'collect_name[]': ['plan', 'when', ''],
        'collect_type[]': ['enum', 'date', 'string'],
        'collect_description[]': ['Their plan', '', ''],
        'collect_values[]': ['Gold\n Silver \n', 'left over', ''],
        'collect_required[]': '1',
        'example[]': ['Assistant: Hello', 'Nobody speaks here'],
      }),
    );
    expect(body.instructions).toEqual(['Greet the caller', 'Ask for the plan']);
    expect(body.collect).toEqual([
      { name: 'plan', type: 'enum', description: 'Their plan', required: false, values: ['Gold', 'Silver'] },
      { name: 'when', type: 'date', description: '', required: true, values: null },
    ]);
    expect(problems).toEqual({ 'example.1': 'Line 1 does not say who speaks: open it with “Caller:” or “Assistant:”.' });
  });

  it('reads fields of any shape a request can carry without failing', () => {
    for (const form of [undefined, null, 'text', [1], { name: ['A', 'B'], tool_ids: [{ a: 1 }, '1'], 'collect_required[]': 3, 'example[]': { x: 1 } }]) {
      const built = bodyOfValues(valuesOfPost(form));
      expect(typeof built.body.name).toBe('string');
    }
  });
});
