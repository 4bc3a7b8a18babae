import { ChartQuery, DEFAULT_CHARTS, METRICS, resolvePeriod, rolledMeasures, runChartQuery } from '../../modules/analytics/index.js';
import { bootstrap } from '../../modules/organizations/index.js';
import { createAssistant } from '../../modules/assistants/index.js';
import { startBenchDatabase } from '../knowledge/bench-database.js';

// Charts over 1,000,000 calls of one organisation on the embedded Postgres: every default chart and a few heavier
// ones, each run RUNS times after a warm-up, over the last 30 days that hold all the calls. Another organisation's
// 200,000 calls sit in the same tables, as they would. The calls are inserted as ended calls, so the rollups' trigger
// keeps them as it would. Prints per chart whether it read the rollups, their histograms or the calls, p50, p95 and the
// slowest run.
//
//   npm run bench:analytics            (CALLS=1000000 RUNS=20 by default)

const CALLS = Number(process.env.CALLS ?? 1_000_000);
const OTHER_CALLS = Math.round(CALLS / 5);
const RUNS = Number(process.env.RUNS ?? 20);
/** Assistant turns with latencies per call: a short call's replies. */
const TURNS_PER_CALL = 3;
const ASSISTANTS = 12;

const db = await startBenchDatabase('analytics');
const { prisma, owner } = db;
try {
  const other = await bootstrap(prisma, { organizationName: 'Other', email: `other-${Date.now()}@example.com` });
  const assistantIds: number[] = [];
  for (let i = 0; i < ASSISTANTS; i++) {
    assistantIds.push(
      (await createAssistant(prisma, { organizationId: owner.organization_id, userId: owner.user_id }, { name: `Assistant ${i}` } as never)).id,
    );
  }
  const seeded = performance.now();
  for (const [organizationId, count] of [
    [owner.organization_id, CALLS],
    [other.organization_id, OTHER_CALLS],
  ] as const) {
    // Calls spread over the last 30 days, as a finished call stores them: statuses and end reasons in realistic
    // shares, a summary and outcomes of the post-call analysis, usage, cost by component.
    for (let start = 0; start < count; start += 200_000) {
      await prisma.$executeRawUnsafe(
        `INSERT INTO calls (call_sid, organization_id, assistant_id, direction, status, transport, created_at, started_at, ended_at, duration_ms, end_reason,
           summary, outcomes, variables, missing_variables, llm_input_tokens, llm_output_tokens, stt_audio_ms, tts_characters,
           cost_llm_micro_usd, cost_stt_micro_usd, cost_tts_micro_usd, cost_telephony_micro_usd, cost_micro_usd, interruptions, tool_calls, tool_failures, updated_at)
         SELECT 'CA' || md5(($1::int)::text || '-' || g), $1::int, ($2::int[])[1 + g % ${ASSISTANTS}], CASE WHEN g % 3 = 0 THEN 'outbound' ELSE 'inbound' END,
           s.status, CASE WHEN g % 4 = 0 THEN 'web' ELSE 'sip' END, s.at, s.started, s.at + make_interval(secs => s.dur / 1000.0), s.dur,
           CASE s.status WHEN 'completed' THEN (ARRAY['customer_hangup','assistant_ended_call','idle_timeout','transferred'])[1 + g % 4] WHEN 'no_answer' THEN 'no_answer' ELSE 'llm_error' END,
           'The caller asked about opening hours and booked a table for two at seven on Friday; the assistant confirmed the booking.',
           CASE WHEN s.status = 'completed' THEN jsonb_build_object('goal_achieved', g % 5 <> 0, 'sentiment', (ARRAY['positive','neutral','negative'])[1 + g % 3], 'fields', jsonb_build_object('party_size', 1 + g % 6)) END,
           '{}', '[]', 1200, 300, s.dur, 400, 900, s.dur / 8, 20000, s.dur / 5, 900 + s.dur / 8 + 20000 + s.dur / 5, g % 2, g % 3, CASE WHEN g % 50 = 0 THEN 1 ELSE 0 END, now()
         FROM generate_series($3::int, $4::int) g,
         LATERAL (SELECT now() - make_interval(secs => (g * 2591000.0 / $5::int)::float8) AS at,
                         (ARRAY['completed','completed','completed','completed','completed','completed','no_answer','failed'])[1 + g % 8] AS status) base,
         LATERAL (SELECT base.at, base.status, CASE WHEN base.status = 'no_answer' THEN NULL ELSE base.at END AS started,
                         CASE WHEN base.status = 'no_answer' THEN 0 ELSE 20000 + ((g::bigint * 7919) % 280000)::int END AS dur) s`,
        organizationId,
        organizationId === owner.organization_id ? assistantIds : [null],
        start,
        Math.min(start + 200_000, count) - 1,
        count,
      );
    }
  }
  await prisma.$executeRawUnsafe(
    `INSERT INTO call_turns (call_id, position, role, text, start_ms, end_ms, interrupted, end_of_utterance_delay_ms, llm_ttft_ms, tts_ttfb_ms, e2e_latency_ms)
     SELECT c.id, p, 'assistant', 'Certainly, I have booked a table for two at seven on Friday.', p * 4000, p * 4000 + 2500, false,
            200 + (c.id * 37 + p * 11) % 400, 150 + (c.id * 53 + p * 7) % 600, 80 + (c.id * 29 + p * 13) % 300, 600 + (c.id * 61 + p * 17) % 1400
     FROM calls c, generate_series(0, ${TURNS_PER_CALL - 1}) p WHERE c.started_at IS NOT NULL`,
  );
  await prisma.$executeRawUnsafe('VACUUM ANALYZE calls');
  await prisma.$executeRawUnsafe('VACUUM ANALYZE call_turns');
  const [sizes] = await prisma.$queryRawUnsafe<[{ calls: bigint; turns: bigint }]>(
    `SELECT (SELECT count(*) FROM calls) AS calls, (SELECT count(*) FROM call_turns) AS turns`,
  );
  console.log(
    `seeded ${sizes.calls} calls (${CALLS} in the organisation charted) and ${sizes.turns} assistant turns in ${((performance.now() - seeded) / 1000).toFixed(0)} s`,
  );

  const charts: Array<[string, Record<string, unknown>]> = [
    ...DEFAULT_CHARTS.map((c): [string, Record<string, unknown>] => {
      const { name, chart_type: _t, ...query } = c;
      return [name, query];
    }),
    ['Minutes by assistant and day', { metric: 'minutes', group_by: ['day', 'assistant'], limit: 20 }],
    ['Duration p95, hourly', { metric: 'duration_seconds', aggregation: 'p95', group_by: ['hour'] }],
    ['Reply latency p95 by assistant', { metric: 'latency_e2e_ms', aggregation: 'p95', group_by: ['assistant'], limit: 20 }],
    [
      'LLM first token percentiles, outbound, NY',
      { metric: 'latency_llm_ttft_ms', aggregation: 'percentiles', group_by: ['day'], filters: { direction: ['outbound'] }, timezone: 'America/New_York' },
    ],
    [
      'Success rate, one assistant, outbound',
      { metric: 'success_rate', group_by: ['day'], filters: { assistant_id: [assistantIds[0]], direction: ['outbound'] } },
    ],
    ['Volume by day in New York', { metric: 'calls', group_by: ['day'], timezone: 'America/New_York' }],
  ];
  const quantile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
  console.log(
    `\n${'chart'.padEnd(40)} ${'calls'.padStart(9)} ${'source'.padStart(8)} ${'runs'.padStart(5)}  ${'p50 ms'.padStart(7)} ${'p95 ms'.padStart(7)} ${'max ms'.padStart(7)}`,
  );
  for (const [name, raw] of charts) {
    const query = ChartQuery.parse(raw);
    const first = await runChartQuery(prisma, owner.organization_id, query);
    const times: number[] = [];
    // Bounded: RUNS runs, or as many as fit in 30 s (at least 3) for a chart that reads every call.
    const started = performance.now();
    for (let i = 0; i < RUNS && (i < 3 || performance.now() - started < 30_000); i++) {
      const t = performance.now();
      await runChartQuery(prisma, owner.organization_id, query);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const rolled = rolledMeasures(
      query,
      query.aggregation ?? METRICS[query.metric].aggregations[0]!,
      resolvePeriod(query.period, query.timezone, new Date(), []),
    );
    const source = first.approximate ? 'histogram' : rolled ? 'rollups' : 'calls';
    console.log(
      `${name.padEnd(40)} ${String(first.totals.calls).padStart(9)} ${source.padStart(8)} ${String(times.length).padStart(5)}  ${quantile(times, 0.5).toFixed(0).padStart(7)} ${quantile(times, 0.95).toFixed(0).padStart(7)} ${times.at(-1)!.toFixed(0).padStart(7)}`,
    );
  }
} finally {
  await db.stop();
}
