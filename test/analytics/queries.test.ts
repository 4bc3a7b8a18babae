import { describe, expect } from 'vitest';
import { apiTest } from '../helpers/fixtures.js';
import type { ApiContext, Tenant } from '../helpers/api.js';
import { runChartQuery } from '../../modules/analytics/query.js';
import { ChartQuery } from '../../modules/analytics/schemas.js';
import { rolledMeasures } from '../../modules/analytics/rollups.js';
import { resolvePeriod } from '../../modules/analytics/period.js';
import { METRICS } from '../../modules/analytics/metrics.js';
import { foldAllRollups } from '../helpers/rollups.js';

// What charts compute, against values computed here independently: buckets in a time zone across daylight-saving
// changes, percentiles as percentile_cont defines them, costs by component, rates, outcomes, groups and filters.
// Each describe has its own organisation, so the rows it counts are its own.

interface Seed {
  at: string;
  status?: string;
  direction?: string;
  durationMs?: number | null;
  endReason?: string | null;
  answeredBy?: string | null;
  outcomes?: object | null;
  collectedValues?: object;
  assistantId?: number | null;
  fromNumber?: string | null;
  costs?: [llm: number, stt: number, tts: number, telephony: number];
  latenciesMs?: number[];
}

let sequence = 0;

async function seed(api: ApiContext, tenant: Tenant, calls: Seed[]): Promise<void> {
  for (const c of calls) {
    const costs = c.costs?.map((usd) => BigInt(Math.round(usd * 1e6)));
    const call = await api.db.prisma.call.create({
      data: {
        callSid: `CAq${++sequence}x${tenant.organizationId}`,
        organizationId: tenant.organizationId,
        direction: c.direction ?? 'inbound',
        status: c.status ?? 'completed',
        createdAt: new Date(c.at),
        startedAt: ['completed', 'failed'].includes(c.status ?? 'completed') ? new Date(c.at) : null,
        durationMs: c.durationMs === undefined ? 60_000 : c.durationMs,
        endReason: c.endReason === undefined ? 'customer_hangup' : c.endReason,
        answeredBy: c.answeredBy ?? null,
        outcomes: c.outcomes ?? undefined,
        collectedValues: c.collectedValues,
        assistantId: c.assistantId ?? null,
        fromNumber: c.fromNumber ?? null,
        ...(costs
          ? {
              costLlmMicroUsd: costs[0],
              costSttMicroUsd: costs[1],
              costTtsMicroUsd: costs[2],
              costTelephonyMicroUsd: costs[3],
              costMicroUsd: costs.reduce((a, b) => a + b, 0n),
            }
          : {}),
      },
    });
    if (c.latenciesMs) {
      await api.db.prisma.callTurn.createMany({
        data: c.latenciesMs.map((ms, i) => ({
          callId: call.id,
          position: i,
          role: 'assistant',
          text: 'reply',
          startMs: i * 1000,
          endMs: i * 1000 + 500,
          e2eLatencyMs: ms,
          llmTtftMs: Math.round(ms / 3),
        })),
      });
    }
  }
}

/** percentile_cont as Postgres defines it: linear interpolation between the two nearest ranks. */
function percentileCont(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = p * (sorted.length - 1);
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

const query = async (api: ApiContext, tenant: Tenant, body: Record<string, unknown>) => {
  const res = await api.call(tenant, 'POST', '/api/analytics/query', body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
};

const it = apiTest.extend('org', { scope: 'test' }, async ({ api }) => api.tenant());

describe('time buckets in a time zone', () => {
  it('counts each call on its local day across the spring change to daylight saving (a 23-hour day)', async ({ api, org }) => {
    await seed(api, org, [
      { at: '2026-03-07T04:59:00Z' }, // Mar 6, 23:59 EST
      { at: '2026-03-07T05:00:00Z' }, // Mar 7, 00:00 EST
      { at: '2026-03-08T04:59:00Z' }, // Mar 7, 23:59 EST
      { at: '2026-03-08T05:00:00Z' }, // Mar 8, 00:00 EST
      { at: '2026-03-09T03:59:00Z' }, // Mar 8, 23:59 EDT: the day had 23 hours
      { at: '2026-03-09T04:00:00Z' }, // Mar 9, 00:00 EDT
    ]);
    const data = await query(api, org, { metric: 'calls', group_by: ['day'], period: { from: '2026-03-07', to: '2026-03-10' }, timezone: 'America/New_York' });
    expect(data.period).toEqual({ preset: null, from: '2026-03-07T00:00:00.000-05:00', to: '2026-03-10T00:00:00.000-04:00' });
    expect(data.series[0].points).toEqual([
      { t: '2026-03-07T00:00:00.000-05:00', value: 2 },
      { t: '2026-03-08T00:00:00.000-05:00', value: 2 },
      { t: '2026-03-09T00:00:00.000-04:00', value: 1 },
    ]);
    expect(data.totals.calls).toBe(5);
    // The same calls by UTC day.
    const utc = await query(api, org, { metric: 'calls', group_by: ['day'], period: { from: '2026-03-07', to: '2026-03-10' } });
    expect(utc.series[0].points.map((p: { value: number }) => p.value)).toEqual([2, 2, 2]);
  });

  it('counts each call on its local day and hour across the autumn change back (a 25-hour day)', async ({ api, org }) => {
    await seed(api, org, [
      { at: '2026-11-01T04:00:00Z' }, // Nov 1, 00:00 EDT
      { at: '2026-11-01T05:30:00Z' }, // Nov 1, 01:30 EDT
      { at: '2026-11-01T06:30:00Z' }, // Nov 1, 01:30 EST: the hour came twice
      { at: '2026-11-02T04:59:00Z' }, // Nov 1, 23:59 EST
      { at: '2026-11-02T05:00:00Z' }, // Nov 2, 00:00 EST
    ]);
    const days = await query(api, org, { metric: 'calls', group_by: ['day'], period: { from: '2026-11-01', to: '2026-11-03' }, timezone: 'America/New_York' });
    expect(days.series[0].points).toEqual([
      { t: '2026-11-01T00:00:00.000-04:00', value: 4 },
      { t: '2026-11-02T00:00:00.000-05:00', value: 1 },
    ]);
    const weeks = await query(api, org, {
      metric: 'calls',
      group_by: ['week'],
      period: { from: '2026-10-26', to: '2026-11-09' },
      timezone: 'America/New_York',
    });
    // ISO weeks start on Monday: Oct 26 holds Sunday Nov 1, Nov 2 starts the next.
    expect(weeks.series[0].points).toEqual([
      { t: '2026-10-26T00:00:00.000-04:00', value: 4 },
      { t: '2026-11-02T00:00:00.000-05:00', value: 1 },
    ]);
    const hours = await query(api, org, {
      metric: 'calls',
      group_by: ['hour'],
      period: { from: '2026-11-01T00:00:00-04:00', to: '2026-11-01T03:00:00-05:00' },
      timezone: 'America/New_York',
    });
    const counted = hours.series[0].points.filter((p: { value: number }) => p.value > 0);
    expect(counted.reduce((a: number, p: { value: number }) => a + p.value, 0)).toBe(3);
    expect(counted[0]).toEqual({ t: '2026-11-01T00:00:00.000-04:00', value: 1 });
  });
});

describe('percentiles', () => {
  it('equal percentile_cont computed here, overall and per day, over each assistant turn', async ({ api, org }) => {
    const day1 = [[420, 380, 910], [505, 1230], [350]];
    const day2 = [[640, 700, 2200, 515], [480]];
    await seed(api, org, [
      ...day1.map((latenciesMs, i) => ({ at: `2026-05-04T1${i}:00:00Z`, latenciesMs, durationMs: 30_000 + i * 7_000 })),
      ...day2.map((latenciesMs, i) => ({ at: `2026-05-05T1${i}:00:00Z`, latenciesMs, durationMs: 95_000 + i * 1_000 })),
      { at: '2026-05-05T15:00:00Z', status: 'no_answer', durationMs: 0 },
    ]);
    const all = [...day1.flat(), ...day2.flat()];
    const data = await query(api, org, {
      metric: 'latency_e2e_ms',
      aggregation: 'percentiles',
      group_by: ['day'],
      period: { from: '2026-05-04', to: '2026-05-06' },
    });
    expect(data.totals.measures.p50).toBeCloseTo(percentileCont(all, 0.5), 9);
    expect(data.totals.measures.p90).toBeCloseTo(percentileCont(all, 0.9), 9);
    expect(data.totals.measures.p99).toBeCloseTo(percentileCont(all, 0.99), 9);
    expect(data.totals.calls).toBe(5);
    const p90 = data.series.find((s: { key: { measure: string } }) => s.key.measure === 'p90');
    expect(p90.points.map((p: { value: number }) => p.value)).toEqual(
      [percentileCont(day1.flat(), 0.9), percentileCont(day2.flat(), 0.9)].map((v) => expect.closeTo(v, 9)),
    );
    const ttft = await query(api, org, { metric: 'latency_llm_ttft_ms', aggregation: 'p95', period: { from: '2026-05-04', to: '2026-05-06' } });
    expect(ttft.totals.value).toBeCloseTo(
      percentileCont(
        all.map((ms) => Math.round(ms / 3)),
        0.95,
      ),
      9,
    );
    // Durations of the calls that were answered: the unanswered one is not a 0-second call.
    const durations = [30, 37, 44, 95, 96];
    const p95 = await query(api, org, { metric: 'duration_seconds', aggregation: 'p95', period: { from: '2026-05-04', to: '2026-05-06' } });
    expect(p95.totals.value).toBeCloseTo(percentileCont(durations, 0.95), 9);
    const avg = await query(api, org, { metric: 'duration_seconds', period: { from: '2026-05-04', to: '2026-05-06' } });
    expect(avg.totals.value).toBeCloseTo(durations.reduce((a, b) => a + b, 0) / durations.length, 9);
  });
});

describe('costs, rates and outcomes', () => {
  it('sums cost by component, exactly, per day and overall', async ({ api, org }) => {
    await seed(api, org, [
      { at: '2026-06-01T10:00:00Z', costs: [0.001234, 0.0077, 0.0123, 0.0045] },
      { at: '2026-06-01T11:00:00Z', costs: [0.000766, 0.0154, 0, 0.009] },
      { at: '2026-06-02T11:00:00Z', costs: [0.5, 0, 0.25, 0.125] },
      { at: '2026-06-02T12:00:00Z', status: 'busy', durationMs: 0 },
    ]);
    const data = await query(api, org, { metric: 'cost_by_component', group_by: ['day'], period: { from: '2026-06-01', to: '2026-06-03' } });
    expect(data).toMatchObject({ unit: 'usd', currency: 'USD' });
    expect(data.totals.measures).toEqual({ llm: 0.502, stt: 0.0231, tts: 0.2623, telephony: 0.1385 });
    expect(data.totals.value).toBeCloseTo(0.502 + 0.0231 + 0.2623 + 0.1385, 12);
    const llm = data.series.find((s: { key: { measure: string } }) => s.key.measure === 'llm');
    expect(llm.points.map((p: { value: number }) => p.value)).toEqual([0.002, 0.5]);
    const total = await query(api, org, { metric: 'cost', aggregation: 'avg', period: { from: '2026-06-01', to: '2026-06-03' } });
    // Averaged over the calls that were costed: the busy one never started.
    expect(total.totals.value).toBeCloseTo((0.025734 + 0.025166 + 0.875) / 3, 12);
  });

  it('computes answer, voicemail, transfer and success rates over the calls each is defined on', async ({ api, org }) => {
    await seed(api, org, [
      { at: '2026-07-01T10:00:00Z', outcomes: { goal_achieved: true, sentiment: 'positive' } },
      { at: '2026-07-01T10:01:00Z', endReason: 'transferred', outcomes: { goal_achieved: false, sentiment: 'neutral' } },
      { at: '2026-07-01T10:02:00Z', answeredBy: 'machine_end_beep', outcomes: { sentiment: 'neutral' } },
      { at: '2026-07-01T10:03:00Z', status: 'voicemail', durationMs: 0, endReason: 'voicemail' },
      { at: '2026-07-01T10:04:00Z', status: 'no_answer', durationMs: 0, endReason: 'no_answer' },
      { at: '2026-07-01T10:05:00Z', status: 'in_progress', durationMs: null, endReason: null },
    ]);
    const period = { from: '2026-07-01', to: '2026-07-02' };
    const rate = async (metric: string) => (await query(api, org, { metric, period })).totals.value;
    // Of the five calls that ended: two people answered; two machines; one transfer of three conversations; one success of two verdicts.
    expect(await rate('answer_rate')).toBeCloseTo(2 / 5, 12);
    expect(await rate('voicemail_rate')).toBeCloseTo(2 / 5, 12);
    expect(await rate('transfer_rate')).toBeCloseTo(1 / 3, 12);
    expect(await rate('success_rate')).toBeCloseTo(1 / 2, 12);
    const reasons = await query(api, org, { metric: 'end_reasons', period });
    expect(Object.fromEntries(reasons.series.map((s: { label: string; total: number }) => [s.label, s.total]))).toEqual({
      customer_hangup: 2,
      transferred: 1,
      voicemail: 1,
      no_answer: 1,
    });
  });

  it('shows the top outcomes and sums the rest into other', async ({ api, org }) => {
    const sentiments = ['positive', 'positive', 'positive', 'neutral', 'neutral', 'negative', 'angry'];
    await seed(
      api,
      org,
      sentiments.map((sentiment, i) => ({ at: `2026-08-01T10:0${i}:00Z`, outcomes: { sentiment, fields: { order_total: (i + 1) * 10 } } })),
    );
    const period = { from: '2026-08-01', to: '2026-08-02' };
    const top = await query(api, org, { metric: 'outcomes', field: 'sentiment', limit: 2, period });
    expect(top.series.map((s: { label: string; total: number }) => [s.label, s.total])).toEqual([
      ['positive', 3],
      ['neutral', 2],
      ['other', 2],
    ]);
    expect(top.truncated).toBe(true);
    const value = await query(api, org, { metric: 'outcome_value', field: 'fields.order_total', period });
    expect(value.totals.value).toBeCloseTo(40, 12);
    const grouped = await query(api, org, { metric: 'calls', group_by: ['outcome.sentiment'], limit: 10, period });
    expect(grouped.series.map((s: { key: object }) => s.key)).toContainEqual({ 'outcome.sentiment': 'angry' });
  });

  it('counts and averages the values playbooks collected, whichever playbook collected them', async ({ api, org }) => {
    const booked = (partySize: number, seating: string) => ({ 'Table booking': { values: { party_size: partySize, seating }, missing: [] } });
    await seed(api, org, [
      { at: '2026-08-03T10:00:00Z', collectedValues: booked(2, 'terrace') },
      { at: '2026-08-03T11:00:00Z', collectedValues: booked(6, 'inside') },
      { at: '2026-08-03T12:00:00Z', collectedValues: { Callback: { values: { seating: 'terrace' }, missing: ['party_size'] } } },
      { at: '2026-08-03T13:00:00Z', outcomes: { seating: 'bar' } },
    ]);
    const period = { from: '2026-08-03', to: '2026-08-04' };
    const seating = await query(api, org, { metric: 'outcomes', field: 'collected.seating', period });
    expect(seating.series.map((s: { label: string; total: number }) => [s.label, s.total])).toEqual([
      ['terrace', 2],
      ['inside', 1],
    ]);
    const party = await query(api, org, { metric: 'outcome_value', field: 'collected.party_size', period });
    expect(party.totals.value).toBe(4);
    const grouped = await query(api, org, { metric: 'calls', group_by: ['outcome.collected.seating'], period });
    expect(grouped.series.map((s: { label: string; total: number }) => [s.label, s.total])).toEqual([
      ['terrace', 2],
      ['inside', 1],
      ['none', 1],
    ]);
    const refused = await api.call(org, 'POST', '/api/analytics/query', { metric: 'outcomes', field: 'collected.a.b', period });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toContainEqual({ loc: ['body', 'field'], msg: expect.any(String), type: 'value_error' });
  });

  it('groups by assistant with its name and narrows by the calls list filters', async ({ api, org }) => {
    const assistant = (await api.call(org, 'POST', '/api/assistants', { name: 'Front desk' })).body;
    await seed(api, org, [
      { at: '2026-09-01T10:00:00Z', assistantId: assistant.id, fromNumber: '+14155550100', durationMs: 120_000 },
      { at: '2026-09-01T11:00:00Z', assistantId: assistant.id, direction: 'outbound', durationMs: 30_000 },
      { at: '2026-09-01T12:00:00Z', durationMs: 90_000 },
    ]);
    const period = { from: '2026-09-01', to: '2026-09-02' };
    const minutes = await query(api, org, { metric: 'minutes', group_by: ['assistant'], period });
    expect(minutes.series.map((s: { label: string; total: number }) => [s.label, s.total])).toEqual([
      ['Front desk', 2.5],
      ['none', 1.5],
    ]);
    const inbound = await query(api, org, { metric: 'minutes', filters: { direction: ['inbound'], assistant_id: [assistant.id] }, period });
    expect(inbound.totals.value).toBe(2);
    const byNumber = await query(api, org, { metric: 'calls', filters: { phone_number: ['+14155550100'] }, period });
    expect(byNumber.totals.calls).toBe(1);
  });
});

describe('the hourly rollups', () => {
  const period = { from: '2026-10-01', to: '2026-10-04' };
  const queries: Array<Record<string, unknown>> = [
    { metric: 'calls', group_by: ['day', 'direction'] },
    { metric: 'calls', group_by: ['hour'], timezone: 'Europe/Paris' },
    { metric: 'minutes', aggregation: 'avg', group_by: ['assistant'] },
    { metric: 'duration_seconds', aggregation: 'avg', group_by: ['status'] },
    { metric: 'cost_by_component', aggregation: 'avg', group_by: ['day'] },
    { metric: 'cost', filters: { status: ['completed'], direction: ['inbound'] } },
    { metric: 'answer_rate', group_by: ['week'], timezone: 'America/Los_Angeles' },
    { metric: 'voicemail_rate' },
    { metric: 'transfer_rate', group_by: ['end_reason'] },
    { metric: 'success_rate', group_by: ['day'] },
    { metric: 'end_reasons', group_by: ['month'], limit: 2 },
    { metric: 'interruptions_per_call' },
    { metric: 'tool_failures', aggregation: 'sum', group_by: ['transport'] },
    { metric: 'outcomes', field: 'sentiment', group_by: ['day'], limit: 2 },
    { metric: 'calls', group_by: ['outcome.sentiment', 'direction'] },
  ];

  it('answer every query they can as the calls themselves do', async ({ api, org }) => {
    const assistant = (await api.call(org, 'POST', '/api/assistants', { name: 'Rolled' })).body;
    const statuses = ['completed', 'completed', 'completed', 'failed', 'no_answer', 'voicemail', 'busy'];
    const reasons = ['customer_hangup', 'transferred', 'assistant_ended_call'];
    await seed(
      api,
      org,
      Array.from({ length: 60 }, (_, i): Seed => {
        const status = statuses[i % statuses.length]!;
        const talked = status === 'completed' || status === 'failed';
        return {
          at: new Date(Date.parse('2026-10-01T00:00:00Z') + i * 71 * 60_000).toISOString(),
          status,
          direction: i % 3 === 0 ? 'outbound' : 'inbound',
          durationMs: talked ? 10_000 + ((i * 7_919) % 200_000) : 0,
          endReason: talked ? reasons[i % reasons.length]! : status,
          answeredBy: i % 11 === 0 ? 'machine_start' : null,
          outcomes: talked ? { goal_achieved: i % 4 !== 0, ...(i % 5 === 0 ? {} : { sentiment: ['positive', 'neutral', 'negative'][i % 3] }) } : null,
          assistantId: i % 2 === 0 ? assistant.id : null,
          ...(talked ? { costs: [0.001 * i, 0.0077, 0.0003 * i, 0.0045] as [number, number, number, number] } : {}),
        };
      }),
    );
    for (const raw of queries) {
      const q = ChartQuery.parse({ ...raw, period });
      // Each of these is one the rollups answer: the comparison is between the two ways, not one way twice.
      expect(
        rolledMeasures(q, q.aggregation ?? METRICS[q.metric].aggregations[0]!, resolvePeriod(q.period, q.timezone, new Date(), [])),
        JSON.stringify(raw),
      ).toBeDefined();
      const rolled = await runChartQuery(api.db.prisma, org.organizationId, q);
      const counted = await runChartQuery(api.db.prisma, org.organizationId, q, { source: 'calls' });
      const { generated_at: _a, ...fromRollups } = rolled;
      const { generated_at: _b, ...fromCalls } = counted;
      expect(
        JSON.parse(JSON.stringify(fromRollups), (_k, v) => (typeof v === 'number' ? Number(v.toPrecision(12)) : v)),
        JSON.stringify(raw),
      ).toEqual(JSON.parse(JSON.stringify(fromCalls), (_k, v) => (typeof v === 'number' ? Number(v.toPrecision(12)) : v)));
    }
  });

  it('follow a call from queued to ended, and its assistant deleted', async ({ api, org }) => {
    const assistant = (await api.call(org, 'POST', '/api/assistants', { name: 'Followed' })).body;
    const call = await api.db.prisma.call.create({
      data: {
        callSid: `CAfollow${org.organizationId}`,
        organizationId: org.organizationId,
        assistantId: assistant.id,
        direction: 'outbound',
        status: 'queued',
        createdAt: new Date('2026-10-10T10:15:00Z'),
      },
    });
    const q = (raw: Record<string, unknown>) =>
      runChartQuery(api.db.prisma, org.organizationId, ChartQuery.parse({ period: { from: '2026-10-10', to: '2026-10-11' }, ...raw }));
    expect((await q({ metric: 'calls', group_by: ['status'] })).series.map((s) => [s.key, s.total])).toEqual([[{ status: 'queued' }, 1]]);
    await api.db.prisma.call.update({ where: { id: call.id }, data: { status: 'in_progress', startedAt: new Date('2026-10-10T10:15:20Z') } });
    await api.db.prisma.call.update({ where: { id: call.id }, data: { heartbeatAt: new Date() } });
    await api.db.prisma.call.update({
      where: { id: call.id },
      data: {
        status: 'completed',
        endReason: 'customer_hangup',
        durationMs: 90_000,
        costMicroUsd: 12_345n,
        costLlmMicroUsd: 12_345n,
        costSttMicroUsd: 0n,
        costTtsMicroUsd: 0n,
        costTelephonyMicroUsd: 0n,
      },
    });
    expect((await q({ metric: 'calls', group_by: ['status'] })).series.map((s) => [s.key, s.total])).toEqual([[{ status: 'completed' }, 1]]);
    expect((await q({ metric: 'minutes', group_by: ['assistant'] })).series.map((s) => [s.label, s.total])).toEqual([['Followed', 1.5]]);
    expect((await q({ metric: 'cost' })).totals.value).toBe(0.012345);
    expect((await api.call(org, 'DELETE', `/api/assistants/${assistant.id}`)).status).toBe(204);
    expect((await q({ metric: 'minutes', group_by: ['assistant'] })).series.map((s) => [s.key, s.total])).toEqual([[{ assistant: null }, 1.5]]);
    // The rows themselves, once the folder has moved the calls' deltas into them.
    await foldAllRollups(api.db.prisma);
    const rows = await api.db.prisma.callRollup.findMany({ where: { organizationId: org.organizationId, calls: { not: 0 } } });
    expect(rows.map((r) => [r.status, r.assistantId, r.calls])).toEqual([['completed', 0, 1]]);
  });

  it('go with their organisation when it is deleted with its calls', async ({ api, org }) => {
    await seed(api, org, [{ at: '2026-10-12T09:00:00Z' }, { at: '2026-10-12T10:00:00Z', status: 'no_answer', durationMs: 0, endReason: 'no_answer' }]);
    expect(await api.db.prisma.callRollup.count({ where: { organizationId: org.organizationId } })).toBe(2);
    await api.db.prisma.$executeRaw`DELETE FROM organizations WHERE id = ${org.organizationId}`;
    expect(await api.db.prisma.callRollup.count({ where: { organizationId: org.organizationId } })).toBe(0);
    expect(await api.db.prisma.call.count({ where: { organizationId: org.organizationId } })).toBe(0);
  });
});
