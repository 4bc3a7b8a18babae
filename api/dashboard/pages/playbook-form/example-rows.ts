import { html, type Html } from '../../html.js';
import { idOf, type Marks } from '../tool-form/controls.js';
import { cell, editRow, rowEditor } from '../tool-form/row-editor.js';
import { EXAMPLE_ROLES, maxOf } from './schema-facts.js';

// A playbook's example exchanges, a row each, written as a script is: one turn a line, each opened by who speaks
// ("Caller: Where is my order?" then "Assistant: What is its number?"). A line that opens with no speaker goes on the
// turn above it, so a turn may run over several lines. This reads as the exchange it is; rows of a speaker select and
// a text box a turn would take two controls a turn to say the same.

/** Who speaks, as the script names them, by the API's role. */
const SPEAKER: Record<string, string> = { user: 'Caller', assistant: 'Assistant' };
/** Names a person may also open a line with. */
const ALSO: Record<string, string> = { user: 'user', agent: 'assistant' };

export interface ExampleMessage {
  role: string;
  content: string;
}

const speakerOf = (role: string) => SPEAKER[role] ?? role;

function roleOf(word: string): string | undefined {
  const lower = word.toLowerCase();
  return (
    EXAMPLE_ROLES.find((r) => r === lower || speakerOf(r).toLowerCase() === lower) ??
    (ALSO[lower] && EXAMPLE_ROLES.includes(ALSO[lower]) ? ALSO[lower] : undefined)
  );
}

/** An exchange as the script a person reads and writes. */
export function scriptOf(messages: readonly ExampleMessage[]): string {
  return messages.map((m) => `${speakerOf(m.role)}: ${m.content}`).join('\n');
}

/** The exchange a script says, or the line that opens with no speaker. */
export function messagesOfScript(script: string): { messages: ExampleMessage[] } | { line: number } {
  const messages: ExampleMessage[] = [];
  const lines = script.split(/\r?\n/);
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const opened = /^\s*([A-Za-z]+)\s*:\s?(.*)$/.exec(line);
    const role = opened ? roleOf(opened[1]!) : undefined;
    if (role !== undefined) messages.push({ role, content: opened![2]!.trim() });
    else if (messages.length > 0) messages.at(-1)!.content = `${messages.at(-1)!.content}\n${line.trim()}`.trim();
    else return { line: i + 1 };
  }
  return { messages };
}

export const exampleKey = (index: number): string => `example.${index}`;

function exampleRow(script: string, index: number, marks: Marks, spare = false): Html {
  const noun = 'Example';
  const error = spare ? undefined : marks.at(exampleKey(index));
  const id = idOf(exampleKey(index));
  const rows = Math.min(12, Math.max(3, script.split('\n').length + 1));
  const control = html`<textarea name="example[]" class="prose script" rows="${rows}" placeholder="${`${speakerOf('user')}: Where is my order?\n${speakerOf('assistant')}: I can check. What is the order number?`}"${error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}>${script}</textarea>`;
  return editRow({
    className: 'example-row',
    cells: cell({ noun, index, label: 'The exchange, a turn a line', className: 'script', control }),
    noun,
    index,
    spare,
    error,
    id,
  });
}

export function examplesEditor(scripts: string[], marks: Marks): Html {
  const error = marks.at('examples');
  const turns = maxOf('examples.[]');
  return html`<div class="setting wide rows-setting"><span class="hint" id="f-examples-hint">Open each turn with who speaks, <strong>${speakerOf('user')}:</strong> or <strong>${speakerOf('assistant')}:</strong>. A line without one goes on the turn above.${turns ? ` Up to ${turns} turns an example.` : ''}</span>${
    error ? html`<div class="error" id="f-examples-error">${error}</div>` : ''
  }
${rowEditor({
  id: 'f-examples',
  rows: scripts.map((s, i) => exampleRow(s, i, marks)),
  spare: exampleRow('', scripts.length, marks, true),
  add: 'Add an example',
  max: maxOf('examples'),
})}</div>`;
}
