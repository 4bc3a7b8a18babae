import { z } from 'zod';
import { CALL_TRANSPORTS } from './schemas.js';
import { PRICE_CURRENCY } from './usage-schemas.js';

export { PRICE_CURRENCY };

// The price table a call's usage is costed with: one price per component, vendor and model ('*' for any model of a
// vendor). Defaults are approximate pay-as-you-go list prices in US dollars; an organisation overrides any line with
// its own contracted price (PUT /api/analytics/prices). docs/analytics.md lists them.

export const ANY_MODEL = '*';
/** Lines an organisation may override: one per vendor and model of each component is far more than any uses. */
export const MAX_PRICE_OVERRIDES = 200;

const vendor = z.string().trim().min(1).max(100).describe('The vendor as the assistant names it (`openai`, `deepgram`, ...)');
const model = z.string().trim().min(1).max(200).default(ANY_MODEL).describe('The model; `*` for any model of the vendor');
// A million dollars per unit is past any real price, and keeps every product with a call's usage finite.
const usd = z.number().min(0).max(1_000_000);

export const PriceEntry = z
  .discriminatedUnion('component', [
    z.strictObject({
      component: z.literal('llm'),
      provider: vendor,
      model,
      input_usd_per_million_tokens: usd,
      output_usd_per_million_tokens: usd,
      input_audio_usd_per_million_tokens: usd.optional().describe("A speech-to-speech model's audio input; absent: audio tokens at the text price"),
      output_audio_usd_per_million_tokens: usd.optional().describe("A speech-to-speech model's audio output; absent: audio tokens at the text price"),
    }),
    z.strictObject({ component: z.literal('stt'), provider: vendor, model, usd_per_minute: usd.describe('Per minute of audio transcribed') }),
    z.strictObject({ component: z.literal('tts'), provider: vendor, model, usd_per_million_characters: usd }),
    z.strictObject({
      component: z.literal('telephony'),
      provider: z.enum(CALL_TRANSPORTS).describe('The transport that carried the call'),
      model,
      usd_per_minute: usd.describe('Per minute of the call'),
    }),
  ])
  .meta({ id: 'PriceEntry' });
export type PriceEntry = z.output<typeof PriceEntry>;

export const PriceOverrides = z
  .strictObject({ prices: z.array(PriceEntry).max(MAX_PRICE_OVERRIDES).describe("Replaces the organisation's overrides; an empty list restores the defaults") })
  .meta({ id: 'PriceOverrides' });

export const PriceTable = z
  .object({
    currency: z.literal(PRICE_CURRENCY),
    overrides: z.array(PriceEntry).describe("The organisation's own prices; they win over the defaults"),
    defaults: z.array(PriceEntry),
  })
  .meta({ id: 'PriceTable' });

const llm = (provider: string, m: string, input: number, output: number): PriceEntry => ({
  component: 'llm',
  provider,
  model: m,
  input_usd_per_million_tokens: input,
  output_usd_per_million_tokens: output,
});
/** A speech-to-speech model: text tokens, then audio tokens, each in and out, per million. */
const realtime = (provider: string, m: string, text: [number, number], audio: [number, number]): PriceEntry => ({
  component: 'llm',
  provider,
  model: m,
  input_usd_per_million_tokens: text[0],
  output_usd_per_million_tokens: text[1],
  input_audio_usd_per_million_tokens: audio[0],
  output_audio_usd_per_million_tokens: audio[1],
});
const stt = (provider: string, m: string, perMinute: number): PriceEntry => ({ component: 'stt', provider, model: m, usd_per_minute: perMinute });
const tts = (provider: string, m: string, perMillion: number): PriceEntry => ({ component: 'tts', provider, model: m, usd_per_million_characters: perMillion });
const line = (transport: (typeof CALL_TRANSPORTS)[number], perMinute: number): PriceEntry => ({
  component: 'telephony',
  provider: transport,
  model: ANY_MODEL,
  usd_per_minute: perMinute,
});

/** The defaults, in US dollars (docs/analytics.md). `local` vendors and `custom` servers run on the operator's own machines: 0. */
export const DEFAULT_PRICES: readonly PriceEntry[] = Object.freeze([
  llm('openai', 'gpt-4.1-mini', 0.4, 1.6),
  llm('openai', 'gpt-4.1-nano', 0.1, 0.4),
  llm('openai', 'gpt-4.1', 2, 8),
  llm('openai', 'gpt-4o-mini', 0.15, 0.6),
  llm('openai', 'gpt-4o', 2.5, 10),
  llm('openai', ANY_MODEL, 2, 8),
  realtime('openai', 'gpt-realtime', [4, 16], [32, 64]),
  realtime('openai', 'gpt-realtime-mini', [0.6, 2.4], [10, 20]),
  realtime('google', 'gemini-2.5-flash-native-audio-preview-12-2025', [0.5, 2], [3, 12]),
  realtime('google', 'gemini-2.5-flash-native-audio-preview-09-2025', [0.5, 2], [3, 12]),
  llm('anthropic', 'claude-haiku-4-5', 1, 5),
  llm('anthropic', 'claude-sonnet-4-5', 3, 15),
  llm('anthropic', ANY_MODEL, 3, 15),
  llm('google', 'gemini-2.5-flash', 0.3, 2.5),
  llm('google', 'gemini-2.0-flash', 0.1, 0.4),
  llm('google', ANY_MODEL, 0.3, 2.5),
  llm('groq', 'llama-3.3-70b-versatile', 0.59, 0.79),
  llm('groq', ANY_MODEL, 0.59, 0.79),
  llm('mistral', 'mistral-small-latest', 0.1, 0.3),
  llm('mistral', ANY_MODEL, 2, 6),
  llm('custom', ANY_MODEL, 0, 0),
  stt('deepgram', 'nova-3', 0.0077),
  stt('deepgram', ANY_MODEL, 0.0077),
  stt('soniox', ANY_MODEL, 0.002),
  stt('assemblyai', ANY_MODEL, 0.0025),
  stt('local', ANY_MODEL, 0),
  tts('elevenlabs', ANY_MODEL, 50),
  tts('cartesia', ANY_MODEL, 40),
  tts('deepgram', ANY_MODEL, 30),
  tts('local', ANY_MODEL, 0),
  line('sip', 0.0045),
  line('media_stream', 0.014),
  line('web', 0),
  line('browser', 0),
]);

export type PriceComponent = PriceEntry['component'];

/**
 * The line that prices a vendor's model: the organisation's exact line, its line for any model of the vendor, then
 * the same two among the defaults. Undefined when none does (the usage is listed as unpriced, costed 0).
 */
export function priceFor(component: PriceComponent, provider: string, modelName: string, overrides: readonly PriceEntry[]): PriceEntry | undefined {
  const pick = (table: readonly PriceEntry[], m: string) => table.find((p) => p.component === component && p.provider === provider && p.model === m);
  return pick(overrides, modelName) ?? pick(overrides, ANY_MODEL) ?? pick(DEFAULT_PRICES, modelName) ?? pick(DEFAULT_PRICES, ANY_MODEL);
}
