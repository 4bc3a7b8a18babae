import { describe, expect } from 'vitest';
import { apiTest } from '../helpers/fixtures.js';
import type { ApiContext, Tenant } from '../helpers/api.js';
import { runChartQuery } from '../../modules/analytics/query.js';
import { ChartQuery } from '../../modules/analytics/schemas.js';
import { foldAllRollups } from '../helpers/rollups.js';

// Percentiles from the rollups' histograms, against values computed here from the raw rows: within the stated 2% of
// the value of each rank once a period holds 50,000 values; and the histograms themselves, kept by the triggers, equal
// to the same counts made here from the calls and turns, through bulk inserts and deletes, late turns, moves.

const it = apiTest.extend('org', { scope: 'test' }, async ({ api }) => api.tenant());

const GAMMA = 1.02 / 0.98;
const bucketOf = (v: number) => (v < 1 ? 0 : Math.max(1, Math.ceil(Math.log(v) / Math.log(GAMMA))));
/** The value at the rank a percentile reads: the lower of the two percentile_cont interpolates between. */
const atRank = (sorted: number[], p: number) => sorted[Math.floor(p * (sorted.length - 1))]!;
// 2% and the rounding of a float: a value at a bucket's edge (1 ms, in bucket 1) is 2% from its representative.
const within = (value: number, exact: number) => expect(Math.abs(value - exact) / exact).toBeLessThanOrEqual(0.02 + 1e-12);

/** Ended calls inserted in one statement: `count` of them from `at`, a minute apart, and `turns` latencies each. */
async function insertCalls(api: ApiContext, tenant: Tenant, at: string, count: number, turns: number, status = 'completed'): Promise<void> {
  await api.db.prisma.$executeRawUnsafe(
    `INSERT INTO calls (call_sid, organization_id, direction, status, transport, created_at, started_at, duration_ms, end_reason, outcomes, variables, missing_variables, updated_at)
     SELECT 'CAh' || $1::int || '-' || $2::text || '-' || g, $1::int, CASE WHEN g % 3 = 0 THEN 'outbound' ELSE 'inbound' END, $4::text, 'sip',
       $2::timestamptz + make_interval(mins => g), CASE WHEN $4::text = 'no_answer' THEN NULL ELSE $2::timestamptz + make_interval(mins => g) END,
       CASE WHEN $4::text = 'no_answer' THEN 0 ELSE 5000 + ((g::bigint * 7919) % 600000)::int END, 'customer_hangup',
       jsonb_build_object('sentiment', (ARRAY['positive', 'neutral', 'negative'])[1 + g % 3]), '{}', '[]', now()
     FROM generate_series(0, $3::int - 1) g`,
    tenant.organizationId,
    at,
    count,
    status,
  );
  if (turns > 0) await insertTurns(api, `c.organization_id = ${tenant.organizationId} AND c.call_sid LIKE 'CAh${tenant.organizationId}-${at}-%'`, turns);
}

/** Turns with skewed latencies (a long tail), `turns` per call of those `where` selects. */
async function insertTurns(api: ApiContext, where: string, turns: number, from = 0): Promise<void> {
  await api.db.prisma.$executeRawUnsafe(
    `INSERT INTO call_turns (call_id, position, role, text, start_ms, end_ms, interrupted, end_of_utterance_delay_ms, llm_ttft_ms, tts_ttfb_ms, e2e_latency_ms)
     SELECT c.id, p, 'assistant', 'reply', p * 4000, p * 4000 + 2000, false, CASE WHEN p = 0 THEN NULL ELSE 150 + (c.id * 37 + p * 11) % 500 END,
       (200 + ((c.id * 53 + p * 7) % 97) ^ 2 / 4)::int, 0 + (c.id * 29 + p) % 3, 500 + ((c.id * 61 + p * 17) % 113) ^ 2 / 3
     FROM calls c, generate_series($1::int, $1::int + $2::int - 1) p WHERE ${where}`,
    from,
    turns,
  );
}

async function rawValues(api: ApiContext, tenant: Tenant, sql: string): Promise<number[]> {
  const rows = await api.db.prisma.$queryRawUnsafe<Array<{ v: number }>>(sql.replace('$org', String(tenant.organizationId)));
  return rows.map((r) => Number(r.v)).sort((a, b) => a - b);
}

describe('percentiles from the histograms', () => {
  it('are within 2% of the value of each rank over 50,000 values and more, overall and per day, calls under way included', async ({ api, org }) => {
    await insertCalls(api, org, '2026-04-01T00:00:00Z', 26_000, 2);
    await insertCalls(api, org, '2026-04-20T00:00:00Z', 1_000, 0, 'no_answer');
    const running = await api.db.prisma.call.create({
      data: {
        callSid: `CAhrun${org.organizationId}`,
        organizationId: org.organizationId,
        direction: 'inbound',
        status: 'in_progress',
        createdAt: new Date('2026-04-10T10:00:00Z'),
        startedAt: new Date('2026-04-10T10:00:00Z'),
      },
    });
    await insertTurns(api, `c.id = ${running.id}`, 3);
    const period = { from: '2026-04-01', to: '2026-05-01' };

    const e2e = await rawValues(api, org, `SELECT t.e2e_latency_ms AS v FROM call_turns t JOIN calls c ON c.id = t.call_id WHERE c.organization_id = $org`);
    expect(e2e.length).toBe(52_003);
    const latency = await runChartQuery(
      api.db.prisma,
      org.organizationId,
      ChartQuery.parse({ metric: 'latency_e2e_ms', aggregation: 'percentiles', group_by: ['week'], period }),
    );
    expect(latency).toMatchObject({ approximate: true, relative_error: 0.02 });
    expect(latency.totals.calls).toBe(26_001);
    for (const p of ['p50', 'p90', 'p99'] as const) within(latency.totals.measures[p]!, atRank(e2e, Number(p.slice(1)) / 100));
    // Per week: the first week holds the calls of 2026-04-01 (ISO week from Monday 2026-03-30) and the running call's.
    const firstWeek = await rawValues(
      api,
      org,
      `SELECT t.e2e_latency_ms AS v FROM call_turns t JOIN calls c ON c.id = t.call_id WHERE c.organization_id = $org AND c.created_at < '2026-04-06'`,
    );
    const p90 = latency.series.find((s) => s.key.measure === 'p90')!;
    within(p90.points.find((point) => point.t === '2026-03-30T00:00:00.000Z')!.value!, atRank(firstWeek, 0.9));

    // The end-of-utterance delay is missing from the first turn of each call: only the values there are counted.
    const delays = await rawValues(
      api,
      org,
      `SELECT t.end_of_utterance_delay_ms AS v FROM call_turns t JOIN calls c ON c.id = t.call_id WHERE c.organization_id = $org AND t.end_of_utterance_delay_ms IS NOT NULL`,
    );
    const delay = await runChartQuery(
      api.db.prisma,
      org.organizationId,
      ChartQuery.parse({ metric: 'latency_end_of_utterance_ms', aggregation: 'p95', period }),
    );
    // 26,002 values: under the threshold, so exact, as percentile_cont.
    expect(delays.length).toBe(26_002);
    expect(delay).toMatchObject({ approximate: false, relative_error: null });
    const ttfb = await rawValues(api, org, `SELECT t.tts_ttfb_ms AS v FROM call_turns t JOIN calls c ON c.id = t.call_id WHERE c.organization_id = $org`);
    // Values of 0 to 2 ms: 0 is in a bucket of its own and answers 0.
    const ttfbP50 = await runChartQuery(api.db.prisma, org.organizationId, ChartQuery.parse({ metric: 'latency_tts_ttfb_ms', aggregation: 'p50', period }));
    expect(ttfbP50.approximate).toBe(true);
    within(ttfbP50.totals.value!, atRank(ttfb, 0.5));
    const ttfbP10 = ttfb.filter((v) => v === 0).length / ttfb.length;
    expect(ttfbP10).toBeGreaterThan(0.3);

    const durations = await rawValues(
      api,
      org,
      `SELECT duration_ms / 1000.0 AS v FROM calls WHERE organization_id = $org AND started_at IS NOT NULL AND duration_ms IS NOT NULL`,
    );
    expect(durations.length).toBe(26_000);
    await insertCalls(api, org, '2026-04-05T00:00:00Z', 26_000, 0);
    const allDurations = await rawValues(
      api,
      org,
      `SELECT duration_ms / 1000.0 AS v FROM calls WHERE organization_id = $org AND started_at IS NOT NULL AND duration_ms IS NOT NULL`,
    );
    const duration = await runChartQuery(
      api.db.prisma,
      org.organizationId,
      ChartQuery.parse({ metric: 'duration_seconds', aggregation: 'p95', group_by: ['direction'], period }),
    );
    expect(duration).toMatchObject({ approximate: true, totals: { calls: 53_001 } });
    within(duration.totals.value!, atRank(allDurations, 0.95));
    const outbound = await rawValues(
      api,
      org,
      `SELECT duration_ms / 1000.0 AS v FROM calls WHERE organization_id = $org AND started_at IS NOT NULL AND direction = 'outbound' AND duration_ms IS NOT NULL`,
    );
    within(duration.series.find((s) => s.key.direction === 'outbound')!.total!, atRank(outbound, 0.95));
    // A filter narrows the values below the threshold: the same query is exact again.
    const narrowed = await runChartQuery(
      api.db.prisma,
      org.organizationId,
      ChartQuery.parse({ metric: 'duration_seconds', aggregation: 'p95', filters: { direction: ['outbound'] }, period }),
    );
    expect(narrowed.approximate).toBe(false);
    const exact = await api.db.prisma.$queryRawUnsafe<Array<{ v: number }>>(
      `SELECT percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms / 1000.0) AS v FROM calls WHERE organization_id = ${org.organizationId} AND started_at IS NOT NULL AND direction = 'outbound'`,
    );
    expect(narrowed.totals.value).toBeCloseTo(Number(exact[0]!.v), 9);
    // 79,000 calls and 52,000 turns written through the triggers: about 12 s alone, several times that on a busy machine.
  }, 120_000);
});

const KEY_SQL = `c.organization_id || '|' || to_char(date_trunc('hour', c.created_at, 'UTC'), 'YYYY-MM-DD HH24') || '|' || coalesce(c.assistant_id, 0) || '|' || coalesce(c.campaign_id, 0) || '|' ||
  coalesce(c.phone_number_id, 0) || '|' || c.direction || '|' || c.status || '|' || c.transport || '|' || coalesce(c.end_reason, '') || '|' || coalesce(c.outcomes ->> 'sentiment', '')`;
const HOUR_KEY_SQL = `c.organization_id || '|' || to_char(date_trunc('hour', c.created_at, 'UTC'), 'YYYY-MM-DD HH24')`;
const STORED_KEY_SQL = `h.organization_id || '|' || to_char(h.hour, 'YYYY-MM-DD HH24') || '|' || h.assistant_id || '|' || h.campaign_id || '|' || h.phone_number_id || '|' ||
  h.direction || '|' || h.status || '|' || h.transport || '|' || h.end_reason || '|' || h.sentiment`;
const ENDED = `c.status IN ('completed', 'failed', 'busy', 'no_answer', 'voicemail', 'canceled')`;
const STAGES = ['end_of_utterance_delay_ms', 'llm_ttft_ms', 'tts_ttfb_ms', 'e2e_latency_ms'];

/**
 * The histograms as the triggers keep them: count per key, metric and bucket, and calls per key and metric; `whole`:
 * each hour's rows of every call (assistant -1), keyed by organisation and hour.
 */
async function storedHistograms(api: ApiContext, tenant: Tenant, whole: boolean): Promise<Record<string, number>> {
  // The calls' ends appended their entries; the folder moves them into the histograms.
  await foldAllRollups(api.db.prisma);
  const rows = await api.db.prisma.$queryRawUnsafe<Array<{ k: string; n: number }>>(
    `SELECT ${whole ? HOUR_KEY_SQL.replaceAll("date_trunc('hour', c.created_at, 'UTC')", 'h.hour').replaceAll('c.', 'h.') : STORED_KEY_SQL} || '|' || h.metric || '|' || b AS k, n::int AS n
     FROM call_rollup_histograms h, LATERAL (SELECT (h.low_bucket + i - 1)::text AS b, n FROM unnest(h.counts) WITH ORDINALITY u(n, i) UNION ALL SELECT 'calls', h.calls) u
     WHERE h.organization_id = ${tenant.organizationId} AND n <> 0 AND h.assistant_id ${whole ? '= -1' : '>= 0'}`,
  );
  return Object.fromEntries(rows.map((r) => [r.k, r.n]));
}

/** The same counts made here from the ended calls and their turns. */
async function countedHistograms(api: ApiContext, tenant: Tenant, whole: boolean): Promise<Record<string, number>> {
  const calls = await api.db.prisma.$queryRawUnsafe<Array<{ id: number; k: string; duration: number | null }>>(
    `SELECT c.id, ${whole ? HOUR_KEY_SQL : KEY_SQL} AS k, CASE WHEN c.started_at IS NOT NULL THEN c.duration_ms END AS duration FROM calls c WHERE c.organization_id = ${tenant.organizationId} AND ${ENDED}`,
  );
  const turns = await api.db.prisma.$queryRawUnsafe<Array<Record<string, number | null> & { call_id: number }>>(
    `SELECT t.call_id, ${STAGES.map((s) => `t.${s}`).join(', ')} FROM call_turns t JOIN calls c ON c.id = t.call_id WHERE c.organization_id = ${tenant.organizationId} AND ${ENDED}`,
  );
  const counts: Record<string, number> = {};
  const add = (k: string) => (counts[k] = (counts[k] ?? 0) + 1);
  const keyOf = new Map(calls.map((c) => [c.id, c.k]));
  for (const c of calls) {
    add(`${c.k}|duration_ms|calls`);
    if (c.duration !== null) add(`${c.k}|duration_ms|${bucketOf(Number(c.duration))}`);
  }
  for (const id of new Set(turns.map((t) => t.call_id))) for (const s of STAGES) add(`${keyOf.get(id)}|${s}|calls`);
  for (const t of turns) for (const s of STAGES) if (t[s] !== null) add(`${keyOf.get(t.call_id)}|${s}|${bucketOf(Number(t[s]))}`);
  return counts;
}

describe('the histograms', () => {
  it('hold what the calls and turns count through bulk inserts and deletes, late turns, a changed turn, a moved call and a deleted one', async ({
    api,
    org,
  }) => {
    const same = async () => {
      expect(await storedHistograms(api, org, false)).toEqual(await countedHistograms(api, org, false));
      expect(await storedHistograms(api, org, true)).toEqual(await countedHistograms(api, org, true));
    };
    const assistant = (await api.call(org, 'POST', '/api/assistants', { name: 'Histograms' })).body;
    await insertCalls(api, org, '2026-05-01T00:00:00Z', 120, 3);
    await insertCalls(api, org, '2026-05-01T00:30:00Z', 20, 0, 'no_answer');
    await api.db.prisma.$executeRawUnsafe(`UPDATE calls SET assistant_id = ${assistant.id} WHERE organization_id = ${org.organizationId} AND id % 2 = 0`);
    await same();

    // A call that runs, with its turns written as they are spoken, ends, then gets a turn its end wrote late.
    const call = await api.db.prisma.call.create({
      data: {
        callSid: `CAhlive${org.organizationId}`,
        organizationId: org.organizationId,
        assistantId: assistant.id,
        direction: 'inbound',
        status: 'in_progress',
        createdAt: new Date('2026-05-01T03:10:00Z'),
        startedAt: new Date('2026-05-01T03:10:00Z'),
      },
    });
    await insertTurns(api, `c.id = ${call.id}`, 2);
    await same();
    await api.db.prisma.call.update({
      where: { id: call.id },
      data: { status: 'completed', endReason: 'customer_hangup', durationMs: 42_000, endedAt: new Date('2026-05-01T03:10:42Z') },
    });
    await insertTurns(api, `c.id = ${call.id}`, 1, 2);
    await same();
    // An ended call with no turns gets its first ones: it is now counted for latency.
    const silent = await api.db.prisma.call.findFirstOrThrow({ where: { organizationId: org.organizationId, status: 'no_answer' } });
    await insertTurns(api, `c.id = ${silent.id}`, 2);
    await same();

    // A turn replaced by its whole changes its latency; text scrubbed changes nothing.
    await api.db.prisma.callTurn.update({ where: { callId_position: { callId: call.id, position: 1 } }, data: { e2eLatencyMs: 4_321, llmTtftMs: null } });
    await api.db.prisma.$executeRawUnsafe(
      `UPDATE call_turns SET text = 'scrubbed' WHERE call_id IN (SELECT id FROM calls WHERE organization_id = ${org.organizationId})`,
    );
    await same();

    // Its assistant deleted: the ended calls move to the rows without one.
    expect((await api.call(org, 'DELETE', `/api/assistants/${assistant.id}`)).status).toBe(204);
    await same();
    // Turns deleted, one call deleted, then many in one statement.
    await api.db.prisma.callTurn.deleteMany({ where: { callId: silent.id } });
    await same();
    await api.db.prisma.call.delete({ where: { id: call.id } });
    await same();
    await api.db.prisma.$executeRawUnsafe(`DELETE FROM calls WHERE organization_id = ${org.organizationId} AND id % 3 = 0`);
    await same();
    expect(Object.keys(await storedHistograms(api, org, false)).length).toBeGreaterThan(100);

    await api.db.prisma.$executeRaw`DELETE FROM organizations WHERE id = ${org.organizationId}`;
    expect(await api.db.prisma.callRollupHistogram.count({ where: { organizationId: org.organizationId } })).toBe(0);
  });
});
