import type { z } from 'zod';
import { unwrap } from '../../../../lib/zod/walk.js';
import { PlaybookCreate } from '../../../../modules/playbooks/index.js';

// What the playbook schema says, read from the schema itself: the modes, the types of a collected value, and how
// long each list and text may be. The form says these in people's words; the values and limits are the API's own.

/** The schema at a path of the playbook: `collect.[].type` steps into a list's items. */
function innerAt(path: string): z.ZodType {
  let current = unwrap(PlaybookCreate as unknown as z.ZodType).inner;
  for (const step of path.split('.')) {
    const def = current._zod.def as { type: string; element?: z.ZodType };
    const next = step === '[]' ? def.element : def.type === 'object' ? ((current as z.ZodObject).shape as Record<string, z.ZodType>)[step] : undefined;
    if (!next) throw new Error(`The playbook schema has no ${path}`);
    current = unwrap(next).inner;
  }
  return current;
}

/** The most items a list takes, or characters a text takes. */
export function maxOf(path: string): number | undefined {
  const schema = innerAt(path);
  const checks = (schema._zod.def as { checks?: { _zod: { def: { check?: string; maximum?: number } } }[] }).checks ?? [];
  const max = checks.find((c) => c._zod.def.check === 'max_length')?._zod.def.maximum;
  return typeof max === 'number' ? max : undefined;
}

const optionsOf = (path: string): readonly string[] => (innerAt(path) as z.ZodEnum).options.map(String);

export const MODES = optionsOf('mode');
export const COLLECT_TYPES = optionsOf('collect.[].type');
export const EXAMPLE_ROLES = optionsOf('examples.[].[].role');

/** Every setting at its default; `name` has none. */
export const DEFAULTS = (PlaybookCreate as unknown as z.ZodObject).partial({ name: true }).parse({}) as Partial<z.output<typeof PlaybookCreate>>;

/** "1,000 characters at most." for a text, from the schema. */
export function atMost(path: string, what = 'characters'): string {
  const max = maxOf(path);
  return max === undefined ? '' : `${max.toLocaleString('en-GB')} ${what} at most.`;
}
