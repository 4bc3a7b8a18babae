import { z } from 'zod';
import type { Db } from '../../prisma/client.js';
import { ChartQuery, Period, PERIOD_PRESETS, runChartQuery, timezone } from '../analytics/index.js';
import { getOrganizationSettings } from './settings.js';
import { requireRole } from './roles.js';

// Billing is the organisation's metered usage and its cost over a period, read from the same rows and queries as the
// analytics charts (each call's usage and cost by component, priced when it ended), and its limits. There is no
// payment processor: this reports what the vendors' usage cost, it charges nobody.

/** The analytics period's own bounds, so a billing period is read and refused exactly as a chart's is. */
const { from: periodFrom, to: periodTo } = Period.options[1].shape;

export const BillingQuery = z
  .object({
    period: z.enum(PERIOD_PRESETS).default('this_month').describe('A preset, read in the time zone; `from` and `to` give another period instead'),
    from: periodFrom.optional().describe('With `to`: the period starts here (inclusive); a date is midnight in the time zone'),
    to: periodTo.optional().describe('With `from`: the period ends here (exclusive); a date is midnight in the time zone'),
    timezone: timezone.default('UTC').describe('The time zone the period is read in'),
  })
  .superRefine((q, ctx) => {
    // One bound alone is no period: the missing one is named.
    if ((q.from === undefined) !== (q.to === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [q.from === undefined ? 'from' : 'to'],
        message: 'Give both `from` and `to`, or neither',
        params: { type: 'missing' },
      });
    }
  });

const usd = z.number().describe('US dollars');
export const BillingSummary = z
  .object({
    period: z.object({ preset: z.string().nullable(), from: z.string(), to: z.string() }),
    timezone: z.string(),
    currency: z.literal('USD'),
    total: usd,
    calls: z.int().describe('Calls in the period with a cost'),
    minutes: z.number(),
    by_component: z.object({ llm: usd, stt: usd, tts: usd, telephony: usd }),
    by_assistant: z.array(z.object({ assistant_id: z.int().nullable(), name: z.string(), total: usd, minutes: z.number() })),
    limits: z.object({ max_concurrent_calls: z.int(), active_calls: z.int() }),
    payment: z.literal('none').describe('No payment processor: usage is reported, not charged'),
  })
  .meta({ id: 'BillingSummary' });

export async function billingSummary(
  db: Db,
  actor: { organizationId: number; role: string },
  query: z.output<typeof BillingQuery>,
): Promise<z.output<typeof BillingSummary>> {
  requireRole(actor.role, 'billing');
  const period = query.from !== undefined && query.to !== undefined ? { from: query.from, to: query.to } : { preset: query.period };
  const base = { period, timezone: query.timezone, limit: 50 };
  // A `to` not after `from` is the query's own field, as the route reads it.
  const run = (q: object) => runChartQuery(db, actor.organizationId, ChartQuery.parse({ ...base, ...q }), { periodToLoc: ['query', 'to'] });
  const [components, costs, minutes, settings] = await Promise.all([
    run({ metric: 'cost_by_component', aggregation: 'sum' }),
    run({ metric: 'cost', aggregation: 'sum', group_by: ['assistant'] }),
    run({ metric: 'minutes', aggregation: 'sum', group_by: ['assistant'] }),
    getOrganizationSettings(db, actor.organizationId),
  ]);
  const minutesOf = new Map(minutes.series.map((s) => [s.key.assistant ?? null, s.total ?? 0]));
  const measure = (name: string) => components.totals.measures[name] ?? 0;
  return {
    period: components.period,
    timezone: query.timezone,
    currency: 'USD',
    total: costs.totals.value ?? 0,
    calls: costs.totals.calls,
    minutes: minutes.totals.value ?? 0,
    by_component: { llm: measure('llm'), stt: measure('stt'), tts: measure('tts'), telephony: measure('telephony') },
    by_assistant: costs.series.map((s) => {
      const id = typeof s.key.assistant === 'number' ? s.key.assistant : null;
      return { assistant_id: id, name: s.label, total: s.total ?? 0, minutes: minutesOf.get(s.key.assistant ?? null) ?? 0 };
    }),
    limits: { max_concurrent_calls: settings.max_concurrent_calls, active_calls: settings.active_calls },
    payment: 'none',
  };
}
