import { describe, expect } from 'vitest';
import { callModelTest } from '../helpers/fixtures.js';
import { afterReply, createCall, localSettings, runtimeOrganization, runTimeline } from './call-harness.js';
import { replacePriceOverrides } from '../../modules/calls/price-table.js';
import { runChartQuery } from '../../modules/analytics/query.js';
import { ChartQuery } from '../../modules/analytics/schemas.js';
import { analysisReply } from '../fakes/vendors/call-model.js';

// Usage and cost metered on a call run through the runtime: the fake LLM reports 10 prompt tokens and one completion
// token per word for every request, the offline recogniser and voice report their audio and characters.

const REPLY = 'It is noon.';
const SUMMARY = 'The caller asked the time.';
const ANALYSIS = String((analysisReply(SUMMARY) as { text: string }).text);
const words = (text: string) => text.split(/(?<= )/).length;

const it = callModelTest(SUMMARY, () => ({ text: REPLY }));

describe('usage metered on a call through the runtime', () => {
  it("stores tokens per model (the analysis included), recognised audio, synthesised characters and telephony minutes, costed with the organisation's prices, in the call and in call.completed", async ({
    db,
    llm,
  }) => {
    const organizationId = await runtimeOrganization(db.prisma);
    await replacePriceOverrides(db.prisma, organizationId, [
      { component: 'llm', provider: 'custom', model: 'fake-model', input_usd_per_million_tokens: 1000, output_usd_per_million_tokens: 2000 },
      { component: 'stt', provider: 'local', model: '*', usd_per_minute: 0.5 },
      { component: 'tts', provider: 'local', model: '*', usd_per_million_characters: 3000 },
      { component: 'telephony', provider: 'sip', model: '*', usd_per_minute: 0.25 },
    ]);
    const call = await createCall(db.prisma, localSettings(llm.url, { llm_settings: { welcome_message: 'Hello, how can I help?' } }));
    // Half a second after the welcome the caller asks; once the answer has been spoken, they hang up.
    const run = await runTimeline(db.prisma, call.id, [{ after: afterReply(1), atMs: 500, text: 'what time is it' }], { hangupWhen: afterReply(2) });
    expect(run.result.status).toBe('completed');

    const stored = await db.prisma.call.findUniqueOrThrow({ where: { id: call.id }, include: { turns: { orderBy: { position: 'asc' } } } });
    const chats = llm.chats().length;
    expect(chats).toBe(2);
    const usage = stored.usage as Record<string, any>;
    expect(usage.llm).toEqual([
      { provider: 'custom', model: 'fake-model', input_tokens: 10 * chats, output_tokens: words(REPLY) + words(ANALYSIS), cached_input_tokens: 0 },
    ]);
    expect(usage.stt).toHaveLength(1);
    expect(usage.stt[0]).toMatchObject({ provider: 'local', model: 'pocketsphinx-en-us' });
    // The caller spoke once, for about a second: the recogniser was given that utterance, not the whole call.
    expect(usage.stt[0].audio_seconds).toBeGreaterThan(0.5);
    expect(usage.stt[0].audio_seconds).toBeLessThan(4);
    expect(usage.tts).toEqual([{ provider: 'local', model: 'espeak-ng', characters: expect.any(Number) }]);
    const spoken = stored.turns
      .filter((t) => t.role === 'assistant')
      .map((t) => t.text.length)
      .reduce((a, b) => a + b, 0);
    expect(usage.tts[0].characters).toBeGreaterThanOrEqual(spoken - 2);
    expect(usage.tts[0].characters).toBeLessThanOrEqual(spoken + 2);
    const minutes = stored.durationMs! / 60_000;
    expect(usage.audio_minutes).toBeCloseTo(minutes, 9);
    expect(usage.telephony).toEqual([{ transport: 'sip', minutes: expect.closeTo(minutes, 9) }]);
    expect(stored.llmInputTokens).toBe(10 * chats);
    expect(stored.llmOutputTokens).toBe(words(REPLY) + words(ANALYSIS));
    expect(stored.ttsCharacters).toBe(usage.tts[0].characters);
    expect(stored.sttAudioMs).toBe(Math.round(usage.stt[0].audio_seconds * 1000));

    // The cost, computed here from the usage and the prices set above.
    const micro = (usd: number) => Math.round(usd * 1e6);
    const llmUsd = micro((10 * chats * 1000) / 1e6) + micro(((words(REPLY) + words(ANALYSIS)) * 2000) / 1e6);
    const sttUsd = micro((usage.stt[0].audio_seconds / 60) * 0.5);
    const ttsUsd = micro((usage.tts[0].characters * 3000) / 1e6);
    const lineUsd = micro(minutes * 0.25);
    expect(stored.costLlmMicroUsd).toBe(BigInt(llmUsd));
    expect(stored.costSttMicroUsd).toBe(BigInt(sttUsd));
    expect(stored.costTtsMicroUsd).toBe(BigInt(ttsUsd));
    expect(stored.costTelephonyMicroUsd).toBe(BigInt(lineUsd));
    expect(stored.costMicroUsd).toBe(BigInt(llmUsd + sttUsd + ttsUsd + lineUsd));
    const cost = stored.cost as Record<string, any>;
    expect(cost).toMatchObject({
      currency: 'USD',
      total: (llmUsd + sttUsd + ttsUsd + lineUsd) / 1e6,
      components: { llm: llmUsd / 1e6, stt: sttUsd / 1e6, tts: ttsUsd / 1e6, telephony: lineUsd / 1e6 },
      unpriced: [],
    });

    // Each reply's latency stages as columns, the same figures as its metrics.
    const reply = stored.turns.find((t) => t.role === 'assistant' && t.text === REPLY)!;
    const m = reply.metrics as Record<string, number>;
    expect(m.end_of_utterance_delay_ms).toEqual(expect.any(Number));
    expect([reply.endOfUtteranceDelayMs, reply.llmTtftMs, reply.ttsTtfbMs, reply.e2eLatencyMs]).toEqual([
      m.end_of_utterance_delay_ms,
      m.llm_ttft_ms,
      m.tts_ttfb_ms,
      m.e2e_latency_ms,
    ]);
    expect(stored.turns.filter((t) => t.role === 'user').every((t) => t.e2eLatencyMs === null)).toBe(true);
    const cutOff = stored.turns.filter((t) => t.role === 'assistant' && t.interrupted).length;
    expect([stored.interruptions, stored.toolCalls, stored.toolFailures]).toEqual([cutOff, 0, 0]);

    const completed = await db.prisma.event.findFirstOrThrow({ where: { type: 'call.completed', payload: { path: ['call_sid'], equals: call.callSid } } });
    expect((completed.payload as Record<string, unknown>).usage).toEqual(usage);
    expect((completed.payload as Record<string, unknown>).cost).toEqual(cost);
  }, 120_000);
});

describe('calls through the runtime in charts', () => {
  it('are counted, their minutes, cost and reply latency aggregated as the stored calls say', async ({ db, llm }) => {
    const organizationId = await runtimeOrganization(db.prisma);
    const calls = [];
    // Two calls of different lengths: the caller waits longer after the welcome in the second.
    for (const atMs of [500, 1500]) {
      const call = await createCall(db.prisma, localSettings(llm.url, { llm_settings: { welcome_message: 'Hello.' } }));
      await runTimeline(db.prisma, call.id, [{ after: afterReply(1), atMs, text: 'what time is it' }], { hangupWhen: afterReply(2) });
      calls.push(call);
    }
    const assistants = calls.map((c) => c.assistantId!);
    const chart = (q: Record<string, unknown>) =>
      runChartQuery(db.prisma, organizationId, ChartQuery.parse({ period: { preset: 'last_24_hours' }, filters: { assistant_id: assistants }, ...q }));

    const stored = await db.prisma.call.findMany({ where: { id: { in: calls.map((c) => c.id) } }, include: { turns: true } });
    expect(stored.map((c) => c.status)).toEqual(['completed', 'completed']);
    const volume = await chart({ metric: 'calls', group_by: ['assistant'] });
    expect(volume.totals.calls).toBe(2);
    expect(volume.series.map((s) => s.total)).toEqual([1, 1]);
    const minutes = await chart({ metric: 'minutes' });
    expect(minutes.totals.value).toBeCloseTo(stored.reduce((a, c) => a + c.durationMs!, 0) / 60_000, 9);
    const cost = await chart({ metric: 'cost_by_component' });
    const sum = (of: (c: (typeof stored)[number]) => bigint | null) => Number(stored.reduce((a, c) => a + (of(c) ?? 0n), 0n)) / 1e6;
    expect(cost.totals.measures).toEqual({
      llm: sum((c) => c.costLlmMicroUsd),
      stt: sum((c) => c.costSttMicroUsd),
      tts: sum((c) => c.costTtsMicroUsd),
      telephony: sum((c) => c.costTelephonyMicroUsd),
    });
    expect(cost.totals.value).toBeGreaterThan(0);
    const latencies = stored
      .flatMap((c) => c.turns.map((t) => t.e2eLatencyMs))
      .filter((ms): ms is number => ms !== null)
      .sort((a, b) => a - b);
    // The chart's median is the stored replies' median, however many of them carry the figure.
    expect(latencies.length).toBeGreaterThanOrEqual(1);
    const median = (latencies[Math.floor((latencies.length - 1) / 2)]! + latencies[Math.ceil((latencies.length - 1) / 2)]!) / 2;
    expect((await chart({ metric: 'latency_e2e_ms', aggregation: 'p50' })).totals.value).toBeCloseTo(median, 9);
    expect((await chart({ metric: 'answer_rate' })).totals.value).toBe(1);
  }, 120_000);
});
