import { describe, expect } from 'vitest';
import { apiTest } from '../helpers/fixtures.js';

// The test-run resource over the API: queued with 202, validated in the 422 model, scoped to the organisation, listed
// with filters, cancelled. No worker runs here: runs stay queued (their execution: test-runs-worker.test.ts).

const it = apiTest.extend('assistantId', { scope: 'file' }, async ({ api, tenant }) => {
  const res = await api.call(tenant, 'POST', '/api/assistants', { name: 'Tested' });
  return res.body.id as number;
});

const SCRIPT = { script: ['Hello', 'Where is my order?'] };

describe('POST /api/assistants/{assistant_id}/test-runs', () => {
  it('answers 202 with the queued run, the request as accepted with its defaults', async ({ api, tenant, assistantId }) => {
    const res = await api.call(tenant, 'POST', `/api/assistants/${assistantId}/test-runs`, {
      ...SCRIPT,
      assertions: [{ type: 'reply_contains', text: 'order' }],
      repeat: 2,
    });
    expect(res.status).toBe(202);
    const run = res.body.data;
    expect(run).toMatchObject({
      assistant_id: assistantId,
      playbook_id: null,
      status: 'queued',
      results: [],
      pass_rate: null,
      totals: null,
      error: null,
      attempts: 0,
      started_at: null,
      completed_at: null,
      assistant_version: null,
      draft: false,
    });
    expect(run.request).toEqual({
      script: ['Hello', 'Where is my order?'],
      variables: {},
      contact_id: null,
      tool_mocks: {},
      use_real_tools: false,
      assertions: [{ type: 'reply_contains', text: 'order', case_sensitive: false, turn: null }],
      repeat: 2,
      judge_model: null,
      use_draft: true,
    });
    const read = await api.call(tenant, 'GET', `/api/test-runs/${run.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(run);
  });

  it('fills the simulated user with its defaults', async ({ api, tenant, assistantId }) => {
    const res = await api.call(tenant, 'POST', `/api/assistants/${assistantId}/test-runs`, {
      simulated_user: { persona: 'A busy parent', goal: 'Book a table for four' },
    });
    expect(res.status).toBe(202);
    expect(res.body.data.request.simulated_user).toEqual({
      persona: 'A busy parent',
      goal: 'Book a table for four',
      max_turns: 10,
      model: null,
      first_message: null,
      assistant_speaks_first: false,
    });
  });

  it.for([
    ['neither script nor simulated user', {}, ['body', 'script']],
    ['both', { ...SCRIPT, simulated_user: { persona: 'p', goal: 'g' } }, ['body', 'script']],
    ['an empty script', { script: [] }, ['body', 'script']],
    ['51 turns', { script: Array.from({ length: 51 }, () => 'hi') }, ['body', 'script']],
    ['an empty turn', { script: ['hi', ''] }, ['body', 'script', 1]],
    ['max_turns 31', { simulated_user: { persona: 'p', goal: 'g', max_turns: 31 } }, ['body', 'simulated_user', 'max_turns']],
    ['max_turns 0', { simulated_user: { persona: 'p', goal: 'g', max_turns: 0 } }, ['body', 'simulated_user', 'max_turns']],
    [
      'an unknown model vendor',
      { simulated_user: { persona: 'p', goal: 'g', model: { provider: 'acme', model: 'x' } } },
      ['body', 'simulated_user', 'model', 'provider'],
    ],
    ['repeat 11', { ...SCRIPT, repeat: 11 }, ['body', 'repeat']],
    ['repeat 0', { ...SCRIPT, repeat: 0 }, ['body', 'repeat']],
    ['an unknown assertion', { ...SCRIPT, assertions: [{ type: 'sounds_nice' }] }, ['body', 'assertions', 0, 'type']],
    ['a pattern that backtracks', { ...SCRIPT, assertions: [{ type: 'reply_matches', pattern: '(a+)+$' }] }, ['body', 'assertions', 0, 'pattern']],
    ['a backreference', { ...SCRIPT, assertions: [{ type: 'reply_matches', pattern: '(a)\\1' }] }, ['body', 'assertions', 0, 'pattern']],
    ['an invalid pattern', { ...SCRIPT, assertions: [{ type: 'reply_matches', pattern: '(' }] }, ['body', 'assertions', 0, 'pattern']],
    ['a turn count without bounds', { ...SCRIPT, assertions: [{ type: 'turn_count' }] }, ['body', 'assertions', 0]],
    ['a bad tool name in mocks', { ...SCRIPT, tool_mocks: { 'not a name': {} } }, ['body', 'tool_mocks', 'not a name']],
    ['a huge mock', { ...SCRIPT, tool_mocks: { lookup: { text: 'x'.repeat(20_000) } } }, ['body', 'tool_mocks', 'lookup']],
    ['a variable too long', { ...SCRIPT, variables: { name: 'x'.repeat(501) } }, ['body', 'variables', 'name']],
    ['an unknown field', { ...SCRIPT, mode: 'scripted' }, ['body', 'mode']],
  ])('refuses %s with 422 at its field', async ([, body, loc], { api, tenant, assistantId }) => {
    const res = await api.call(tenant, 'POST', `/api/assistants/${assistantId}/test-runs`, body);
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
  });

  it('refuses a mock of a tool the assistant is not offered, and another organisation’s contact', async ({ api, tenant, assistantId }) => {
    const other = await api.tenant();
    const contact = await api.call(other, 'POST', '/api/contacts', { email: 'elsewhere@example.com' });
    const res = await api.call(tenant, 'POST', `/api/assistants/${assistantId}/test-runs`, {
      ...SCRIPT,
      tool_mocks: { lookup_order: { status: 'shipped' } },
      use_real_tools: ['send_sms'],
      contact_id: contact.body.data.id,
    });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toEqual([
      ['body', 'contact_id'],
      ['body', 'tool_mocks', 'lookup_order'],
      ['body', 'use_real_tools', 0],
    ]);
  });

  it('accepts a mock of an assigned tool', async ({ api, tenant }) => {
    const tool = await api.call(tenant, 'POST', '/api/tools', { name: 'lookup_order', type: 'http', http: { url: 'https://api.example.com/orders' } });
    const assistant = await api.call(tenant, 'POST', '/api/assistants', { name: 'With tool', assigned_tools: [tool.body.data.id] });
    const res = await api.call(tenant, 'POST', `/api/assistants/${assistant.body.id}/test-runs`, {
      ...SCRIPT,
      tool_mocks: { lookup_order: { error: 'not found' } },
    });
    expect(res.status).toBe(202);
    expect(res.body.data.request.tool_mocks).toEqual({ lookup_order: { error: 'not found' } });
  });

  it('answers 404 for another organisation’s assistant, and for its runs', async ({ api, tenant, assistantId }) => {
    const other = await api.tenant();
    expect((await api.call(other, 'POST', `/api/assistants/${assistantId}/test-runs`, SCRIPT)).status).toBe(404);
    const run = await api.call(tenant, 'POST', `/api/assistants/${assistantId}/test-runs`, SCRIPT);
    expect((await api.call(other, 'GET', `/api/test-runs/${run.body.data.id}`)).status).toBe(404);
    expect((await api.call(other, 'POST', `/api/test-runs/${run.body.data.id}/cancel`)).status).toBe(404);
    const list = await api.call(other, 'GET', '/api/test-runs');
    expect(list.body.data).toEqual([]);
  });
});

describe('POST /api/playbooks/{playbook_id}/test-runs', () => {
  it('runs in the first assistant the playbook is assigned to, or the one named; 422 when there is none', async ({ api, tenant, assistantId }) => {
    const playbook = await api.db.prisma.playbook.create({ data: { organizationId: tenant.organizationId, name: `Returns ${Date.now()}` } });
    const none = await api.call(tenant, 'POST', `/api/playbooks/${playbook.id}/test-runs`, SCRIPT);
    expect(none.status).toBe(422);
    expect(none.body.detail[0].loc).toEqual(['body', 'assistant_id']);

    const named = await api.call(tenant, 'POST', `/api/playbooks/${playbook.id}/test-runs`, { ...SCRIPT, assistant_id: assistantId });
    expect(named.status).toBe(202);
    expect(named.body.data).toMatchObject({ assistant_id: assistantId, playbook_id: playbook.id, status: 'queued' });
    expect(named.body.data.request).not.toHaveProperty('assistant_id');

    const second = await api.call(tenant, 'POST', '/api/assistants', { name: 'Second' });
    await api.db.prisma.assistantPlaybook.create({ data: { assistantId: second.body.id, playbookId: playbook.id, position: 0 } });
    const defaulted = await api.call(tenant, 'POST', `/api/playbooks/${playbook.id}/test-runs`, SCRIPT);
    expect(defaulted.status).toBe(202);
    expect(defaulted.body.data.assistant_id).toBe(second.body.id);

    const ofPlaybook = await api.call(tenant, 'GET', `/api/test-runs?playbook_id=${playbook.id}`);
    expect(ofPlaybook.body.data.map((r: { id: number }) => r.id)).toEqual([defaulted.body.data.id, named.body.data.id]);

    const other = await api.tenant();
    expect((await api.call(other, 'POST', `/api/playbooks/${playbook.id}/test-runs`, SCRIPT)).status).toBe(404);
    const foreign = await api.call(other, 'POST', '/api/assistants', { name: 'Foreign' });
    const wrong = await api.call(tenant, 'POST', `/api/playbooks/${playbook.id}/test-runs`, { ...SCRIPT, assistant_id: foreign.body.id });
    expect(wrong.status).toBe(422);
    expect(wrong.body.detail[0].loc).toEqual(['body', 'assistant_id']);
  });
});

describe('listing and cancelling', () => {
  it('lists newest first, filtered by assistant, playbook and status', async ({ api }) => {
    const tenant = await api.tenant();
    const a = (await api.call(tenant, 'POST', '/api/assistants', { name: 'A' })).body.id;
    const b = (await api.call(tenant, 'POST', '/api/assistants', { name: 'B' })).body.id;
    const first = (await api.call(tenant, 'POST', `/api/assistants/${a}/test-runs`, SCRIPT)).body.data.id;
    const second = (await api.call(tenant, 'POST', `/api/assistants/${b}/test-runs`, SCRIPT)).body.data.id;
    const third = (await api.call(tenant, 'POST', `/api/assistants/${a}/test-runs`, SCRIPT)).body.data.id;
    await api.call(tenant, 'POST', `/api/test-runs/${third}/cancel`);

    const all = await api.call(tenant, 'GET', '/api/test-runs?per_page=2');
    expect(all.body.data.map((r: { id: number }) => r.id)).toEqual([third, second]);
    expect(all.body.pagination).toEqual({ page: 1, per_page: 2, total: 3, total_pages: 2 });
    const ofA = await api.call(tenant, 'GET', `/api/test-runs?assistant_id=${a}`);
    expect(ofA.body.data.map((r: { id: number }) => r.id)).toEqual([third, first]);
    const queued = await api.call(tenant, 'GET', `/api/test-runs?assistant_id=${a}&status=queued`);
    expect(queued.body.data.map((r: { id: number }) => r.id)).toEqual([first]);
    const either = await api.call(tenant, 'GET', '/api/test-runs?status=queued&status=cancelled');
    expect(either.body.pagination.total).toBe(3);
    expect((await api.call(tenant, 'GET', '/api/test-runs?status=done')).status).toBe(422);
  });

  it('refuses a 101st run queued or running with 409 limit_reached; a finished one frees a place', async ({ api }) => {
    const tenant = await api.tenant();
    const assistant = (await api.call(tenant, 'POST', '/api/assistants', { name: 'Busy' })).body.id;
    await api.db.prisma.testRun.createMany({
      data: Array.from({ length: 99 }, (_, i) => ({
        organizationId: tenant.organizationId,
        assistantId: assistant,
        status: i % 2 ? 'queued' : 'running',
        request: {},
      })),
    });
    const hundredth = await api.call(tenant, 'POST', `/api/assistants/${assistant}/test-runs`, SCRIPT);
    expect(hundredth.status).toBe(202);
    const refused = await api.call(tenant, 'POST', `/api/assistants/${assistant}/test-runs`, SCRIPT);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ success: false, code: 'limit_reached', limit: 100 });
    await api.call(tenant, 'POST', `/api/test-runs/${hundredth.body.data.id}/cancel`);
    expect((await api.call(tenant, 'POST', `/api/assistants/${assistant}/test-runs`, SCRIPT)).status).toBe(202);
  });

  it('cancels a queued run once; a finished run answers 409', async ({ api, tenant, assistantId }) => {
    const run = (await api.call(tenant, 'POST', `/api/assistants/${assistantId}/test-runs`, SCRIPT)).body.data;
    const cancelled = await api.call(tenant, 'POST', `/api/test-runs/${run.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({ status: 'cancelled', error: 'cancelled by request', completed_at: expect.any(String) });
    const again = await api.call(tenant, 'POST', `/api/test-runs/${run.id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ success: false, code: 'conflict', status: 'cancelled' });
    expect((await api.call(tenant, 'POST', '/api/test-runs/999999/cancel')).status).toBe(404);
  });

  it('documents every operation in the OpenAPI document', async ({ api }) => {
    const doc = api.app.swagger() as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.paths['/api/assistants/{assistant_id}/test-runs']!)).toEqual(['post']);
    expect(Object.keys(doc.paths['/api/playbooks/{playbook_id}/test-runs']!)).toEqual(['post']);
    expect(Object.keys(doc.paths['/api/test-runs']!)).toEqual(['get']);
    expect(Object.keys(doc.paths['/api/test-runs/{test_run_id}']!)).toEqual(['get']);
    expect(Object.keys(doc.paths['/api/test-runs/{test_run_id}/cancel']!)).toEqual(['post']);
  });
});
