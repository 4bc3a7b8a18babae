import { afterAll, beforeAll, describe, expect } from 'vitest';
import { reportDatabaseQueues, startMetricsServer, startProcessMetrics, type MetricsServer } from '../../lib/metrics/index.js';
import { startFakeOpenAI } from '../fakes/vendors/openai.js';
import { apiTest } from '../helpers/fixtures.js';
import { afterReply, createCall, localSettings, runTimeline } from '../runtime/call-harness.js';
import { until } from '../helpers/until.js';
import pg from 'pg';

// The Prometheus endpoint as a scraper reads it: the process's figures over HTTP on a port of its own. Files that share
// a worker share its registry, so each check compares the figures before and after what it does.

const it = apiTest.extend('llm', { scope: 'file' }, async ({}, { onCleanup }) => {
  const llm = await startFakeOpenAI(() => ({ text: 'Your appointment is on Tuesday.' }));
  onCleanup(() => llm.close());
  return llm;
});

let server: MetricsServer;
beforeAll(async () => {
  server = await startMetricsServer({ host: '127.0.0.1', port: 0 });
});
afterAll(() => server.close());

async function scrape(): Promise<string> {
  const response = await fetch(server.url);
  expect(response.status).toBe(200);
  return response.text();
}

/** The value of one series in the exposition text; 0 when the series is not there yet. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return 0;
}

describe('the metrics endpoint', () => {
  it('serves the figures in Prometheus text format at /metrics, with the event loop, CPU and memory, and nothing else', async () => {
    const response = await fetch(server.url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    for (const name of ['nodejs_eventloop_lag_p99_seconds', 'process_cpu_seconds_total', 'process_resident_memory_bytes', 'voice_calls_active']) {
      expect(text).toContain(`# TYPE ${name} `);
    }
    expect((await fetch(new URL('/', server.url))).status).toBe(404);
    expect((await fetch(new URL('/api/assistants', server.url))).status).toBe(404);
    expect((await fetch(server.url, { method: 'POST' })).status).toBe(405);
  });

  it('counts API responses by route template, method and status, never by the URL a request named', async ({ api, tenant }) => {
    const before = await scrape();
    const route = { route: '/api/assistants', method: 'GET', status: '200' };
    const missing = { route: '/api/assistants/:assistant_id', method: 'GET', status: '404' };
    expect((await api.call(tenant, 'GET', '/api/assistants')).status).toBe(200);
    expect((await api.call(tenant, 'GET', '/api/assistants/987654321')).status).toBe(404);
    expect((await api.call(null, 'GET', '/api/assistants')).status).toBe(401);
    expect((await api.call(tenant, 'GET', '/no/such/page/5550100')).status).toBe(404);
    const after = await scrape();
    expect(sample(after, 'voice_http_responses_total', route) - sample(before, 'voice_http_responses_total', route)).toBe(1);
    expect(sample(after, 'voice_http_responses_total', missing) - sample(before, 'voice_http_responses_total', missing)).toBe(1);
    const refused = { route: '/api/assistants', method: 'GET', status: '401' };
    expect(sample(after, 'voice_http_responses_total', refused) - sample(before, 'voice_http_responses_total', refused)).toBe(1);
    const unmatched = { route: 'unmatched', method: 'GET', status: '404' };
    expect(sample(after, 'voice_http_responses_total', unmatched) - sample(before, 'voice_http_responses_total', unmatched)).toBe(1);
    expect(sample(after, 'voice_http_request_duration_seconds_count', { route: '/api/assistants', method: 'GET' })).toBeGreaterThanOrEqual(2);
    // Ids and paths from the requests are no label: the series stay bounded and say nothing of a tenant.
    expect(after).not.toContain('987654321');
    expect(after).not.toContain('5550100');
  });

  it('counts a call by transport and final status while it runs and once it ended, its reply latency by stage, and its audio work', async ({ api, llm }) => {
    const before = await scrape();
    const call = await createCall(api.db.prisma, localSettings(llm.url, { llm_settings: { welcome_message: 'Hello, how can I help?' } }));
    const run = await runTimeline(api.db.prisma, call.id, [{ after: afterReply(1), atMs: 500, text: 'book an appointment' }], {
      hangupWhen: afterReply(2),
    });
    expect(run.result.status).toBe('completed');
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('voice_calls_started_total', { transport: call.transport })).toBe(1);
    expect(delta('voice_calls_ended_total', { transport: call.transport, status: 'completed' })).toBe(1);
    expect(delta('voice_calls_active', { transport: call.transport })).toBe(0);
    // The reply to the caller has every stage; the welcome, which answers nobody, has none of the caller's.
    for (const stage of ['end_of_utterance', 'llm_ttft', 'tts_ttfb', 'e2e']) {
      expect(delta('voice_turn_latency_seconds_count', { stage }), stage).toBeGreaterThanOrEqual(1);
    }
    const e2e = delta('voice_turn_latency_seconds_sum', { stage: 'e2e' });
    expect(e2e).toBeGreaterThan(0);
    // The detector's time per inference (one per 32 ms of the caller's audio), and how late each tick of the reply's
    // audio left.
    expect(delta('voice_vad_inference_seconds_count', {})).toBeGreaterThanOrEqual(30);
    expect(delta('voice_vad_inference_seconds_sum', {})).toBeGreaterThan(0);
    expect(delta('voice_audio_frame_lateness_seconds_count', {})).toBeGreaterThanOrEqual(50);
  });

  it("counts the process's database connections, busy and idle, and the queries waiting for one", async ({ api }) => {
    const { createPrismaClient } = await import('../../prisma/client.js');
    const prisma = createPrismaClient(api.db.url, { maxConnections: 1 });
    try {
      // One connection, held by a transaction that sleeps, and 50 queries waiting for it. The figures are the whole
      // process's, and the files sharing this worker have pools of their own: 50 waiting is more than theirs ever are.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let started!: () => void;
      const holding = new Promise<void>((resolve) => (started = resolve));
      // Prisma's queries run when awaited: `then` starts them now.
      const transaction = prisma
        .$transaction(async (tx) => {
          await tx.$queryRaw`SELECT 1`;
          started();
          await held;
        })
        .then(() => undefined);
      await holding;
      const waiting = Promise.all(Array.from({ length: 50 }, (_, i) => prisma.$queryRaw`SELECT ${i}::int`));
      const during = await until(async () => {
        const text = await scrape();
        return sample(text, 'voice_db_pool_waiting') >= 50 && text;
      });
      expect(sample(during, 'voice_db_pool_connections', { state: 'busy' })).toBeGreaterThanOrEqual(1);
      release();
      await transaction;
      await waiting;
      const after = await until(async () => {
        const text = await scrape();
        return sample(text, 'voice_db_pool_waiting') < 50 && text;
      });
      expect(sample(after, 'voice_db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(1);
    } finally {
      await prisma.$disconnect();
    }
  });

  it("reports the database's queues: webhook deliveries owed and the oldest one's age, documents waiting to be processed, rollup deltas and their lag", async ({
    api,
    tenant,
  }) => {
    const stop = reportDatabaseQueues(api.db.prisma);
    try {
      const prisma = api.db.prisma;
      const endpoint = await prisma.webhookEndpoint.create({
        data: { organizationId: tenant.organizationId, url: 'https://hooks.example.com/in', eventTypes: ['call.ended'], secret: 'sealed' },
      });
      const hourAgo = new Date(Date.now() - 3_600_000);
      for (const [id, status] of [
        ['evt_metrics_1', 'pending'],
        ['evt_metrics_2', 'pending'],
        ['evt_metrics_3', 'succeeded'],
      ] as const) {
        await prisma.event.create({ data: { id, organizationId: tenant.organizationId, type: 'call.ended', payload: {} } });
        await prisma.webhookDelivery.create({
          data: { endpointId: endpoint.id, eventId: id, status, createdAt: id === 'evt_metrics_1' ? hourAgo : new Date() },
        });
      }
      await prisma.document.create({ data: { organizationId: tenant.organizationId, name: 'Manual', status: 'pending' } });
      // A call's rollup delta queued an hour ago and not folded: the folder is held off by the lock taken here.
      const folder = new pg.Client({ connectionString: api.db.url });
      await folder.connect();
      await folder.query(`BEGIN; SELECT pg_advisory_xact_lock(hashtext('call_rollups_fold'))`);
      // Calls the file's earlier tests ended may still have deltas queued: counted now, while no fold can run.
      const queuedBefore = await prisma.callRollupPending.count();
      await prisma.callRollupPending.create({
        data: {
          organizationId: tenant.organizationId,
          hour: new Date('2026-10-10T10:00:00Z'),
          assistantId: 0,
          campaignId: 0,
          phoneNumberId: 0,
          direction: 'inbound',
          status: 'completed',
          transport: 'sip',
          endReason: '',
          calls: 1,
          queuedAt: hourAgo,
        },
      });
      const text = await scrape().finally(() => folder.end());
      expect(sample(text, 'voice_jobs_queued', { kind: 'rollup_delta' })).toBe(queuedBefore + 1);
      expect(sample(text, 'voice_rollup_fold_lag_seconds')).toBeGreaterThanOrEqual(3_600);
      expect(sample(text, 'voice_webhook_backlog')).toBe(2);
      expect(sample(text, 'voice_jobs_queued', { kind: 'webhook_delivery' })).toBe(2);
      expect(sample(text, 'voice_webhook_oldest_pending_age_seconds')).toBeGreaterThanOrEqual(3_600);
      expect(sample(text, 'voice_jobs_queued', { kind: 'document' })).toBe(1);
      expect(sample(text, 'voice_metrics_database_up')).toBe(1);
    } finally {
      stop();
    }
  });

  it('refuses a metrics port in use with one line naming METRICS_PORT, and serves nothing', async ({ api }) => {
    const port = Number(new URL(server.url).port);
    await expect(startProcessMetrics({ host: '127.0.0.1', port }, api.db.prisma)).rejects.toThrow(
      `metrics port ${port} on 127.0.0.1 is already in use: stop that process or set METRICS_PORT to a free port`,
    );
  });
});
