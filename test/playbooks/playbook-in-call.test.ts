import { describe, expect } from 'vitest';
import { callRecord } from '../../modules/calls/read.js';
import { PlaybookCreate } from '../../modules/playbooks/schemas.js';
import { createPlaybook } from '../../modules/playbooks/service.js';
import { callModelTest } from '../helpers/fixtures.js';
import type { OpenAIReply } from '../fakes/vendors/openai.js';
import { afterReply, createCall, localSettings, runTimeline, runtimeOrganization } from '../runtime/call-harness.js';

// A playbook in a whole audio call: the model takes its handoff, the playbook's agent speaks first with the playbook's
// instructions and tools, saves the caller's values (a bad one refused with why, then given again), leaves by the way
// back, and the main agent answers; the call's record and `call.completed` hold the values in their declared types.

type Message = { role: string; content: unknown; tool_calls?: Array<{ function: { name: string } }> };
type Chat = { messages?: Message[]; tools?: Array<{ function: { name: string } }> };

const toolNames = (body: Chat) => (body.tools ?? []).map((t) => t.function.name);

let replies: (body: Chat) => OpenAIReply = () => ({ text: 'Hello.' });
const it = callModelTest('Booked.', (body) => replies(body as Chat));

describe('a playbook in a call', () => {
  it('is taken by a handoff, collects typed values, returns to the main agent, and the record holds the values', async ({ db, llm }) => {
    const organizationId = await runtimeOrganization(db.prisma);
    const playbook = await createPlaybook(
      db.prisma,
      organizationId,
      PlaybookCreate.parse({
        name: 'Booking',
        description: 'The caller wants to book an appointment',
        goal: 'A booked appointment',
        instructions: ['Ask which day suits them', 'Confirm the day back'],
        collect: [
          { name: 'day', type: 'date', required: true },
          { name: 'party_size', type: 'integer', required: true },
          { name: 'slot', type: 'enum', values: ['Morning', 'Afternoon'] },
        ],
      }),
    );

    const playbookChats: Chat[] = [];
    let handedOff = false;
    replies = (body) => {
      const names = toolNames(body);
      const messages = body.messages ?? [];
      const last = messages.at(-1);
      if (names.includes('use_playbook_booking')) {
        // The main agent: it takes the playbook on the caller's request, and speaks first when the playbook hands back.
        if (!handedOff) {
          handedOff = true;
          return { toolCalls: [{ name: 'use_playbook_booking', arguments: '{}' }] };
        }
        return { text: 'You are booked. Anything else?' };
      }
      playbookChats.push(body);
      if (playbookChats.length === 1) return { text: 'Which day would suit you?' };
      if (last?.role === 'user') return { toolCalls: [{ name: 'save_values', arguments: '{"day":"next Friday","party_size":"4"}' }] };
      if (last?.role === 'tool' && String(last.content).includes('Not saved')) {
        return { toolCalls: [{ name: 'save_values', arguments: '{"day":"2026-12-04","slot":"morning"}' }] };
      }
      if (last?.role === 'tool' && String(last.content).includes('still_missing'))
        return { toolCalls: [{ name: 'finish_playbook', arguments: '{"reason":"done"}' }] };
      return { text: 'One moment.' };
    };

    const call = await createCall(db.prisma, localSettings(llm.url, { playbook_ids: [playbook.id] }));
    // The caller answers the playbook's question half a second after it; they hang up once the main agent has spoken.
    const run = await runTimeline(
      db.prisma,
      call.id,
      [
        { atMs: 1_000, text: 'book an appointment' },
        { after: afterReply(1), atMs: 500, text: 'yes please' },
      ],
      { hangupWhen: afterReply(2) },
    );
    expect(run.result.status).toBe('completed');

    // The playbook's agent: the assistant's prompt and the playbook, its own tools and the way back, the conversation.
    const entered = playbookChats[0]!;
    expect(toolNames(entered).sort()).toEqual(['finish_playbook', 'save_values']);
    const system = String(entered.messages?.[0]?.content);
    expect(system).toContain('## Playbook: Booking');
    expect(system).toContain('1. Ask which day suits them');
    expect(entered.messages?.some((m) => m.role === 'user' && String(m.content).includes('book an appointment'))).toBe(true);
    // The bad date came back to the model with why; the integer given as text was saved as a number.
    const refused = playbookChats.flatMap((c) => c.messages ?? []).find((m) => m.role === 'tool' && String(m.content).includes('Not saved'));
    expect(String(refused?.content)).toContain('day must be a date');
    expect(String(refused?.content)).toContain('Saved: party_size');

    const expected = { Booking: { values: { day: '2026-12-04', party_size: 4, slot: 'Morning' }, missing: [] } };
    const row = await db.prisma.call.findUniqueOrThrow({ where: { id: call.id } });
    expect(row.collectedValues).toEqual(expected);
    expect(callRecord(row).collected_values).toEqual(expected);
    const event = await db.prisma.event.findFirstOrThrow({ where: { type: 'call.completed', organizationId }, orderBy: { createdAt: 'desc' } });
    expect((event.payload as { call_sid: string; collected_values: unknown }).call_sid).toBe(call.callSid);
    expect((event.payload as { collected_values: unknown }).collected_values).toEqual(expected);

    // The main agent answered after the way back.
    const turns = await db.prisma.callTurn.findMany({ where: { callId: call.id }, orderBy: { position: 'asc' } });
    expect(turns.map((t) => t.text)).toEqual(expect.arrayContaining(['Which day would suit you?', 'You are booked. Anything else?']));
    // The transcript records the handoff, the saves (the refused one as an error) and the way back, across the agents.
    const called = turns.flatMap((t) => ((t.toolCalls ?? []) as Array<{ name: string; is_error: boolean }>).map((c) => `${c.name}${c.is_error ? '!' : ''}`));
    expect(called).toEqual(['use_playbook_booking', 'save_values!', 'save_values', 'finish_playbook']);
  }, 120_000);

  it('goes back to the main agent when the caller changes the subject, which answers them, and reports what is missing', async ({ db, llm }) => {
    const organizationId = await runtimeOrganization(db.prisma);
    const playbook = await createPlaybook(
      db.prisma,
      organizationId,
      PlaybookCreate.parse({
        name: 'Callback',
        description: 'The caller wants a call back',
        instructions: ['Ask for their number'],
        collect: [{ name: 'phone', type: 'string', required: true }],
      }),
    );
    let handedOff = false;
    const mainChats: Chat[] = [];
    replies = (body) => {
      const last = (body.messages ?? []).at(-1);
      if (toolNames(body).includes('use_playbook_callback')) {
        mainChats.push(body);
        if (!handedOff) {
          handedOff = true;
          return { toolCalls: [{ name: 'use_playbook_callback', arguments: '{}' }] };
        }
        return { text: 'It is nine o clock.' };
      }
      if (last?.role === 'user' && String(last.content).includes('time'))
        return { toolCalls: [{ name: 'finish_playbook', arguments: '{"reason":"changed_subject"}' }] };
      return { text: 'What number should we call?' };
    };

    const call = await createCall(db.prisma, localSettings(llm.url, { playbook_ids: [playbook.id] }));
    // Half a second after the playbook asks for a number, the caller asks the time; they hang up once it is answered.
    const run = await runTimeline(
      db.prisma,
      call.id,
      [
        { atMs: 1_000, text: 'book an appointment' },
        { after: afterReply(1), atMs: 500, text: 'what time is it' },
      ],
      { hangupWhen: afterReply(2) },
    );
    expect(run.result.status).toBe('completed');
    // Back in the main agent, the caller's question is the last thing it reads, with its own prompt and tools.
    const back = mainChats.at(-1)!;
    expect(toolNames(back)).toEqual(['use_playbook_callback']);
    expect(String(back.messages?.[0]?.content)).not.toContain('## Playbook');
    expect(
      back.messages
        ?.filter((m) => m.role === 'user')
        .map((m) => String(m.content))
        .at(-1),
    ).toContain('what time is it');

    const turns = await db.prisma.callTurn.findMany({ where: { callId: call.id }, orderBy: { position: 'asc' } });
    expect(turns.map((t) => t.text)).toContain('It is nine o clock.');
    const row = await db.prisma.call.findUniqueOrThrow({ where: { id: call.id } });
    expect(row.collectedValues).toEqual({ Callback: { values: {}, missing: ['phone'] } });
  }, 120_000);
});
