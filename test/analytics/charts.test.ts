import { describe, expect } from 'vitest';
import { apiTest } from '../helpers/fixtures.js';
import type { Tenant } from '../helpers/api.js';

// Saved charts over the API: the default set, their resource, running one with and without a period override,
// exports, the 422 model and tenancy.

const it = apiTest.extend('other', { scope: 'file' }, async ({ api }) => api.tenant('Another organisation'));

/** Calls of the tenant, inserted with what a finished call stores. */
async function seedCalls(
  api: { db: { prisma: any } },
  tenant: Tenant,
  calls: Array<{ at: string; status?: string; durationMs?: number; endReason?: string; outcomes?: object }>,
) {
  await api.db.prisma.call.createMany({
    data: calls.map((c, i) => ({
      callSid: `CA${tenant.organizationId}x${i}x${Date.parse(c.at)}`,
      organizationId: tenant.organizationId,
      direction: 'inbound',
      status: c.status ?? 'completed',
      createdAt: new Date(c.at),
      startedAt: c.status === 'no_answer' ? null : new Date(c.at),
      durationMs: c.durationMs ?? 60_000,
      endReason: c.endReason ?? 'customer_hangup',
      outcomes: c.outcomes,
    })),
  });
}

describe('the default charts', () => {
  it('exist for a new organisation, once: a deleted one stays deleted', async ({ api, tenant }) => {
    const first = await api.call(tenant, 'GET', '/api/analytics/charts');
    expect(first.status).toBe(200);
    expect(first.body.data.map((c: { name: string }) => c.name)).toEqual([
      'Call volume',
      'Minutes',
      'Cost by component',
      'Answer rate',
      'Reply latency percentiles',
      'End reasons',
      'Top outcomes',
    ]);
    expect(first.body.data[4]).toMatchObject({
      metric: 'latency_e2e_ms',
      aggregation: 'percentiles',
      group_by: ['day'],
      period: { preset: 'last_30_days' },
      timezone: 'UTC',
    });
    expect(first.body.pagination.total).toBe(7);
    const deleted = await api.call(tenant, 'DELETE', `/api/analytics/charts/${first.body.data[6].id}`);
    expect(deleted.status).toBe(204);
    const again = await api.call(tenant, 'GET', '/api/analytics/charts');
    expect(again.body.data).toHaveLength(6);
  });

  it('each answer its query', async ({ api, tenant }) => {
    const list = await api.call(tenant, 'GET', '/api/analytics/charts');
    for (const chart of list.body.data) {
      const res = await api.call(tenant, 'POST', `/api/analytics/charts/${chart.id}/query`);
      expect(res.status, chart.name).toBe(200);
      expect(res.body.data).toMatchObject({ chart_id: chart.id, name: chart.name, metric: chart.metric, timezone: 'UTC', period: { preset: 'last_30_days' } });
    }
  });
});

describe('a saved chart', () => {
  it('is created, read, replaced and deleted', async ({ api, tenant }) => {
    const created = await api.call(tenant, 'POST', '/api/analytics/charts', {
      name: 'Failures by reason',
      metric: 'end_reasons',
      filters: { status: ['failed'] },
      period: { preset: 'last_7_days' },
      timezone: 'Europe/Paris',
      chart_type: 'pie',
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      name: 'Failures by reason',
      metric: 'end_reasons',
      aggregation: 'count',
      filters: { status: ['failed'] },
      timezone: 'Europe/Paris',
      chart_type: 'pie',
      group_by: [],
      limit: 10,
    });
    const id = created.body.data.id;
    expect((await api.call(tenant, 'GET', `/api/analytics/charts/${id}`)).body.data).toEqual(created.body.data);
    const replaced = await api.call(tenant, 'PUT', `/api/analytics/charts/${id}`, {
      name: 'Minutes per assistant',
      metric: 'minutes',
      group_by: ['assistant'],
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data).toMatchObject({
      id,
      name: 'Minutes per assistant',
      metric: 'minutes',
      aggregation: 'sum',
      filters: {},
      timezone: 'UTC',
      chart_type: 'line',
    });
    expect((await api.call(tenant, 'DELETE', `/api/analytics/charts/${id}`)).status).toBe(204);
    expect((await api.call(tenant, 'GET', `/api/analytics/charts/${id}`)).status).toBe(404);
  });

  it("runs over its own period without a body, and over the override's period and time zone with one, leaving the chart unchanged", async ({ api, tenant }) => {
    await seedCalls(api, tenant, [
      { at: '2026-01-10T12:00:00Z' },
      { at: '2026-01-11T12:00:00Z' },
      { at: '2026-01-11T23:30:00Z' },
      { at: '2026-02-01T10:00:00Z' },
    ]);
    const chart = (
      await api.call(tenant, 'POST', '/api/analytics/charts', {
        name: 'January',
        metric: 'calls',
        group_by: ['day'],
        period: { from: '2026-01-10', to: '2026-01-12' },
      })
    ).body.data;

    const saved = await api.call(tenant, 'POST', `/api/analytics/charts/${chart.id}/query`);
    expect(saved.status).toBe(200);
    expect(saved.body.data.period).toEqual({ preset: null, from: '2026-01-10T00:00:00.000Z', to: '2026-01-12T00:00:00.000Z' });
    expect(saved.body.data.series).toEqual([
      {
        key: {},
        label: 'calls',
        total: 3,
        points: [
          { t: '2026-01-10T00:00:00.000Z', value: 1 },
          { t: '2026-01-11T00:00:00.000Z', value: 2 },
        ],
      },
    ]);
    expect(saved.body.data.totals).toEqual({ calls: 3, value: 3, measures: { value: 3 } });

    // In Tokyo (UTC+9) the call at 23:30 UTC on the 11th falls on the 12th, outside the same dates.
    const tokyo = await api.call(tenant, 'POST', `/api/analytics/charts/${chart.id}/query`, { timezone: 'Asia/Tokyo' });
    expect(tokyo.body.data.timezone).toBe('Asia/Tokyo');
    expect(tokyo.body.data.period).toEqual({ preset: null, from: '2026-01-10T00:00:00.000+09:00', to: '2026-01-12T00:00:00.000+09:00' });
    expect(tokyo.body.data.series[0].points.map((p: { value: number }) => p.value)).toEqual([1, 1]);

    const february = await api.call(tenant, 'POST', `/api/analytics/charts/${chart.id}/query`, {
      period: { from: '2026-02-01T00:00:00Z', to: '2026-02-02T00:00:00Z' },
    });
    expect(february.body.data.totals.calls).toBe(1);
    expect((await api.call(tenant, 'GET', `/api/analytics/charts/${chart.id}`)).body.data.period).toEqual({ from: '2026-01-10', to: '2026-01-12' });
  });

  it('refuses a bad override with the 422 model at the field', async ({ api, tenant }) => {
    const chart = (await api.call(tenant, 'POST', '/api/analytics/charts', { name: 'Volume', metric: 'calls' })).body.data;
    const cases: Array<[unknown, (string | number)[], string]> = [
      [{ period: { preset: 'last_century' } }, ['body', 'period'], 'union_type'],
      [{ timezone: 'Mars/Olympus_Mons' }, ['body', 'timezone'], 'value_error'],
      [{ period: { from: '2026-01-02', to: '2026-01-01' } }, ['body', 'period', 'to'], 'value_error'],
      [{ period: { from: 'yesterday', to: '2026-01-01' } }, ['body', 'period', 'from'], 'datetime_parsing'],
      [{ colour: 'red' }, ['body', 'colour'], 'extra_forbidden'],
    ];
    for (const [body, loc, type] of cases) {
      const res = await api.call(tenant, 'POST', `/api/analytics/charts/${chart.id}/query`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail, JSON.stringify(body)).toContainEqual({ loc, msg: expect.any(String), type });
    }
  });

  it('refuses a query whose fields do not fit together, at the field', async ({ api, tenant }) => {
    const cases: Array<[Record<string, unknown>, (string | number)[]]> = [
      [{ metric: 'answer_rate', aggregation: 'sum' }, ['body', 'aggregation']],
      [{ metric: 'outcomes' }, ['body', 'field']],
      [{ metric: 'calls', group_by: ['day', 'week'] }, ['body', 'group_by']],
      [{ metric: 'calls', group_by: ['outcome.fields; DROP TABLE calls'] }, ['body', 'group_by', 0]],
      [{ metric: 'calls', group_by: ['hour'], period: { from: '2025-01-01', to: '2026-01-01' } }, ['body', 'group_by']],
      [{ metric: 'calls', filters: { status: ['lost'] } }, ['body', 'filters', 'status', 0]],
    ];
    for (const [body, loc] of cases) {
      const res = await api.call(tenant, 'POST', '/api/analytics/query', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(
        res.body.detail.map((d: { loc: unknown }) => d.loc),
        JSON.stringify(body),
      ).toContainEqual(loc);
    }
  });

  it('exports its result as CSV and as JSON, with the override in the query string', async ({ api, tenant }) => {
    await seedCalls(api, tenant, [
      { at: '2026-03-02T10:00:00Z', endReason: '=HYPERLINK("http://evil")' },
      { at: '2026-03-02T11:00:00Z', endReason: 'customer_hangup' },
      { at: '2026-03-03T11:00:00Z', endReason: 'customer_hangup' },
    ]);
    const chart = (
      await api.call(tenant, 'POST', '/api/analytics/charts', {
        name: 'End reasons / March',
        metric: 'end_reasons',
        group_by: ['day'],
        period: { from: '2026-03-02', to: '2026-03-04' },
      })
    ).body.data;
    const csv = await api.app.inject({ method: 'GET', url: `/api/analytics/charts/${chart.id}/export`, headers: { authorization: `Bearer ${tenant.key}` } });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toMatch(/^attachment; filename="end-reasons-march-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(csv.body.trim().split('\n')).toEqual([
      'series,end_reason,t,value,unit,currency,timezone',
      'customer_hangup,customer_hangup,2026-03-02T00:00:00.000Z,1,calls,,UTC',
      'customer_hangup,customer_hangup,2026-03-03T00:00:00.000Z,1,calls,,UTC',
      `"'=HYPERLINK(""http://evil"")","'=HYPERLINK(""http://evil"")",2026-03-02T00:00:00.000Z,1,calls,,UTC`,
      `"'=HYPERLINK(""http://evil"")","'=HYPERLINK(""http://evil"")",2026-03-03T00:00:00.000Z,0,calls,,UTC`,
    ]);
    const json = await api.app.inject({
      method: 'GET',
      url: `/api/analytics/charts/${chart.id}/export?format=json&from=2026-03-03&to=2026-03-04&timezone=Europe/London`,
      headers: { authorization: `Bearer ${tenant.key}` },
    });
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = JSON.parse(json.body);
    expect(body).toMatchObject({
      chart_id: chart.id,
      timezone: 'Europe/London',
      period: { from: '2026-03-03T00:00:00.000+00:00', to: '2026-03-04T00:00:00.000+00:00' },
      totals: { calls: 1 },
    });
    const half = await api.call(tenant, 'GET', `/api/analytics/charts/${chart.id}/export?from=2026-03-03`);
    expect(half.status).toBe(422);
    expect(half.body.detail).toContainEqual({ loc: ['query', 'to'], msg: expect.any(String), type: 'missing' });
  });
});

describe('tenancy', () => {
  it("answers 404 for another organisation's chart, on every operation, and never counts its calls", async ({ api, tenant, other }) => {
    await seedCalls(api, other, [{ at: '2026-04-01T10:00:00Z' }]);
    const theirs = (
      await api.call(other, 'POST', '/api/analytics/charts', { name: 'Theirs', metric: 'calls', period: { from: '2026-04-01', to: '2026-04-02' } })
    ).body.data;
    const requests: Array<[string, string, unknown]> = [
      ['GET', `/api/analytics/charts/${theirs.id}`, undefined],
      ['PUT', `/api/analytics/charts/${theirs.id}`, { name: 'Mine now', metric: 'calls' }],
      ['POST', `/api/analytics/charts/${theirs.id}/query`, undefined],
      ['GET', `/api/analytics/charts/${theirs.id}/export`, undefined],
      ['DELETE', `/api/analytics/charts/${theirs.id}`, undefined],
    ];
    for (const [method, url, body] of requests) {
      const res = await api.call(tenant, method as never, url, body);
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.body).toMatchObject({ success: false, code: 'not_found' });
    }
    expect((await api.call(other, 'GET', `/api/analytics/charts/${theirs.id}`)).body.data.name).toBe('Theirs');
    const mine = await api.call(tenant, 'POST', '/api/analytics/query', { metric: 'calls', period: { from: '2026-04-01', to: '2026-04-02' } });
    expect(mine.body.data.totals.calls).toBe(0);
    expect((await api.call(other, 'POST', `/api/analytics/charts/${theirs.id}/query`)).body.data.totals.calls).toBe(1);
  });
});

describe('the price table', () => {
  it("lists the defaults in US dollars and replaces the organisation's overrides", async ({ api, tenant }) => {
    const table = await api.call(tenant, 'GET', '/api/analytics/prices');
    expect(table.body.data).toMatchObject({ currency: 'USD', overrides: [] });
    expect(table.body.data.defaults).toContainEqual({ component: 'telephony', provider: 'sip', model: '*', usd_per_minute: 0.0045 });
    const put = await api.call(tenant, 'PUT', '/api/analytics/prices', { prices: [{ component: 'stt', provider: 'deepgram', usd_per_minute: 0.004 }] });
    expect(put.status).toBe(200);
    expect(put.body.data.overrides).toEqual([{ component: 'stt', provider: 'deepgram', model: '*', usd_per_minute: 0.004 }]);
    const bad = await api.call(tenant, 'PUT', '/api/analytics/prices', { prices: [{ component: 'stt', provider: 'deepgram', usd_per_minute: -1 }] });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toContainEqual({ loc: ['body', 'prices', 0, 'usd_per_minute'], msg: expect.any(String), type: 'greater_than_equal' });
  });
});
