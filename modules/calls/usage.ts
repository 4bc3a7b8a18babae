import { priceFor, type PriceEntry } from './prices.js';
import { PRICE_CURRENCY, type CallCost, type CallUsage, type CostComponent } from './usage-schemas.js';

export { CallCost, CallUsage, COST_COMPONENTS, type CostComponent } from './usage-schemas.js';

// What a call used, and what that cost. The runtime meters the usage (agent/call/usage.ts); this file prices it with
// the organisation's table and turns both into the call's columns, so charts sum plain integers.

/** Money as integers: millionths of a dollar, so sums over a million calls are exact. */
const MICRO = 1_000_000;
const toMicro = (usd: number) => Math.round(usd * MICRO);
const fromMicro = (micro: number) => micro / MICRO;

type Line = CallCost['lines'][number];

export function priceUsage(usage: CallUsage, overrides: readonly PriceEntry[]): CallCost {
  const lines: Line[] = [];
  const unpriced: CallCost['unpriced'] = [];
  const add = (component: CostComponent, provider: string, model: string, quantity: number, unit: Line['unit'], unitPrice: number) => {
    if (quantity > 0) lines.push({ component, provider, model, quantity, unit, unit_price: unitPrice, amount: fromMicro(toMicro(quantity * unitPrice)) });
  };
  const lookup = (component: CostComponent, provider: string, model: string) => {
    const price = priceFor(component, provider, model, overrides);
    if (!price) unpriced.push({ component, provider, model });
    return price;
  };
  for (const u of usage.llm) {
    const p = lookup('llm', u.provider, u.model);
    if (p?.component !== 'llm') continue;
    // A speech-to-speech model's audio tokens at the audio price, where the line has one; the rest at the text price.
    const inAudio = p.input_audio_usd_per_million_tokens !== undefined ? (u.input_audio_tokens ?? 0) : 0;
    const outAudio = p.output_audio_usd_per_million_tokens !== undefined ? (u.output_audio_tokens ?? 0) : 0;
    add('llm', u.provider, u.model, u.input_tokens - inAudio, 'input_token', p.input_usd_per_million_tokens / MICRO);
    add('llm', u.provider, u.model, u.output_tokens - outAudio, 'output_token', p.output_usd_per_million_tokens / MICRO);
    add('llm', u.provider, u.model, inAudio, 'input_audio_token', (p.input_audio_usd_per_million_tokens ?? 0) / MICRO);
    add('llm', u.provider, u.model, outAudio, 'output_audio_token', (p.output_audio_usd_per_million_tokens ?? 0) / MICRO);
  }
  for (const u of usage.stt) {
    const p = lookup('stt', u.provider, u.model);
    if (p?.component === 'stt') add('stt', u.provider, u.model, u.audio_seconds / 60, 'minute', p.usd_per_minute);
  }
  for (const u of usage.tts) {
    const p = lookup('tts', u.provider, u.model);
    if (p?.component === 'tts') add('tts', u.provider, u.model, u.characters, 'character', p.usd_per_million_characters / MICRO);
  }
  for (const u of usage.telephony) {
    const p = lookup('telephony', u.transport, '*');
    if (p?.component === 'telephony') add('telephony', u.transport, '*', u.minutes, 'minute', p.usd_per_minute);
  }
  const micro = { llm: 0, stt: 0, tts: 0, telephony: 0 };
  for (const l of lines) micro[l.component] += toMicro(l.amount);
  const total = micro.llm + micro.stt + micro.tts + micro.telephony;
  return {
    currency: PRICE_CURRENCY,
    total: fromMicro(total),
    components: { llm: fromMicro(micro.llm), stt: fromMicro(micro.stt), tts: fromMicro(micro.tts), telephony: fromMicro(micro.telephony) },
    lines,
    unpriced,
  };
}

/** What a call's turns say about it: replies cut off, tool calls made and failed. */
export interface TurnCounters {
  interruptions: number;
  toolCalls: number;
  toolFailures: number;
}

export function countTurns(
  turns: ReadonlyArray<{ role: string; interrupted: boolean; tool_calls?: ReadonlyArray<{ is_error: boolean }> | undefined }>,
): TurnCounters {
  let interruptions = 0;
  let toolCalls = 0;
  let toolFailures = 0;
  for (const t of turns) {
    if (t.role === 'assistant' && t.interrupted) interruptions++;
    for (const c of t.tool_calls ?? []) {
      toolCalls++;
      if (c.is_error) toolFailures++;
    }
  }
  return { interruptions, toolCalls, toolFailures };
}

/** The usage, its cost and the turn counters as the call's columns. */
export function usageColumns(usage: CallUsage, cost: CallCost, counters: TurnCounters) {
  const sum = <T>(items: T[], of: (item: T) => number) => items.reduce((acc, item) => acc + of(item), 0);
  return {
    usage: usage as object,
    cost: cost as object,
    llmInputTokens: sum(usage.llm, (u) => u.input_tokens),
    llmOutputTokens: sum(usage.llm, (u) => u.output_tokens),
    sttAudioMs: Math.round(sum(usage.stt, (u) => u.audio_seconds) * 1000),
    ttsCharacters: sum(usage.tts, (u) => u.characters),
    costMicroUsd: BigInt(toMicro(cost.total)),
    costLlmMicroUsd: BigInt(toMicro(cost.components.llm)),
    costSttMicroUsd: BigInt(toMicro(cost.components.stt)),
    costTtsMicroUsd: BigInt(toMicro(cost.components.tts)),
    costTelephonyMicroUsd: BigInt(toMicro(cost.components.telephony)),
    interruptions: counters.interruptions,
    toolCalls: counters.toolCalls,
    toolFailures: counters.toolFailures,
  };
}
export type UsageColumns = ReturnType<typeof usageColumns>;

/** What the speech framework metered during a call, by vendor and model (agent/call/usage.ts). */
export type ModelUsage = Pick<CallUsage, 'llm' | 'stt' | 'tts'>;

export const NO_MODEL_USAGE: ModelUsage = Object.freeze({ llm: [], stt: [], tts: [] });

/**
 * A whole call's usage: what its models used, and its audio and telephony minutes from its duration and the transport
 * that carried it.
 */
export function callUsage(models: ModelUsage, durationMs: number, transport: string): CallUsage {
  const minutes = durationMs / 60_000;
  return { audio_minutes: minutes, ...models, telephony: minutes > 0 ? [{ transport, minutes }] : [] };
}
