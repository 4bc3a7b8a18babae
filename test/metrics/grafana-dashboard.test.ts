import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { registry } from '../../lib/metrics/index.js';
import '../../lib/metrics/database-gauges.js';

// The dashboard shipped in docker/ stays true to the metrics the processes serve: a renamed metric would leave a panel
// empty without anyone noticing.

const root = new URL('../../', import.meta.url);
const dashboard = JSON.parse(readFileSync(new URL('docker/grafana/dashboards/voice-platform.json', root), 'utf8')) as {
  panels: { title: string; targets: { expr: string }[] }[];
};

/** The metric a query names: a histogram's series (_bucket, _sum, _count) belong to the histogram. */
function metricsOf(expr: string): string[] {
  return [...expr.matchAll(/\b((?:voice|nodejs|process)_[a-z0-9_]+)\b/g)].map((m) => m[1]!.replace(/_(bucket|sum|count)$/, ''));
}

describe('the Grafana dashboard in docker/', () => {
  it('queries only metrics the processes serve, and has a panel for every metric of ours', async () => {
    const served = new Set((await registry.getMetricsAsJSON()).map((m) => m.name));
    const queried = new Set(dashboard.panels.flatMap((p) => p.targets.flatMap((t) => metricsOf(t.expr))));
    expect(queried.size).toBeGreaterThan(0);
    for (const name of queried) expect(served, `${name} is queried but not served`).toContain(name);
    for (const name of served) if (name.startsWith('voice_')) expect(queried, `${name} has no panel`).toContain(name);
  });

  it('is scraped where the processes serve it: prometheus.yml targets the METRICS_PORT compose gives them', () => {
    const compose = readFileSync(new URL('docker/compose.yaml', root), 'utf8');
    const prometheus = readFileSync(new URL('docker/prometheus.yml', root), 'utf8');
    const port = /METRICS_PORT: "(\d+)"/.exec(compose)?.[1];
    expect(port).toBeDefined();
    expect(compose).toMatch(/METRICS_HOST: 0\.0\.0\.0/);
    for (const job of ['api', 'agent']) expect(prometheus).toMatch(new RegExp(`names: \\[${job}\\]\\s+type: A\\s+port: ${port}`));
  });
});
