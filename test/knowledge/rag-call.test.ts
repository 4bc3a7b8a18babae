import { expect } from 'vitest';
import { startDocumentProcessing } from '../../modules/knowledge/processing.js';
import { apiTest } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';
import { afterReply, connected, localSettings, runTimeline } from '../runtime/call-harness.js';
import { isAnalysisRequest, messagesOf, startFakeCallModel } from '../fakes/vendors/call-model.js';

// Knowledge in a whole audio call: a document uploaded through the API and attached to an assistant is processed
// (converted, chunked, embedded by the offline model) and its passage reaches the model's prompt when the caller asks;
// the answer carries its fact, and the turn records what was retrieved. Deleting the document mid-call stops it at
// once: the next turn of the same call gets no passage.

const HOURS = [
  '# Opening hours',
  '',
  'Our opening time is nine in the morning, and we close at half past five, Monday to Saturday.',
  '',
  '# Parking',
  '',
  'Customers park for free in the yard behind the building; the gate code is 4471.',
].join('\n');

const it = apiTest.extend('llm', { scope: 'file' }, async ({}, { onCleanup }) => {
  const llm = await startFakeCallModel('Asked the hours.', (body) => {
    const messages = messagesOf(body);
    const tools = JSON.stringify(body.tools ?? []);
    if (tools.includes('search_handbook')) {
      const result = messages.find((m) => m.role === 'tool');
      if (!result) return { toolCalls: [{ name: 'search_handbook', arguments: '{"query":"gate code for parking"}' }] };
      return { text: String(result.content).includes('4471') ? 'The gate code is 4471.' : 'I could not find it.' };
    }
    const passage = messages.some((m) => m.role === 'system' && String(m.content).includes('nine in the morning'));
    return { text: passage ? 'We open at nine in the morning.' : 'I am not sure of that.' };
  });
  onCleanup(() => llm.close());
  return llm;
});

it('answers from an uploaded document, records the retrieval, and stops answering the moment it is deleted', async ({ api, tenant, llm }) => {
  const prisma = api.db.prisma;
  const processing = startDocumentProcessing(prisma, { pollIntervalMs: 50 });
  try {
    const uploaded = await api.call(tenant, 'POST', '/api/documents', { filename: 'hours.md', content_base64: Buffer.from(HOURS).toString('base64') });
    expect(uploaded.status).toBe(201);
    const documentId = uploaded.body.data.id as number;
    const assistant = await api.call(tenant, 'POST', '/api/assistants', {
      name: 'Front desk',
      ...localSettings(llm.url, { rag_settings: { enabled: true } }),
      assigned_documents: [documentId],
    });
    expect(assistant.status).toBe(201);
    const ready = await until(async () => {
      const doc = await api.call(tenant, 'GET', `/api/documents/${documentId}`);
      return doc.body.data.status === 'ready' ? doc.body.data : undefined;
    }, 60_000);
    expect(ready).toMatchObject({
      embedding_model: 'local/use-lite',
      indexes: [{ chunking: 'recursive:1000:200', embedding_model: 'local/use-lite', chunk_count: 2 }],
    });

    const call = await prisma.call.create({
      data: {
        callSid: `CA${Math.random().toString(16).slice(2, 14)}`,
        organizationId: tenant.organizationId,
        assistantId: assistant.body.id,
        direction: 'inbound',
        variables: {},
      },
    });
    // The caller asks a second after the line connects, as a caller does, not straight out of the audio the line held
    // while a loaded machine started the session: the call readies its search as it connects (agent/call/knowledge.ts).
    // The document goes between the caller's two questions, while the call runs: once the first has been answered it
    // is deleted, and the caller asks again; they hang up once the second answer has been spoken.
    let deleted: number | undefined;
    const run = await runTimeline(
      prisma,
      call.id,
      [
        { after: connected, atMs: 1_000, text: 'what time is it' },
        { after: () => deleted !== undefined, atMs: 500, text: 'what time is it' },
      ],
      {
        // This test is about the passages reaching the reply, not the reply's 250 ms deadline for them, which a loaded
        // machine's search can miss (agent/call/turn-prompt.test.ts holds the deadline).
        retrievalTimeoutMs: 60_000,
        hangupAfter: async (progress) => {
          await progress.until(afterReply(1));
          deleted = (await api.call(tenant, 'DELETE', `/api/documents/${documentId}`)).status;
          await progress.until(afterReply(2));
        },
      },
    );
    expect(deleted).toBe(200);
    expect(run.result.status).toBe('completed');

    const turns = await prisma.callTurn.findMany({ where: { callId: call.id, role: 'assistant' }, orderBy: { position: 'asc' } });
    const answers = turns.filter((t) => t.retrieval !== null);
    expect(answers.map((t) => t.text)).toEqual(['We open at nine in the morning.', 'I am not sure of that.']);
    const [first, second] = answers.map(
      (t) => t.retrieval as { query: string; timed_out: boolean; hits: Array<{ document_id: number; in_prompt: boolean; heading_path: string[] }> },
    );
    expect(first).toMatchObject({ query: 'what time is it', timed_out: false });
    expect(first!.hits[0]).toMatchObject({ document_id: documentId, in_prompt: true, heading_path: ['Opening hours'] });
    expect(second!.hits).toEqual([]);
    // The model's two replies: the passage in the first prompt, none in the second (only the first answer, as history).
    const passages = llm
      .chats()
      .filter((c) => !isAnalysisRequest(c))
      .map((c) =>
        (c.messages as Array<{ role: string; content: string }>).filter((m) => m.role === 'system' && m.content.startsWith('Passages from the knowledge base')),
      );
    expect(passages).toHaveLength(2);
    expect(passages[0]![0]!.content).toContain('[1] Source: hours.md › Opening hours\n# Opening hours\n\nOur opening time is nine in the morning');
    expect(passages[1]).toEqual([]);
  } finally {
    await processing.stop();
  }
}, 120_000);

it('lets the model search the documents itself with a knowledge_search tool', async ({ api, tenant, llm }) => {
  const prisma = api.db.prisma;
  const processing = startDocumentProcessing(prisma, { pollIntervalMs: 50 });
  try {
    const doc = await api.call(tenant, 'POST', '/api/documents', { name: 'Handbook', text: HOURS.replace('Opening hours', 'Hours of the shop') });
    const refused = await api.call(tenant, 'POST', '/api/tools', {
      name: 'search_handbook',
      type: 'knowledge_search',
      parameters: { type: 'object', properties: { topic: { type: 'string' } } },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(['body', 'parameters', 'properties', 'topic']);
    const tool = await api.call(tenant, 'POST', '/api/tools', { name: 'search_handbook', type: 'knowledge_search' });
    expect(tool.status).toBe(201);
    const toolId = (tool.body.data ?? tool.body).id as number;
    expect((tool.body.data ?? tool.body).parameters).toMatchObject({ required: ['query'] });
    // Passages are not given with each reply here: the model asks for them.
    const assistant = await api.call(tenant, 'POST', '/api/assistants', {
      name: 'Searcher',
      ...localSettings(llm.url),
      assigned_documents: [doc.body.data.id],
      assigned_tools: [toolId],
    });
    await until(async () => (await api.call(tenant, 'GET', `/api/documents/${doc.body.data.id}`)).body.data.status === 'ready', 60_000);
    const call = await prisma.call.create({
      data: {
        callSid: `CA${Math.random().toString(16).slice(2, 14)}`,
        organizationId: tenant.organizationId,
        assistantId: assistant.body.id,
        direction: 'inbound',
        variables: {},
      },
    });
    // Once the answer, after the search, has been spoken, the caller hangs up.
    const run = await runTimeline(prisma, call.id, [{ atMs: 1_000, text: 'what time is it' }], { hangupWhen: afterReply(1) });
    expect(run.result.status).toBe('completed');
    const turns = await prisma.callTurn.findMany({ where: { callId: call.id, role: 'assistant' }, orderBy: { position: 'asc' } });
    const reply = turns.find((t) => t.toolCalls !== null)!;
    expect(reply.text).toBe('The gate code is 4471.');
    expect(reply.toolCalls).toMatchObject([
      {
        name: 'search_handbook',
        arguments: { query: 'gate code for parking' },
        is_error: false,
        output: { passages: expect.arrayContaining([{ source: 'Handbook › Parking', text: expect.stringContaining('4471') }]) },
      },
    ]);
    expect(reply.retrieval).toBeNull();
  } finally {
    await processing.stop();
  }
}, 120_000);
