import type { z } from 'zod';
import { unwrap } from '../../../../lib/zod/walk.js';
import { ToolCreate } from '../../../../modules/tools/index.js';
import { leavesOf, type Leaf } from '../../schema-form.js';

// What the tool schema says, read from the schema itself: the kinds of tool, the methods of a request, the modes of a
// transfer, each number's default and bounds. The form labels these in people's words; the values it offers and the
// defaults it shows are always the API's own.

const shape = (ToolCreate as unknown as z.ZodObject).shape as Record<string, z.ZodType>;

export const LEAVES: Leaf[] = leavesOf(shape);
export const LEAF = new Map(LEAVES.map((l) => [l.key, l]));

const optionsOf = (key: string): readonly string[] => {
  const leaf = LEAF.get(key);
  if (!leaf || leaf.kind !== 'enum') throw new Error(`The tool schema has no choice ${key}`);
  return leaf.options;
};

export const KINDS = optionsOf('type');
export const METHODS = optionsOf('http.method');
export const TRANSFER_MODES = optionsOf('transfer.mode');
export const HOLD_AUDIO_CHOICES = optionsOf('transfer.hold_audio');

/** A setting's default as the schema has it. */
export function defaultOf(key: string): unknown {
  return LEAF.get(key)?.default;
}

/** The arguments of a tool that takes none: the schema's default. */
export const NO_PARAMETERS = defaultOf('parameters') as Record<string, unknown>;

/** Numbers the API keeps in milliseconds and the form shows in seconds. */
export const IN_SECONDS = new Set(['http.timeout_ms', 'mcp.timeout_ms', 'messages.slow_after_ms']);

/** Milliseconds as seconds, without float noise: 500 is 0.5. */
export const secondsOf = (ms: number): string => String(Number((ms / 1000).toPrecision(12)));

/** A bound or default of a number setting, in the unit the form shows it in. */
export function shownNumber(key: string, which: 'min' | 'max' | 'default'): number | undefined {
  const leaf = LEAF.get(key);
  const value = which === 'default' ? leaf?.default : leaf?.[which];
  if (typeof value !== 'number') return undefined;
  return IN_SECONDS.has(key) ? Number((value / 1000).toPrecision(12)) : value;
}

/** The schema at a dotted path of the tool (`messages.on_start`), under its wrappers. */
function innerAt(key: string): z.ZodType | undefined {
  let current: z.ZodType | undefined = ToolCreate as unknown as z.ZodType;
  for (const step of key.split('.')) {
    const inner: z.ZodType | undefined = current ? unwrap(current).inner : undefined;
    current = inner && inner._zod.def.type === 'object' ? ((inner as z.ZodObject).shape as Record<string, z.ZodType>)[step] : undefined;
  }
  return current ? unwrap(current).inner : undefined;
}

/** The most characters a text setting takes. */
export function maxLengthOf(key: string): number | undefined {
  const max = (innerAt(key) as { maxLength?: number | null } | undefined)?.maxLength;
  return typeof max === 'number' ? max : undefined;
}
