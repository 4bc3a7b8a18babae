import type { z } from 'zod';
import { unwrap } from '../../../../lib/zod/walk.js';
import { ChartWrite, Period } from '../../../../modules/analytics/index.js';

// What the chart schema says, read from the schema itself: the chart types, the time buckets and call fields a chart
// is grouped by, how many of each list it takes, and every default. The form names these in people's words; the values,
// bounds and defaults it shows are always the API's own.

const shape = (ChartWrite as unknown as z.ZodObject).shape as Record<string, z.ZodType>;
const def = (schema: z.ZodType) => schema._zod.def as unknown as Record<string, unknown>;
const inner = (schema: z.ZodType) => unwrap(schema).inner;

/** Every setting at its default, with the name and measure a new chart starts from. */
export const DEFAULTS = ChartWrite.parse({ name: 'chart', metric: 'calls' });

export const CHART_TYPES: readonly string[] = (inner(shape.chart_type!) as z.ZodEnum).options.map(String);
/** Every aggregation a measure may be shown as; each measure takes some. */
export const AGGREGATIONS_ALL: readonly string[] = (inner(shape.aggregation!) as z.ZodEnum).options.map(String);

const groupBy = inner(shape.group_by!) as z.ZodArray;
const groupOptions = (def(groupBy.element as z.ZodType).options as z.ZodType[]).map(inner);
/** `hour`, `day`, `week`, `month`: at most one of them. */
export const TIME_BUCKETS: readonly string[] = (groupOptions[0] as z.ZodEnum).options.map(String);
/** The call fields a chart is split by. */
export const DIMENSIONS: readonly string[] = (groupOptions[1] as z.ZodEnum).options.map(String);
/** How many group-bys a chart takes in all. */
export const MOST_GROUPS: number = (groupBy as unknown as { _zod: { bag: { maximum?: number } } })._zod.bag.maximum ?? 2;

const filterShape = (inner(shape.filters!) as z.ZodObject).shape as Record<string, z.ZodType>;
/** How many values one filter takes. */
export const MOST_VALUES: number = (inner(filterShape.status!) as unknown as { _zod: { bag: { maximum?: number } } })._zod.bag.maximum ?? 50;

const limit = inner(shape.limit!) as unknown as { minValue: number; maxValue: number };
export const LIMIT = { min: limit.minValue, max: limit.maxValue, default: DEFAULTS.limit };

/** The shape of a period given by its two bounds (the schema's second form of a period). */
export const RANGE = (def(Period).options as z.ZodType[])[1]!;
