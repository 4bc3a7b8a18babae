// The public face of modules/analytics/: what code outside it (other modules, the API, the call runtime, the benchmarks)
// may use, and nothing else, so its other files can change without a search through both processes. Files inside the
// module import one another directly, never this one (docs/architecture.md, "Import rules").

export { createChart, deleteChart, getChart, listCharts, replaceChart, runChart } from './charts.js';
export { DEFAULT_CHARTS } from './default-charts.js';
export { exportChart } from './export.js';
export { FOLD_BATCH, FOLD_INTERVAL_MS, foldPendingRollups, startRollupFolder, type RollupFolder } from './fold.js';
export { METRICS } from './metrics.js';
export { resolvePeriod } from './period.js';
export { runChartQuery } from './query.js';
export { rolledMeasures } from './rollups.js';
export { Chart, ChartParams, ChartQuery, ChartResult, ChartWrite, ExportQuery, Period, PERIOD_PRESETS, PeriodOverride, timezone } from './schemas.js';
