import { z } from 'zod';

// A call's usage and cost as the API and `call.completed` show them. No import but zod: the calls schemas include them.

/** The currency of every price and cost. */
export const PRICE_CURRENCY = 'USD' as const;

export const CallUsage = z
  .object({
    audio_minutes: z.number().describe('From the start of the conversation to its end'),
    llm: z
      .array(
        z.object({
          provider: z.string(),
          model: z.string(),
          input_tokens: z.int(),
          output_tokens: z.int(),
          cached_input_tokens: z.int(),
          input_audio_tokens: z.int().optional().describe("A speech-to-speech model's: the part of input_tokens that was audio"),
          output_audio_tokens: z.int().optional().describe("A speech-to-speech model's: the part of output_tokens that was audio"),
        }),
      )
      .describe('Per model, fallbacks and the post-call analysis included'),
    stt: z.array(z.object({ provider: z.string(), model: z.string(), audio_seconds: z.number() })),
    tts: z.array(z.object({ provider: z.string(), model: z.string(), characters: z.int() })),
    telephony: z.array(z.object({ transport: z.string(), minutes: z.number() })),
  })
  .meta({ id: 'CallUsage' });
export type CallUsage = z.infer<typeof CallUsage>;

export const COST_COMPONENTS = ['llm', 'stt', 'tts', 'telephony'] as const;
export type CostComponent = (typeof COST_COMPONENTS)[number];

export const CallCost = z
  .object({
    currency: z.literal(PRICE_CURRENCY),
    total: z.number(),
    components: z.object({ llm: z.number(), stt: z.number(), tts: z.number(), telephony: z.number() }),
    lines: z.array(
      z.object({
        component: z.enum(COST_COMPONENTS),
        provider: z.string(),
        model: z.string(),
        quantity: z.number(),
        unit: z.enum(['input_token', 'output_token', 'input_audio_token', 'output_audio_token', 'minute', 'character']),
        unit_price: z.number().describe('Per unit, in the currency'),
        amount: z.number(),
      }),
    ),
    unpriced: z
      .array(z.object({ component: z.enum(COST_COMPONENTS), provider: z.string(), model: z.string() }))
      .describe('Usage no price line matched, costed 0'),
  })
  .meta({ id: 'CallCost' });
export type CallCost = z.infer<typeof CallCost>;
