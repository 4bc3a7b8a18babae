import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it as plainIt } from 'vitest';
import { peaksKey } from '../../media/recording/peaks.js';
import { LocalFileStorage } from '../../media/recording/storage.js';
import { createApiContext } from '../helpers/api.js';
import { callEndedPayload } from '../../modules/calls/events.js';
import { claimDeliveries } from '../../modules/webhooks/delivery-queue.js';
import { recordEvent } from '../../modules/webhooks/events.js';
import { apiTest } from '../helpers/fixtures.js';

const it = apiTest.extend('acme', { scope: 'file' }, async ({ api }) => api.tenant('Acme'));

describe('deleting a contact', () => {
  it('keeps its calls and their transcripts, with the number masked, the variables and the contact link gone, also in the events', async ({ api, acme }) => {
    const contact = (await api.call(acme, 'POST', '/api/contacts', { phone_number: '+14155550123', first_name: 'Ada', email: 'ada@example.com' })).body
      .data as { id: number };
    const inbound = await api.db.prisma.call.create({
      data: {
        callSid: 'CAdel00000000000000000000000000001',
        organizationId: acme.organizationId,
        contactId: contact.id,
        direction: 'inbound',
        status: 'completed',
        fromNumber: '+14155550123',
        toNumber: '+14155550100',
        variables: { first_name: 'Ada' },
      },
    });
    const outbound = await api.db.prisma.call.create({
      data: {
        callSid: 'CAdel00000000000000000000000000002',
        organizationId: acme.organizationId,
        contactId: contact.id,
        direction: 'outbound',
        status: 'completed',
        fromNumber: '+14155550100',
        toNumber: '+14155550123',
      },
    });
    const unrelated = await api.db.prisma.call.create({
      data: {
        callSid: 'CAdel00000000000000000000000000003',
        organizationId: acme.organizationId,
        direction: 'inbound',
        status: 'completed',
        fromNumber: '+14155550177',
        toNumber: '+14155550100',
      },
    });
    await api.db.prisma.callTurn.create({ data: { callId: inbound.id, position: 0, role: 'user', text: 'My name is Ada', startMs: 0, endMs: 900 } });
    await recordEvent(api.db.prisma, acme.organizationId, 'call.completed', { ...callEndedPayload(inbound, [], []) });

    expect((await api.call(acme, 'DELETE', `/api/contacts/${contact.id}`)).status).toBe(204);

    const after = await api.call(acme, 'GET', `/api/calls/${inbound.callSid}`);
    expect(after.body.data).toMatchObject({ from_number: '+*********23', to_number: '+14155550100', contact_id: null, variables: {} });
    expect((await api.call(acme, 'GET', `/api/calls/${outbound.callSid}`)).body.data).toMatchObject({
      from_number: '+14155550100',
      to_number: '+*********23',
      contact_id: null,
    });
    expect((await api.call(acme, 'GET', `/api/calls/${unrelated.callSid}`)).body.data.from_number).toBe('+14155550177');
    const transcript = await api.call(acme, 'GET', `/api/calls/${inbound.callSid}/transcript`);
    expect(transcript.body.data[0].text).toBe('My name is [removed]');
    const event = await api.db.prisma.event.findFirstOrThrow({ where: { organizationId: acme.organizationId, type: 'call.completed' } });
    expect(event.payload).toMatchObject({ call_sid: inbound.callSid, from_number: '+*********23', contact_id: null });
    expect(JSON.stringify(await api.db.prisma.call.findMany())).not.toContain('+14155550123');
    expect((await api.call(acme, 'GET', `/api/contacts/${contact.id}`)).status).toBe(404);
  });

  it('removes its name, number, email, custom fields and the call variables from transcripts, tool calls, opening line, summary, outcomes and events, keeping the rest of the text', async ({
    api,
    acme,
  }) => {
    const contact = (
      await api.call(acme, 'POST', '/api/contacts', {
        phone_number: '+14155550166',
        first_name: 'Carol',
        last_name: 'Jensen',
        email: 'carol.jensen@example.com',
      })
    ).body.data as { id: number };
    await api.db.prisma.contact.update({ where: { id: contact.id }, data: { customFields: { street: '12 Baker Street', vip: true, tier: 'B' } } });
    const endpoint = await api.db.prisma.webhookEndpoint.create({
      data: { organizationId: acme.organizationId, url: 'https://hooks.example.com/calls', eventTypes: ['*'], secret: 'whsec_test' },
    });
    const call = await api.db.prisma.call.create({
      data: {
        callSid: 'CAdel00000000000000000000000000005',
        organizationId: acme.organizationId,
        contactId: contact.id,
        direction: 'outbound',
        status: 'completed',
        fromNumber: '+14155550100',
        toNumber: '+14155550166',
        variables: { order: 'ORD-77812', greeting_name: 'Caro' },
        welcomeMessage: 'Hello Carol Jensen, this is Acme about order ORD-77812 for 12 Baker Street.',
        summary: 'Carol confirmed her number (415) 555-0166 and email CAROL.JENSEN@example.com.',
        outcomes: { goal_achieved: true, fields: { name: 'Carol Jensen', callback: '415-555-0166', note: 'Prefers mornings' } },
        startedAt: new Date('2026-01-05T10:00:00Z'),
        endedAt: new Date('2026-01-05T10:01:00Z'),
        durationMs: 60_000,
      },
    });
    const turns = [
      { role: 'assistant', text: 'Hello Carol Jensen, this is Acme about order ORD-77812 for 12 Baker Street.' },
      { role: 'user', text: "Yes, it's carol. Call me back on 4155550166 or +1 415 555 0166, or write to carol.jensen@example.com. Caro is fine too." },
      { role: 'user', text: 'Is Caroline from your team there? I live in Jensenville, not Canada. Plan B suits me.' },
    ];
    for (const [position, turn] of turns.entries()) {
      await api.db.prisma.callTurn.create({
        data: {
          callId: call.id,
          position,
          role: turn.role,
          text: turn.text,
          startMs: position * 1000,
          endMs: position * 1000 + 900,
          ...(position === 0
            ? {
                toolCalls: [
                  {
                    name: 'lookup_customer',
                    arguments: { phone: '+14155550166', email: 'carol.jensen@example.com' },
                    output: { name: 'Carol Jensen', plan: 'gold' },
                    is_error: false,
                    at_ms: 10,
                  },
                ],
              }
            : {}),
        },
      });
    }
    const stored = await api.db.prisma.call.findUniqueOrThrow({ where: { id: call.id }, include: { turns: { orderBy: { position: 'asc' } } } });
    const transcript = stored.turns.map((t) => ({
      role: t.role as 'user',
      text: t.text,
      start_ms: t.startMs,
      end_ms: t.endMs,
      interrupted: false,
      ...(t.toolCalls ? { tool_calls: t.toolCalls as never } : {}),
    }));
    await recordEvent(api.db.prisma, acme.organizationId, 'call.completed', { ...callEndedPayload(stored, transcript, []) });
    expect(await api.db.prisma.webhookDelivery.count({ where: { endpointId: endpoint.id } })).toBe(1);

    expect((await api.call(acme, 'DELETE', `/api/contacts/${contact.id}`)).status).toBe(204);

    const after = await api.db.prisma.call.findUniqueOrThrow({ where: { id: call.id }, include: { turns: { orderBy: { position: 'asc' } } } });
    const events = await api.db.prisma.$queryRaw<Array<{ payload: unknown }>>`SELECT payload FROM events WHERE payload->>'call_sid' = ${call.callSid}`;
    // What a redelivery would send: deliveries read the event's payload when they are claimed.
    const redelivered = await claimDeliveries(api.db.prisma, 10, 60_000);
    expect(redelivered.map((d) => (d.payload as { call_sid: string }).call_sid)).toEqual([call.callSid]);
    const everything = JSON.stringify([after, events, redelivered.map((d) => d.payload)]);
    // As words anywhere in the call's rows, turns, events and what a delivery sends ("Caroline" is another word).
    for (const detail of ['Carol', 'Jensen', '0166', '555', 'carol.jensen@example.com', 'Baker Street', 'ORD-77812', 'Caro']) {
      expect(everything).not.toMatch(new RegExp(`(?<![\\p{L}\\p{N}])${detail.replace(/[.]/g, '\\.')}(?![\\p{L}\\p{N}])`, 'iu'));
    }
    expect(after.welcomeMessage).toBe('Hello [removed], this is Acme about order [removed] for [removed].');
    expect(after.summary).toBe('[removed] confirmed her number [removed] and email [removed].');
    expect(after.outcomes).toEqual({ goal_achieved: true, fields: { name: '[removed]', callback: '[removed]', note: 'Prefers mornings' } });
    expect(after.turns.map((t) => t.text)).toEqual([
      'Hello [removed], this is Acme about order [removed] for [removed].',
      "Yes, it's [removed]. Call me back on [removed] or [removed], or write to [removed]. [removed] is fine too.",
      // Other words that contain a value stay; so does a one-letter custom field ("B").
      'Is Caroline from your team there? I live in Jensenville, not Canada. Plan B suits me.',
    ]);
    expect(after.turns[0]!.toolCalls).toEqual([
      {
        name: 'lookup_customer',
        arguments: { phone: '[removed]', email: '[removed]' },
        output: { name: '[removed]', plan: 'gold' },
        is_error: false,
        at_ms: 10,
      },
    ]);
    expect(after).toMatchObject({ fromNumber: '+14155550100', toNumber: '+*********66', contactId: null, variables: {}, durationMs: 60_000 });
    const payload = events[0]!.payload as { transcript: Array<{ text: string }>; to_number: string; from_number: string; summary: string; contact_id: null };
    expect(payload).toMatchObject({ to_number: '+*********66', from_number: '+14155550100', contact_id: null, summary: after.summary });
    expect(payload.transcript.map((t) => t.text)).toEqual(after.turns.map((t) => t.text));
  });

  it("keeps the test runs that named it, without its id, the run's variables or its details in the request and results", async ({ api, acme }) => {
    const contact = (await api.call(acme, 'POST', '/api/contacts', { phone_number: '+14155550188', first_name: 'Grace', last_name: 'Hopper' })).body.data as {
      id: number;
    };
    const assistant = (await api.call(acme, 'POST', '/api/assistants', { name: 'Runs desk' })).body as { id: number };
    const run = await api.db.prisma.testRun.create({
      data: {
        organizationId: acme.organizationId,
        assistantId: assistant.id,
        status: 'completed',
        request: { script: ['Hi, this is Grace'], variables: { ticket: 'TK-4411' }, contact_id: contact.id, assertions: [], repeat: 1 },
        results: [
          {
            repetition: 1,
            passed: true,
            transcript: [
              { role: 'assistant', text: 'Hello Grace Hopper, about ticket TK-4411.' },
              { role: 'user', text: 'Hi, this is Grace' },
            ],
          },
        ],
      },
    });
    const other = await api.db.prisma.testRun.create({
      data: {
        organizationId: acme.organizationId,
        assistantId: assistant.id,
        status: 'completed',
        request: { script: ['Grace'], variables: {}, contact_id: null },
        results: [],
      },
    });

    expect((await api.call(acme, 'DELETE', `/api/contacts/${contact.id}`)).status).toBe(204);

    const after = await api.db.prisma.testRun.findUniqueOrThrow({ where: { id: run.id } });
    expect(after.request).toMatchObject({ contact_id: null, variables: {}, script: ['Hi, this is [removed]'] });
    expect(JSON.stringify(after.results)).not.toMatch(/Grace|Hopper|TK-4411/);
    expect(JSON.stringify(after.results)).toContain('Hello [removed]');
    // A run that did not name the contact is left as it was.
    expect((await api.db.prisma.testRun.findUniqueOrThrow({ where: { id: other.id } })).request).toMatchObject({ script: ['Grace'] });
  });

  it("answers 404 for another organisation's contact and leaves its calls untouched", async ({ api, acme }) => {
    const other = await api.tenant('Other');
    const theirs = (await api.call(other, 'POST', '/api/contacts', { phone_number: '+14155550124' })).body.data as { id: number };
    await api.db.prisma.call.create({
      data: {
        callSid: 'CAdel00000000000000000000000000004',
        organizationId: other.organizationId,
        contactId: theirs.id,
        direction: 'inbound',
        status: 'completed',
        fromNumber: '+14155550124',
      },
    });
    expect((await api.call(acme, 'DELETE', `/api/contacts/${theirs.id}`)).status).toBe(404);
    expect((await api.db.prisma.call.findUniqueOrThrow({ where: { callSid: 'CAdel00000000000000000000000000004' } })).fromNumber).toBe('+14155550124');
  });
});

describe('deleting a contact with its recordings', () => {
  plainIt('deletes the recordings of its calls, rows and files, when asked, and keeps them otherwise', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'contact-recordings-'));
    const api = await createApiContext({ dataDir });
    try {
      const acme = await api.tenant('Acme');
      const storage = new LocalFileStorage(dataDir);
      const recorded = async (callSid: string, contactId: number | null) => {
        const call = await api.db.prisma.call.create({
          data: {
            callSid,
            organizationId: acme.organizationId,
            contactId,
            direction: 'inbound',
            status: 'completed',
            fromNumber: '+14155550199',
            toNumber: '+14155550100',
          },
        });
        for (const track of ['user', 'mixed']) {
          const storageKey = `recordings/${callSid}/${track}.wav`;
          await storage.put(storageKey, Buffer.from(`voice of ${callSid}`));
          await api.db.prisma.callRecording.create({ data: { callId: call.id, track, format: 'wav', storageKey, durationMs: 1_000, sizeBytes: 20 } });
        }
        // The waveform peaks stored beside the tracks say when the caller spoke: they go with them.
        await storage.put(peaksKey(callSid), Buffer.from('{"version":1}'));
        return call;
      };
      const erased = (await api.call(acme, 'POST', '/api/contacts', { phone_number: '+14155550199', first_name: 'Erin' })).body.data as { id: number };
      const kept = (await api.call(acme, 'POST', '/api/contacts', { phone_number: '+14155550198', first_name: 'Kim' })).body.data as { id: number };
      const first = await recorded('CArec00000000000000000000000000001', erased.id);
      const second = await recorded('CArec00000000000000000000000000002', erased.id);
      const keptCall = await recorded('CArec00000000000000000000000000003', kept.id);
      const unrelated = await recorded('CArec00000000000000000000000000004', null);

      expect((await api.call(acme, 'DELETE', `/api/contacts/${erased.id}?delete_recordings=true`)).status).toBe(204);
      expect((await api.call(acme, 'DELETE', `/api/contacts/${kept.id}`)).status).toBe(204);

      for (const call of [first, second]) {
        expect(await api.db.prisma.callRecording.count({ where: { callId: call.id } })).toBe(0);
        expect(await storage.size(`recordings/${call.callSid}/mixed.wav`)).toBeNull();
        expect(await storage.size(peaksKey(call.callSid))).toBeNull();
        expect((await api.call(acme, 'GET', `/api/calls/${call.callSid}`)).body.data.recordings).toEqual([]);
        expect((await api.call(acme, 'GET', `/api/calls/${call.callSid}/recordings/mixed`)).status).toBe(404);
      }
      // Without the flag, and for calls of nobody, the recordings stay.
      for (const call of [keptCall, unrelated]) {
        expect(await api.db.prisma.callRecording.count({ where: { callId: call.id } })).toBe(2);
        expect(await storage.size(`recordings/${call.callSid}/mixed.wav`)).toBeGreaterThan(0);
        expect(await storage.size(peaksKey(call.callSid))).toBeGreaterThan(0);
      }
      // The flag is checked like any query parameter.
      const bad = await api.call(acme, 'DELETE', `/api/contacts/${kept.id}?delete_recordings=maybe`);
      expect(bad.status).toBe(422);
    } finally {
      await api.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
