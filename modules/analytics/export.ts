import { stringify } from 'csv-stringify/sync';
import { neutralizeFormula } from '../calls/index.js';
import type { Db } from '../../prisma/client.js';
import { runChart } from './charts.js';
import type { ChartResult, PeriodOverride } from './schemas.js';

// A chart's result as a file: CSV with one row per series and point (a chart has at most `limit` series of at most
// 1,500 points, so it is written whole), or the JSON of the query answer itself.

export function chartCsv(result: ChartResult): string {
  const keys = [...new Set(result.series.flatMap((s) => Object.keys(s.key)))];
  const header = ['series', ...keys, 't', 'value', 'unit', 'currency', 'timezone'];
  const rows = result.series.flatMap((s) =>
    s.points.map((p) => [s.label, ...keys.map((k) => s.key[k] ?? ''), p.t ?? '', p.value ?? '', result.unit, result.currency ?? '', result.timezone]),
  );
  // Group values (an analysis field, an end reason) come from calls: a cell a spreadsheet would run is defused.
  return stringify([header, ...rows], { cast: { string: neutralizeFormula } });
}

/** The attachment's name: the chart's name reduced to safe characters, and the day it was exported. */
export function exportFileName(result: ChartResult, format: 'csv' | 'json'): string {
  const base =
    (result.name ?? 'chart')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 60) || 'chart';
  return `${base}-${result.generated_at.slice(0, 10)}.${format}`;
}

/** A saved chart run (with its period override, if any) and written as a file. */
export async function exportChart(db: Db, organizationId: number, id: number, override: PeriodOverride, format: 'csv' | 'json') {
  const result = await runChart(db, organizationId, id, override, ['query', 'to']);
  return {
    body: format === 'csv' ? chartCsv(result) : JSON.stringify(result),
    contentType: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8',
    fileName: exportFileName(result, format),
  };
}
