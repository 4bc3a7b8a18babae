import { llm, type voice } from '@livekit/agents';
import { describe, expect, it } from 'vitest';
import { resolvedMode, type CallPlaybook } from '../../modules/playbooks/call-playbooks.js';
import { TOOL_NAME } from '../../modules/tools/schemas.js';
import type { CallTool } from '../../modules/tools/call-tools.js';
import { buildAssistantAgent, slug, type AssistantAgentSpec } from './assistant-agent.js';
import { CallAgent } from './call-agent.js';
import { CollectedValues } from './collected-values.js';

const tool = (name: string): CallTool => ({
  name,
  description: `Does ${name}`,
  type: 'http',
  parameters: { type: 'object', properties: {} },
  http: null,
  transfer: null,
  messages: { on_start: null, on_slow: null, slow_after_ms: 2_000, on_failure: null },
});

let ids = 0;
const playbook = (more: Partial<CallPlaybook> = {}): CallPlaybook => ({
  id: ++ids,
  name: 'Booking',
  description: 'The caller wants an appointment',
  goal: 'A booked slot',
  instructions: ['Ask the day', 'Confirm it'],
  examples: [
    [
      { role: 'user', content: 'Friday?' },
      { role: 'assistant', content: 'Friday works.' },
    ],
  ],
  notes: 'Closed on Sundays.',
  collect: [],
  mode: 'handoff',
  tools: [],
  ...more,
});

/** Tools as a test run mocks them: the same names, a canned answer. */
const mocked = (tools: CallTool[]) => tools.map((t) => llm.tool({ name: t.name, description: t.description, execute: async () => 'mocked' }));

function spec(more: Partial<AssistantAgentSpec> = {}): AssistantAgentSpec {
  return {
    instructions: 'You are the front desk of a dental practice.',
    tools: [],
    playbooks: [],
    toolsFor: mocked,
    collected: new CollectedValues(),
    ...more,
  };
}

const names = (agent: voice.Agent) => Object.keys(agent.toolCtx.functionTools).sort();
const toolOf = (agent: voice.Agent, name: string) => {
  const found = agent.toolCtx.getFunctionTool(name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};

/** Runs a tool as the framework would, in a session whose current agent has had `chat`. */
function run(agent: voice.Agent, name: string, args: Record<string, unknown>, chat = llm.ChatContext.empty()): Promise<unknown> {
  const ctx = { session: { currentAgent: { chatCtx: chat } } };
  return toolOf(agent, name).execute(args, { ctx: ctx as never, toolCallId: 'call_1', abortSignal: new AbortController().signal });
}

function handedTo(result: unknown): CallAgent {
  const agent = (result as { agent?: unknown }).agent;
  expect(agent).toBeInstanceOf(CallAgent);
  return agent as CallAgent;
}

describe('the assistant agent', () => {
  it('puts an inline playbook in the prompt as a section, with no tool to take it', () => {
    const agent = buildAssistantAgent(spec({ tools: [tool('lookup_order')], playbooks: [playbook({ mode: 'inline' })] }));
    expect(agent).toBeInstanceOf(CallAgent);
    expect(agent.instructions).toContain('You are the front desk');
    expect(agent.instructions).toContain(
      '## Playbook: Booking\nWhen to use it: The caller wants an appointment\nGoal: A booked slot\nSteps:\n1. Ask the day\n2. Confirm it',
    );
    expect(agent.instructions).toContain('Caller: Friday?\nYou: Friday works.');
    expect(agent.instructions).toContain('Notes:\nClosed on Sundays.');
    expect(names(agent)).toEqual(['lookup_order']);
  });

  it('gives an inline playbook that collects a save tool on the main agent', async () => {
    const collected = new CollectedValues();
    const agent = buildAssistantAgent(
      spec({
        collected,
        playbooks: [playbook({ mode: 'inline', collect: [{ name: 'guests', type: 'integer', description: '', required: true, values: null }] })],
      }),
    );
    expect(names(agent)).toEqual(['save_booking_values']);
    expect(agent.instructions).toContain('guests (integer, required)');
    expect(await run(agent, 'save_booking_values', { guests: '3' })).toEqual({ saved: ['guests'], still_missing: [] });
    expect(collected.record()).toEqual({ Booking: { values: { guests: 3 }, missing: [] } });
  });

  it('names handoff tools from the playbooks, valid and unique beside the assistant’s own tools', () => {
    const playbooks = [
      playbook({ name: 'Réservation de table' }),
      playbook({ name: 'Booking' }),
      playbook({ name: 'booking!' }),
      playbook({ name: '!!!', id: 77 }),
      playbook({ name: 'A very long playbook name that goes on and on about the many things it covers' }),
    ];
    const agent = buildAssistantAgent(spec({ tools: [tool('use_playbook_booking')], playbooks }));
    const offered = names(agent);
    expect(offered).toEqual(
      [
        'use_playbook_booking',
        'use_playbook_reservation_de_table',
        'use_playbook_booking_2',
        'use_playbook_booking_3',
        'use_playbook_playbook_77',
        `use_playbook_${'a_very_long_playbook_name_that_goes_on_and_on_about'.slice(0, 40)}`,
      ].sort(),
    );
    for (const name of offered) expect(name).toMatch(TOOL_NAME);
    expect(slug({ id: 1, name: 'x'.repeat(100) })).toHaveLength(40);
  });

  it('hands off to an agent with the prompt and the playbook, its own tools, a save tool and the way back, and the conversation', async () => {
    const collected = new CollectedValues();
    const booking = playbook({ tools: [tool('check_slots')], collect: [{ name: 'day', type: 'date', description: 'The day', required: true, values: null }] });
    const main = buildAssistantAgent(spec({ tools: [tool('lookup_order')], playbooks: [booking], collected }));
    expect(names(main)).toEqual(['lookup_order', 'use_playbook_booking']);

    const chat = llm.ChatContext.empty();
    chat.addMessage({ role: 'system', content: 'The main prompt' });
    chat.addMessage({ role: 'user', content: 'I need an appointment' });
    const inside = handedTo(await run(main, 'use_playbook_booking', {}, chat));
    expect(inside.instructions).toMatch(/^You are the front desk of a dental practice\.\n\nYou are now following the playbook/);
    expect(inside.instructions).toContain('## Playbook: Booking');
    expect(inside.instructions).toContain('day (date, required): The day');
    expect(inside.instructions).toContain('finish_playbook');
    expect(names(inside)).toEqual(['check_slots', 'finish_playbook', 'save_values']);
    // The conversation comes along, without the main agent's instructions.
    expect(inside.chatCtx.items.map((i) => (i.type === 'message' ? `${i.role}:${i.textContent}` : i.type))).toEqual(['user:I need an appointment']);
    // Entered, it speaks first; its required value is reported missing until saved.
    expect(collected.record()).toEqual({ Booking: { values: {}, missing: ['day'] } });
  });

  it('refuses a bad value with why, saves the good ones in their types, and holds the way back until required values are in', async () => {
    const collected = new CollectedValues();
    const booking = playbook({
      collect: [
        { name: 'day', type: 'date', description: '', required: true, values: null },
        { name: 'guests', type: 'integer', description: '', required: false, values: null },
      ],
    });
    const inside = buildAssistantAgent(spec({ playbooks: [booking], collected, startInPlaybook: 0 }));
    expect(names(inside)).toEqual(['finish_playbook', 'save_values']);
    await expect(run(inside, 'save_values', { day: 'soon', guests: '2' })).rejects.toThrow('Not saved: day must be a date');
    await expect(run(inside, 'finish_playbook', { reason: 'done' })).rejects.toThrow('still missing day');
    expect(await run(inside, 'save_values', { day: '2026-12-04' })).toEqual({ saved: ['day'], still_missing: [] });
    const back = handedTo(await run(inside, 'finish_playbook', { reason: 'done' }));
    expect(back.instructions).toBe('You are the front desk of a dental practice.');
    expect(names(back)).toEqual(['use_playbook_booking']);
    expect(collected.record()).toEqual({ Booking: { values: { day: '2026-12-04', guests: 2 }, missing: [] } });
  });

  it('lets the caller change the subject with required values still missing, and reports them', async () => {
    const collected = new CollectedValues();
    const booking = playbook({ collect: [{ name: 'day', type: 'date', description: '', required: true, values: null }] });
    const inside = buildAssistantAgent(spec({ playbooks: [booking], collected, startInPlaybook: 0 }));
    handedTo(await run(inside, 'finish_playbook', { reason: 'changed_subject' }));
    expect(collected.record()).toEqual({ Booking: { values: {}, missing: ['day'] } });
  });

  it('keeps a playbook’s own tool named like the way back, and names the way back apart', () => {
    const inside = buildAssistantAgent(spec({ playbooks: [playbook({ tools: [tool('finish_playbook')] })], startInPlaybook: 0 }));
    expect(names(inside)).toEqual(['finish_playbook', 'finish_playbook_2']);
    expect(inside.instructions).toContain('call finish_playbook_2 with reason "done"');
  });

  it('records nothing for a call whose playbooks were never used', () => {
    const collected = new CollectedValues();
    buildAssistantAgent(
      spec({ playbooks: [playbook({ collect: [{ name: 'day', type: 'date', description: '', required: true, values: null }] })], collected }),
    );
    expect(collected.record()).toBeNull();
  });
});

describe('the mode of an auto playbook', () => {
  const auto = (more: Partial<CallPlaybook>) => resolvedMode({ ...playbook(more), mode: 'auto' });
  it('is inline when small, without tools and values to collect; a handoff otherwise', () => {
    expect(auto({})).toBe('inline');
    expect(auto({ tools: [tool('check_slots')] })).toBe('handoff');
    expect(auto({ collect: [{ name: 'day', type: 'date', description: '', required: false, values: null }] })).toBe('handoff');
    expect(auto({ notes: 'x'.repeat(2_000) })).toBe('handoff');
    expect(resolvedMode({ ...playbook({ tools: [tool('check_slots')] }), mode: 'inline' })).toBe('inline');
  });
});
