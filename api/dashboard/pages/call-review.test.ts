import { describe, expect, it } from 'vitest';
import { analysisProblem, collectedView, costView, decisionInWords, latencySplit, lookupInWords, toolCallsView, valuesView } from './call-review.js';

describe("a call's review", () => {
  it('splits a reply’s latency into its stages, each as wide as its share', () => {
    const out = String(latencySplit({ end_of_utterance_delay_ms: 300, llm_ttft_ms: 500, tts_ttfb_ms: 200, e2e_latency_ms: 1000 }));
    expect(out).toContain('<strong>1000 ms</strong>');
    expect(out).toContain('<rect class="eou" x="0.0" y="0" width="30.0" height="8">');
    expect(out).toContain('<rect class="llm" x="30.0" y="0" width="50.0" height="8">');
    expect(out).toContain('End of turn 300 ms');
    expect(String(latencySplit(null))).toBe('');
  });

  it('says why the assistant answered when it did', () => {
    const text = String(
      decisionInWords({
        verdict: 'unfinished',
        decided_by: 'transcript',
        transcript: 'incomplete',
        transcript_rule: 'value_pending',
        value_kind: 'phone',
        audio_model_probability: null,
        audio_model_threshold: null,
        recogniser_endpoint: true,
        delay_ms: 2500,
      }),
    );
    expect(text).toContain('seemed not to have finished');
    expect(text).toContain('a number, email or code was still being given; they were giving a phone');
    expect(text).toContain('Answered 2500 ms after they stopped');
  });

  it('shows what a tool was asked and what it answered, escaped', () => {
    const out = String(toolCallsView([{ name: 'lookup', arguments: { id: '<b>7</b>' }, output: { ok: true }, is_error: true, at_ms: 1500 }]));
    expect(out).toContain('<code>lookup</code>');
    expect(out).toContain('&lt;b&gt;7&lt;/b&gt;');
    expect(out).toContain('error');
    expect(out).toContain('at 1.5 s');
  });

  it('explains a missing summary in words, for each reason the analysis gives', () => {
    expect(analysisProblem('analysis reply was not JSON')).toMatch(/not in the structured form/);
    expect(analysisProblem('no transcript')).toMatch(/Nothing was said/);
    expect(analysisProblem('analysis failed: 401 Unauthorized')).toBe(
      'The summary could not be written: the model that writes it failed (401 Unauthorized). The call itself is complete; its transcript and recording are below.',
    );
  });

  it('says what the call-start lookup set, or why it set nothing', () => {
    const base = { http_status: 200, duration_ms: 140, error: null, variables: [], overrides: [] };
    expect(lookupInWords(null)).toBeNull();
    expect(lookupInWords({ ...base, status: 'applied', variables: ['first_name'], overrides: ['welcome_message'] })).toBe(
      'Answered in 140 ms, setting {{var.first_name}}, welcome message.',
    );
    expect(lookupInWords({ ...base, status: 'applied' })).toBe('Answered in 140 ms, with nothing to change.');
    expect(lookupInWords({ ...base, status: 'timed_out', http_status: null, duration_ms: 2000 })).toBe(
      'No answer within its deadline (2000 ms): the call went on as placed.',
    );
    expect(lookupInWords({ ...base, status: 'failed', http_status: 500, error: 'HTTP 500' })).toBe(
      'Failed (HTTP 500) after 140 ms: the call went on as placed.',
    );
    expect(analysisProblem('not kept: the organisation keeps calls as metadata only')).toMatch(/metadata only/);
  });

  it('totals the cost by component', () => {
    const out = String(
      costView({
        currency: 'USD',
        total: 0.1234,
        components: { llm: 0.02, stt: 0.05, tts: 0.0534, telephony: 0 },
        lines: [{ component: 'stt', provider: 'deepgram', model: 'nova-3', quantity: 2, unit: 'minute', unit_price: 0.025 }],
      } as never),
    );
    expect(out).toContain('$0.12');
    expect(out).toContain('<dt>Transcriber</dt><dd>$0.05</dd>');
    expect(out).toContain('deepgram nova-3: 2 minutes × $0.025');
  });

  it('lists the analysis’s outcomes and the values collected in words, not as JSON', () => {
    const outcomes = String(valuesView({ goal_achieved: true, sentiment: 'positive', fields: { preferred_day: 'Tuesday', party_size: 4 } }));
    expect(outcomes).toContain('<dt>Goal achieved</dt><dd>Yes</dd>');
    expect(outcomes).toContain('<dt>Sentiment</dt><dd>positive</dd>');
    expect(outcomes).toContain('<dt>Preferred day</dt><dd>Tuesday</dd>');
    expect(outcomes).toContain('<dt>Party size</dt><dd>4</dd>');
    const collected = String(collectedView({ 'Book a table': { date: '2026-12-01', confirmed: false, '<b>': 'x' } }));
    expect(collected).toContain('<h4>Book a table</h4>');
    expect(collected).toContain('<dt>Confirmed</dt><dd>No</dd>');
    expect(collected).toContain('<dt>&lt;b&gt;</dt>');
    expect(String(collectedView(null))).toBe('');
    expect(String(valuesView({}))).toBe('');
  });
});
