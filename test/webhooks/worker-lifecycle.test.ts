import { describe, expect, it, onTestFinished } from 'vitest';
import { startApi } from '../../api/server.js';
import { startAgentWorker } from '../../agent/worker.js';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startWebhookDelivery } from '../../modules/webhooks/delivery-worker.js';
import { recordEvent } from '../../modules/webhooks/events.js';
import { readConfig } from '../../lib/config.js';
import { createTestDatabase } from '../helpers/database.js';
import { apiTest } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';
import { startReceiver } from '../fakes/webhook-receiver.js';
import crypto from 'node:crypto';
import { SecretBox } from '../../lib/secret-box.js';

/** The API seals signing secrets with it, and the workers open them with it. */
const secrets = new SecretBox(crypto.randomBytes(32));

const lifecycleTest = apiTest
  .extend('apiOptions', { scope: 'file' }, { allowPrivateWebhookTargets: true, secrets })
  .extend('endpoint', { scope: 'file' }, async ({ api }) => async (url: string) => {
    const tenant = await api.tenant();
    const res = await api.call(tenant, 'POST', '/api/organization/webhooks', { url, event_types: ['*'] });
    return { tenant, id: res.body.data.id as number };
  });

describe('the delivery worker lifecycle', () => {
  const it = lifecycleTest;

  it('waits at stop for an attempt in flight and records its outcome', async ({ api, endpoint }) => {
    const receiver = await startReceiver({ reply: () => ({ status: 200, delayMs: 400 }) });
    const worker = startWebhookDelivery(api.db.prisma, { allowPrivateTargets: true, pollIntervalMs: 50, secrets });
    try {
      const { tenant, id } = await endpoint(receiver.url);
      await recordEvent(api.db.prisma, tenant.organizationId, 'call.started', { call_sid: 'CA-stop' });
      await receiver.until((got) => got.length === 1);
      await worker.stop();
      const row = await api.db.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId: id } });
      expect(row.status).toBe('succeeded');
      await worker.stop(); // a second stop is harmless
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });

  it('abandons an attempt that outlasts the stop timeout to its lease, and another worker delivers it', async ({ api, endpoint }) => {
    const receiver = await startReceiver({ reply: (i) => (i === 0 ? 'hold' : { status: 200 }) });
    const first = startWebhookDelivery(api.db.prisma, { allowPrivateTargets: true, pollIntervalMs: 50, leaseMs: 1_000, stopTimeoutMs: 200, secrets });
    try {
      const { tenant, id } = await endpoint(receiver.url);
      await recordEvent(api.db.prisma, tenant.organizationId, 'call.started', { call_sid: 'CA-abandon' });
      await receiver.until((got) => got.length === 1);
      await first.stop();
      const leased = await api.db.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId: id } });
      expect(leased.status).toBe('pending');
      const second = startWebhookDelivery(api.db.prisma, { allowPrivateTargets: true, pollIntervalMs: 50, secrets });
      try {
        await receiver.until((got) => got.length === 2);
        const row = await until(async () => {
          const r = await api.db.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId: id } });
          return r.status === 'succeeded' && r;
        }, 15_000);
        expect(row.attempts).toBe(2);
      } finally {
        await second.stop();
      }
    } finally {
      await first.stop();
      await receiver.close();
    }
  });
});

describe('startApi', () => {
  it('delivers webhooks from a process running the API and an agent worker, woken on its one LISTEN connection, which closes with its database', async () => {
    // Their DATA_DIR, where the API and the worker keep the secrets key they share, as `npm start` keeps it.
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'worker-lifecycle-'));
    onTestFinished(() => rm(dataDir, { recursive: true, force: true }));
    const db = await createTestDatabase();
    const receiver = await startReceiver();
    const config = { ...readConfig({ LOG_LEVEL: 'silent', PORT: '0', DATA_DIR: dataDir }), webhookAllowPrivateTargets: true };
    // As `npm start` runs them: the worker's test-run job, the API's caches and its jobs on one database handle.
    const worker = await startAgentWorker({ prisma: db.prisma, databaseUrl: db.url, changes: db.changes, config });
    const app = await startApi(config, { url: db.url, prisma: db.prisma, changes: db.changes, embedded: false, close: async () => {} });
    try {
      const { bootstrap } = await import('../../modules/organizations/bootstrap.js');
      const owner = await bootstrap(db.prisma, { organizationName: 'Wired', email: `wired-${Date.now()}@example.com` });
      const address = app.server.address() as { port: number };
      const res = await fetch(`http://127.0.0.1:${address.port}/api/organization/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiver.url, event_types: ['call.completed'] }),
      });
      expect(res.status).toBe(201);
      const event = await recordEvent(db.prisma, owner.organization_id, 'call.completed', { call_sid: 'CA-wired' });
      await receiver.until((got) => got.some((g) => g.id === event.id));
      const listening = () => db.prisma.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'`;
      // Webhook delivery, document processing, test runs and the assistant and key caches share the process's one.
      expect((await listening())[0]!.n).toBe(1);
      await worker.stop({ drainTimeoutMs: 0 });
      await app.close();
      await db.changes.close();
      expect(await until(async () => (await listening())[0]!.n === 0, 15_000)).toBe(true);
    } finally {
      await worker.stop({ drainTimeoutMs: 0 });
      await app.close();
      await receiver.close();
      await db.drop();
    }
  });
});
