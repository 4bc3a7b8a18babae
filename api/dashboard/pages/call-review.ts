import type { CallCost, CallStartLookupResult, TurnDecision } from '../../../modules/calls/index.js';
import { html, type Html } from '../html.js';

// The parts of a call's page that say where a reply's time went and why it came when it did: per reply, the wait for
// the end of the caller's turn, the model's first token and the voice's first sound, side by side as a bar; the turn
// decision in words; each tool call with what was asked and what came back; the call's cost by component; and a
// failed analysis explained in words a product team can act on.

/** The stages of a reply's latency, in the order they happen, as the call stores them (ms). */
const STAGES = [
  { key: 'end_of_utterance_delay_ms', label: 'End of turn', className: 'eou' },
  { key: 'llm_ttft_ms', label: 'Model first token', className: 'llm' },
  { key: 'tts_ttfb_ms', label: 'Voice first sound', className: 'tts' },
] as const;

function ms(value: number): string {
  return `${Math.round(value)} ms`;
}

/** A reply's latency as a bar of its stages, with each stage's figure; empty for a turn without timings. */
export function latencySplit(metrics: Record<string, number> | null): Html | string {
  if (!metrics) return '';
  const total = metrics.e2e_latency_ms;
  const parts = STAGES.filter((s) => typeof metrics[s.key] === 'number').map((s) => ({ ...s, value: metrics[s.key]! }));
  if (total === undefined && parts.length === 0) return '';
  const sum = parts.reduce((a, p) => a + p.value, 0);
  const scale = Math.max(sum, total ?? 0, 1);
  // An SVG bar, its stages as wide as their shares (the page's policy allows no inline styles).
  let x = 0;
  const rects = parts.map((p) => {
    const width = (p.value / scale) * 100;
    const rect = html`<rect class="${p.className}" x="${x.toFixed(1)}" y="0" width="${width.toFixed(1)}" height="8"></rect>`;
    x += width;
    return rect;
  });
  return html`<div class="latency">${total !== undefined ? html`<strong>${ms(total)}</strong>` : ''}${
    parts.length > 0
      ? html`<svg class="split" viewBox="0 0 100 8" preserveAspectRatio="none" role="img" aria-label="${parts.map((p) => `${p.label} ${ms(p.value)}`).join(', ')}">${rects}</svg><div class="hint">${parts.map(
          (p) => html`<span class="key ${p.className}">${p.label} ${ms(p.value)}</span> `,
        )}</div>`
      : ''
  }</div>`;
}

const RULES: Record<TurnDecision['transcript_rule'], string> = {
  empty: 'no words yet',
  value_pending: 'a number, email or code was still being given',
  terminal_punctuation: 'the words ended a sentence',
  trailing_punctuation: 'the words trailed off',
  continuation_word: 'the last word leads on ("and", "but")',
  content_word: 'the sentence could go on',
  phrase_complete: 'the words made a whole phrase',
};

/** Why the assistant answered when it did, in a sentence. */
export function decisionInWords(decision: TurnDecision | null): Html | string {
  if (!decision) return '';
  const verdict = decision.verdict === 'finished' ? 'The caller had finished' : 'The caller seemed not to have finished, so the assistant waited longer';
  const by =
    decision.decided_by === 'transcript'
      ? `by their words: ${RULES[decision.transcript_rule]}`
      : decision.decided_by === 'audio_model'
        ? `by the voice model${decision.audio_model_probability !== null ? ` (${Math.round(decision.audio_model_probability * 100)} % sure they had finished)` : ''}`
        : 'by the wait alone';
  const value = decision.value_kind ? `; they were giving a ${decision.value_kind}` : '';
  return html`<p class="decision hint">${verdict}, ${by}${value}. Answered ${ms(decision.delay_ms)} after they stopped.</p>`;
}

interface ToolCallRecord {
  name?: unknown;
  arguments?: unknown;
  output?: unknown;
  is_error?: unknown;
  at_ms?: unknown;
}

function asJson(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

/** Each tool call of a turn: its name, what it was asked, what it answered, and whether that was an error. */
export function toolCallsView(calls: unknown[] | null): Html | string {
  if (!calls || calls.length === 0) return '';
  return html`<div class="tool-calls">${(calls as ToolCallRecord[]).map(
    (
      c,
    ) => html`<details class="tool-call"><summary><code>${String(c.name ?? 'tool')}</code>${c.is_error === true ? html` <span class="badge bad">error</span>` : ''}${typeof c.at_ms === 'number' ? html` <span class="hint">at ${(c.at_ms / 1000).toFixed(1)} s</span>` : ''}</summary>
<div class="tool-io"><div><div class="hint">Asked with</div><pre>${asJson(c.arguments ?? {})}</pre></div><div><div class="hint">Answered</div><pre>${asJson(c.output ?? null)}</pre></div></div></details>`,
  )}</div>`;
}

const COMPONENTS: Record<keyof CallCost['components'], string> = { llm: 'Language model', stt: 'Transcriber', tts: 'Voice', telephony: 'Telephony' };

/** The call's cost: its total and each component, with the lines it was priced from. */
export function costView(cost: CallCost | null): Html | string {
  if (!cost) return '';
  const money = (n: number) => `$${n.toFixed(n < 0.01 && n > 0 ? 4 : 2)}`;
  // Unit prices are fractions of a cent (a token): three significant digits, never rounded to zero.
  const unitPrice = (n: number) => `$${Number(n.toPrecision(3))}`;
  return html`<div class="card"><h2>Cost</h2><p class="big-number">${money(cost.total)}</p>
<dl class="facts">${(Object.keys(COMPONENTS) as (keyof CallCost['components'])[]).map((k) => html`<dt>${COMPONENTS[k]}</dt><dd>${money(cost.components[k])}</dd>`)}</dl>
${cost.lines.length > 0 ? html`<details><summary>How it was priced</summary><ul>${cost.lines.map((l) => html`<li>${l.provider} ${l.model}: ${l.quantity} ${l.unit.replace(/_/g, ' ')}s × ${unitPrice(l.unit_price)}</li>`)}</ul></details>` : ''}</div>`;
}

/** Why a call has no summary, in words a team can act on. */
export function analysisProblem(error: string | null): string {
  if (!error) return 'The summary is being written.';
  if (error.startsWith('not kept')) return 'Your organisation keeps calls as metadata only: nothing of what was said is stored, so there is no summary.';
  if (error === 'no transcript') return 'Nothing was said in this call, so there was nothing to summarise.';
  if (error === 'analysis reply was not JSON')
    return 'The model that writes the summary answered, but not in the structured form it was asked for, so no summary could be read from it. Small models do this now and then; a larger model for this assistant usually stops it.';
  const reason = error.replace(/^analysis failed:\s*/, '');
  return `The summary could not be written: the model that writes it failed (${reason}). The call itself is complete; its transcript and recording are below.`;
}

/** A value the analysis or a playbook gave, as a person reads it. */
function valueInWords(value: unknown): string {
  if (value === true) return 'Yes';
  if (value === false) return 'No';
  if (value === null || value === undefined || value === '') return '—';
  if (Array.isArray(value)) return value.map(valueInWords).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

const label = (key: string) => {
  const words = key.replace(/[_.]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/**
 * The analysis's outcomes or a playbook's collected values as a list of what was found: `goal_achieved: true` reads
 * "Goal achieved: Yes"; an object one level down (the analysis's own `fields`) lists its values as if at the top.
 */
export function valuesView(values: Record<string, unknown> | null): Html | string {
  if (!values || Object.keys(values).length === 0) return '';
  const rows: [string, unknown][] = [];
  for (const [key, value] of Object.entries(values)) {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) for (const [k, v] of Object.entries(value)) rows.push([k, v]);
    else rows.push([key, value]);
  }
  if (rows.length === 0) return '';
  return html`<dl class="facts">${rows.map(([k, v]) => html`<dt>${label(k)}</dt><dd>${valueInWords(v)}</dd>`)}</dl>`;
}

/** The values a call's playbooks collected, under each playbook's name. */
export function collectedView(collected: Record<string, unknown> | null): Html | string {
  const playbooks = Object.entries(collected ?? {}).filter(([, values]) => values !== null && typeof values === 'object');
  if (playbooks.length === 0) return '';
  return html`<h3>Collected during the call</h3>${playbooks.map(([name, values]) => html`<h4>${name}</h4>${valuesView(values as Record<string, unknown>)}`)}`;
}

/** What the call-start lookup did for the call, in words: what it set, or why it set nothing. */
export function lookupInWords(lookup: CallStartLookupResult | null): string | null {
  if (!lookup) return null;
  const took = `${lookup.duration_ms} ms`;
  if (lookup.status === 'timed_out') return `No answer within its deadline (${took}): the call went on as placed.`;
  if (lookup.status === 'failed') return `Failed (${lookup.error ?? `HTTP ${lookup.http_status}`}) after ${took}: the call went on as placed.`;
  const set = [...lookup.variables.map((v) => `{{var.${v}}}`), ...lookup.overrides.map((o) => o.replace(/_/g, ' '))];
  return set.length > 0 ? `Answered in ${took}, setting ${set.join(', ')}.` : `Answered in ${took}, with nothing to change.`;
}
