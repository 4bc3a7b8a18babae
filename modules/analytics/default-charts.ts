import type { z } from 'zod';
import type { ChartWrite } from './schemas.js';

// The charts every organisation starts with: what a team running calls reads first. Each is an ordinary saved chart,
// changed or deleted like any other.

export const DEFAULT_CHARTS: ReadonlyArray<z.input<typeof ChartWrite>> = [
  { name: 'Call volume', metric: 'calls', group_by: ['day', 'direction'], chart_type: 'bar' },
  { name: 'Minutes', metric: 'minutes', group_by: ['day'], chart_type: 'line' },
  { name: 'Cost by component', metric: 'cost_by_component', group_by: ['day'], chart_type: 'bar' },
  { name: 'Answer rate', metric: 'answer_rate', group_by: ['day'], chart_type: 'line' },
  { name: 'Reply latency percentiles', metric: 'latency_e2e_ms', aggregation: 'percentiles', group_by: ['day'], chart_type: 'line' },
  { name: 'End reasons', metric: 'end_reasons', chart_type: 'pie' },
  { name: 'Top outcomes', metric: 'outcomes', field: 'sentiment', limit: 5, chart_type: 'bar' },
];
