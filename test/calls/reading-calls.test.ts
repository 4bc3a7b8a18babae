import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect } from 'vitest';
import type { Tenant } from '../helpers/api.js';
import { apiTest } from '../helpers/fixtures.js';

const it = apiTest
  .extend('dataDir', { scope: 'file' }, async ({}, { onCleanup }) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'calls-read-'));
    onCleanup(() => rm(dir, { recursive: true, force: true }));
    return dir;
  })
  .extend('apiOptions', { scope: 'file' }, async ({ dataDir }) => ({ dataDir }))
  .extend('acme', { scope: 'file' }, async ({ api }) => api.tenant('Acme'))
  .extend('other', { scope: 'file' }, async ({ api }) => api.tenant('Other'))
  .extend(
    'download',
    { scope: 'file' },
    async ({ api, acme }) =>
      (headers: Record<string, string> = {}) =>
        api.app.inject({ method: 'GET', url: `/api/calls/${sids.a1}/recordings/mixed`, headers: { authorization: `Bearer ${acme.key}`, ...headers } }),
  );

let assistantId: number;
const sids: Record<string, string> = {};

it.beforeAll(async ({ api, acme, other, dataDir }) => {
  const addCall = async (tenant: Tenant, name: string, data: Record<string, unknown>) => {
    const sid = `CA${name.padEnd(32, '0').slice(0, 32)}`;
    sids[name] = sid;
    return api.db.prisma.call.create({ data: { callSid: sid, organizationId: tenant.organizationId, direction: 'inbound', ...data } as never });
  };
  assistantId = (await api.call(acme, 'POST', '/api/assistants', { name: 'Desk' })).body.id;
  const done = await addCall(acme, 'a1', {
    status: 'completed',
    direction: 'outbound',
    assistantId,
    fromNumber: '+14155550100',
    toNumber: '+14155550111',
    createdAt: new Date('2026-11-01T10:00:00Z'),
    startedAt: new Date('2026-11-01T10:00:05Z'),
    endedAt: new Date('2026-11-01T10:01:05Z'),
    durationMs: 60_000,
    endReason: 'customer_hangup',
    summary: 'Booked.',
    outcomes: { goal_achieved: true },
    metrics: { e2e_latency_ms: { p50: 700, p95: 900 } },
    variables: { first_name: 'Ada' },
  });
  await addCall(acme, 'a2', {
    status: 'failed',
    direction: 'inbound',
    fromNumber: '+14155550122',
    toNumber: '+14155550100',
    createdAt: new Date('2026-11-02T10:00:00Z'),
  });
  await addCall(acme, 'a3', {
    status: 'busy',
    direction: 'outbound',
    fromNumber: '+14155550100',
    toNumber: '+14155550133',
    createdAt: new Date('2026-11-03T10:00:00Z'),
  });
  await addCall(other, 'b1', {
    status: 'completed',
    direction: 'outbound',
    fromNumber: '+14155550900',
    toNumber: '+14155550111',
    createdAt: new Date('2026-11-02T12:00:00Z'),
  });
  await api.db.prisma.callTurn.createMany({
    data: [
      { callId: done.id, position: 1, role: 'user', text: 'I want a table', startMs: 3000, endMs: 4000 },
      { callId: done.id, position: 0, role: 'assistant', text: 'Hello!', startMs: 0, endMs: 1000 },
      { callId: done.id, position: 2, role: 'assistant', text: 'Booked.', startMs: 4500, endMs: 5500, interrupted: true, metrics: { e2e_latency_ms: 700 } },
    ],
  });
  const audio = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 256));
  await mkdir(path.join(dataDir, 'recordings', done.callSid), { recursive: true });
  await writeFile(path.join(dataDir, 'recordings', done.callSid, 'mixed.mp3'), audio);
  await api.db.prisma.callRecording.create({
    data: { callId: done.id, track: 'mixed', format: 'mp3', storageKey: `recordings/${done.callSid}/mixed.mp3`, durationMs: 60_000, sizeBytes: 1000 },
  });
});

const sidsOf = (body: { data: { call_sid: string }[] }) => body.data.map((c) => c.call_sid);

describe('GET /api/calls', () => {
  it('widens a repeated filter and narrows across filters, newest first, with only the organisation’s calls', async ({ api, acme }) => {
    const all = await api.call(acme, 'GET', '/api/calls');
    expect(sidsOf(all.body)).toEqual([sids.a3, sids.a2, sids.a1]);
    expect(all.body.pagination).toEqual({ page: 1, per_page: 20, total: 3, total_pages: 1 });
    const either = await api.call(acme, 'GET', '/api/calls?status=completed&status=busy');
    expect(sidsOf(either.body)).toEqual([sids.a3, sids.a1]);
    const narrowed = await api.call(acme, 'GET', '/api/calls?status=completed&status=failed&direction=inbound');
    expect(sidsOf(narrowed.body)).toEqual([sids.a2]);
    const byNumber = await api.call(acme, 'GET', '/api/calls?phone_number=%2B14155550111');
    expect(sidsOf(byNumber.body)).toEqual([sids.a1]);
    const window = await api.call(acme, 'GET', '/api/calls?created_after=2026-11-02&created_before=2026-11-03');
    expect(sidsOf(window.body)).toEqual([sids.a2]);
    const paged = await api.call(acme, 'GET', '/api/calls?per_page=2&page=2');
    expect(sidsOf(paged.body)).toEqual([sids.a1]);
    expect(paged.body.pagination).toEqual({ page: 2, per_page: 2, total: 3, total_pages: 2 });
  });

  it('answers a bad filter value with the 422 of that parameter (and of the repetition)', async ({ api, acme }) => {
    const one = await api.call(acme, 'GET', '/api/calls?status=done');
    expect(one.status).toBe(422);
    expect(one.body.detail[0].loc).toEqual(['query', 'status']);
    const repeated = await api.call(acme, 'GET', '/api/calls?status=completed&status=done&per_page=500&created_after=yesterday');
    expect(repeated.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual(
      expect.arrayContaining([
        ['query', 'status', 1],
        ['query', 'per_page'],
        ['query', 'created_after'],
      ]),
    );
  });
});

describe('GET /api/calls/{call_sid}', () => {
  it('returns the record with its outcome, latency, recordings and transcript link', async ({ api, acme }) => {
    const res = await api.call(acme, 'GET', `/api/calls/${sids.a1}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      call_sid: sids.a1,
      status: 'completed',
      direction: 'outbound',
      transport: 'sip',
      from_number: '+14155550100',
      to_number: '+14155550111',
      assistant_id: assistantId,
      contact_id: null,
      phone_number_id: null,
      privacy_mode: null,
      campaign_id: null,
      widget_key_id: null,
      provider_call_sid: null,
      welcome_message: null,
      variables: { first_name: 'Ada' },
      created_at: '2026-11-01T10:00:00.000Z',
      started_at: '2026-11-01T10:00:05.000Z',
      ended_at: '2026-11-01T10:01:05.000Z',
      duration_seconds: 60,
      end_reason: 'customer_hangup',
      answered_by: null,
      summary: 'Booked.',
      outcomes: { goal_achieved: true },
      collected_values: null,
      analysis_error: null,
      missing_variables: [],
      call_start_lookup: null,
      assistant_version: null,
      assistant_draft: false,
      latency: { e2e_latency_ms: { p50: 700, p95: 900 } },
      usage: null,
      cost: null,
      recordings: [{ track: 'mixed', format: 'mp3', duration_seconds: 60, size_bytes: 1000, url: `/api/calls/${sids.a1}/recordings/mixed` }],
      transcript_url: `/api/calls/${sids.a1}/transcript`,
    });
  });

  it("answers 404 for another organisation's call exactly as for a missing one", async ({ api, acme }) => {
    const theirs = await api.call(acme, 'GET', `/api/calls/${sids.b1}`);
    const missing = await api.call(acme, 'GET', '/api/calls/CAffffffffffffffffffffffffffffffff');
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual(missing.body);
    expect((await api.call(acme, 'GET', `/api/calls/${sids.b1}/transcript`)).status).toBe(404);
    expect((await api.call(acme, 'GET', '/api/calls/not%20a%20sid')).status).toBe(422);
  });

  it('returns the transcript in spoken order with interruptions and latency', async ({ api, acme }) => {
    const res = await api.call(acme, 'GET', `/api/calls/${sids.a1}/transcript`);
    expect(res.body.data.map((t: { text: string }) => t.text)).toEqual(['Hello!', 'I want a table', 'Booked.']);
    expect(res.body.data[2]).toEqual({
      role: 'assistant',
      text: 'Booked.',
      start_ms: 4500,
      end_ms: 5500,
      interrupted: true,
      metrics: { e2e_latency_ms: 700 },
      tool_calls: null,
      turn_decision: null,
      retrieval: null,
      tool_message: null,
      language: null,
    });
  });
});

describe('recording download', () => {
  const url = () => `/api/calls/${sids.a1}/recordings/mixed`;

  it('serves the whole file with its content type and length', async ({ download }) => {
    const res = await download();
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('audio/mpeg');
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.rawPayload.length).toBe(1000);
    expect(res.headers['content-length']).toBe('1000');
  });

  it('serves a byte range, a suffix range, and refuses one past the end with 416', async ({ download }) => {
    const part = await download({ range: 'bytes=10-19' });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe('bytes 10-19/1000');
    expect([...part.rawPayload]).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    const tail = await download({ range: 'bytes=-4' });
    expect(tail.headers['content-range']).toBe('bytes 996-999/1000');
    expect(tail.rawPayload.length).toBe(4);
    const open = await download({ range: 'bytes=990-' });
    expect(open.rawPayload.length).toBe(10);
    const beyond = await download({ range: 'bytes=5000-6000' });
    expect(beyond.statusCode).toBe(416);
    expect(beyond.headers['content-range']).toBe('bytes */1000');
  });

  it('answers 404 for a track that was not recorded and 422 for one that does not exist', async ({ api, acme, other }) => {
    expect((await api.call(acme, 'GET', `/api/calls/${sids.a1}/recordings/user`)).status).toBe(404);
    expect((await api.call(acme, 'GET', `/api/calls/${sids.a1}/recordings/video`)).status).toBe(422);
    expect((await api.call(other, 'GET', url())).status).toBe(404);
  });
});
