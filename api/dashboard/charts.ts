import type { ChartResult } from '../../modules/analytics/index.js';
import { html, type Html } from './html.js';

// Charts drawn on the server as SVG: no chart library and no script, crisp at any width (the SVG scales to its box),
// and each followed by its numbers in a table, which is what a screen reader reads.

const W = 600;
const H = 220;
const PAD = { left: 48, right: 12, top: 12, bottom: 28 };
type Drawn = ChartResult & { chart_type: string };

const COLOURS = ['#2f5bea', '#e8590c', '#2b8a3e', '#ae3ec9', '#c92a2a', '#1098ad', '#5c940d', '#862e9c'];

export function formatValue(value: number | null, unit: string): string {
  if (value === null) return '–';
  if (unit === 'usd') return `$${value.toFixed(value !== 0 && Math.abs(value) < 1 ? 4 : 2)}`;
  if (unit === 'ratio') return `${(value * 100).toFixed(1)}%`;
  if (Number.isInteger(value)) return value.toLocaleString('en');
  return value.toFixed(Math.abs(value) < 10 ? 2 : 1);
}

function niceMax(value: number): number {
  if (value <= 0) return 1;
  const step = 10 ** Math.floor(Math.log10(value));
  return Math.ceil(value / step) * step;
}

function lineChart(result: ChartResult): Html {
  const times = result.series[0]?.points.map((p) => p.t) ?? [];
  const max = niceMax(Math.max(0, ...result.series.flatMap((s) => s.points.map((p) => p.value ?? 0))));
  const x = (i: number) => PAD.left + (times.length <= 1 ? 0 : (i * (W - PAD.left - PAD.right)) / (times.length - 1));
  const y = (v: number) => H - PAD.bottom - (v / max) * (H - PAD.top - PAD.bottom);
  const label = (t: string | null) => (t ? t.slice(5, result.granularity === 'hour' ? 16 : 10).replace('T', ' ') : '');
  const ticks = times.length > 1 ? [0, Math.floor((times.length - 1) / 2), times.length - 1] : [0];
  return html`<svg viewBox="0 0 ${W} ${H}" class="chart" role="img" aria-label="${result.name ?? result.metric}">
<line x1="${PAD.left}" y1="${H - PAD.bottom}" x2="${W - PAD.right}" y2="${H - PAD.bottom}" class="axis"/>
<text x="${PAD.left - 6}" y="${PAD.top + 4}" class="tick" text-anchor="end">${formatValue(max, result.unit)}</text>
<text x="${PAD.left - 6}" y="${H - PAD.bottom}" class="tick" text-anchor="end">0</text>
${ticks.map((i, n) => html`<text x="${x(i)}" y="${H - 8}" class="tick" text-anchor="${n === 0 ? 'start' : n === ticks.length - 1 ? 'end' : 'middle'}">${label(times[i] ?? null)}</text>`)}
${result.series.map(
  (s, si) =>
    html`<polyline fill="none" stroke="${COLOURS[si % COLOURS.length]}" stroke-width="2" points="${s.points.map((p, i) => `${x(i).toFixed(1)},${y(p.value ?? 0).toFixed(1)}`).join(' ')}"/>`,
)}</svg>`;
}

/** Bars of each series' total: bar and pie charts (a pie's shares read better as bars, longest first). */
function barChart(result: Drawn): Html {
  const items = result.series.map((s, i) => ({ label: s.label, value: s.total ?? 0, colour: COLOURS[i % COLOURS.length]! }));
  const max = niceMax(Math.max(0, ...items.map((i) => i.value)));
  const sum = items.reduce((a, i) => a + i.value, 0);
  return html`<div class="bars">${items.map(
    (i) =>
      html`<div class="bar-row"><span class="bar-label">${i.label}</span><svg viewBox="0 0 100 10" preserveAspectRatio="none" class="bar" aria-hidden="true"><rect width="${((i.value / max) * 100).toFixed(2)}" height="10" fill="${i.colour}"/></svg><span class="bar-value">${formatValue(i.value, result.unit)}${result.chart_type === 'pie' && sum > 0 ? ` (${((i.value / sum) * 100).toFixed(0)}%)` : ''}</span></div>`,
  )}</div>`;
}

/** A chart as its type asks, then its numbers. */
export function drawChart(result: Drawn): Html {
  const empty = result.totals.calls === 0;
  const legend =
    result.series.length > 1 && result.chart_type === 'line'
      ? html`<p class="legend">${result.series.map((s, i) => html`<span><i class="swatch swatch-${i % COLOURS.length}"></i>${s.label}</span> `)}</p>`
      : '';
  const figure = empty
    ? html`<p class="empty">No calls in this period.</p>`
    : result.chart_type === 'number'
      ? html`<p class="big-number">${formatValue(result.totals.value, result.unit)}</p>`
      : result.chart_type === 'line' && result.granularity
        ? html`${lineChart(result)}${legend}`
        : result.chart_type === 'table'
          ? html``
          : barChart(result);
  const table = html`<table><thead><tr><th>Series</th>${result.granularity ? html`<th>Points</th>` : ''}<th>Total</th></tr></thead><tbody>${result.series.map(
    (s) =>
      html`<tr><td>${s.label}</td>${result.granularity ? html`<td>${s.points.filter((p) => p.value !== null).length}</td>` : ''}<td>${formatValue(s.total, result.unit)}</td></tr>`,
  )}</tbody></table>`;
  return html`${figure}${empty ? '' : result.chart_type === 'table' ? html`<div class="table-wrap">${table}</div>` : html`<details><summary>Numbers</summary><div class="table-wrap">${table}</div></details>`}`;
}
