import type { z } from 'zod';
import { unwrap } from '../../../../lib/zod/walk.js';
import { CampaignWrite } from '../../../../modules/campaigns/index.js';
import { leavesOf, type Leaf } from '../../schema-form.js';

// What the campaign schema says, read from the schema itself: its settings with their defaults and bounds, the days
// a calling window names and the outcomes a retry is set for. The form labels these in people's words; the values,
// bounds and defaults it shows are always the API's own.

const shape = (CampaignWrite as unknown as z.ZodObject).shape as Record<string, z.ZodType>;

export const LEAVES: Leaf[] = leavesOf(shape);
export const LEAF = new Map(LEAVES.map((l) => [l.key, l]));

/** Every setting at its default; `name`, `assistant_id` and `from_numbers` have none. */
export const DEFAULTS = (CampaignWrite as unknown as z.ZodObject).partial().parse({}) as Partial<z.output<typeof CampaignWrite>>;

function innerAt(schema: z.ZodType, path: string[]): z.ZodType {
  let current = unwrap(schema).inner;
  for (const step of path) {
    const def = current._zod.def as { type: string; element?: z.ZodType; shape?: Record<string, z.ZodType> };
    const next = step === '[]' ? def.element : (current as z.ZodObject).shape[step];
    if (!next) throw new Error(`The campaign schema has no ${path.join('.')}`);
    current = unwrap(next).inner;
  }
  return current;
}

/** The days a calling window may name, in the schema's order (Monday first). */
export const DAYS: readonly string[] = (innerAt(CampaignWrite, ['schedule', 'windows', '[]', 'days', '[]']) as z.ZodEnum).options.map(String);

/** The outcomes a retry is set for, in the schema's order. */
export const OUTCOMES: readonly string[] = [...new Set(LEAVES.filter((l) => l.path[0] === 'retry').map((l) => l.path[1]!))];

/** A number setting's default, as the schema has it. */
export function defaultOf(key: string): number | undefined {
  const value = LEAF.get(key)?.default;
  return typeof value === 'number' ? value : undefined;
}
