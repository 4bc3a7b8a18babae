import { describe, expect } from 'vitest';
import { startWebhookDelivery, type WebhookDeliveryOptions } from '../../modules/webhooks/delivery-worker.js';
import { freePort } from '../../prisma/embedded-postgres.js';
import { recordEvent } from '../../modules/webhooks/events.js';
import type { Tenant } from '../helpers/api.js';
import { signatureValid, startReceiver, type Receiver } from '../fakes/webhook-receiver.js';
import { apiTest } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';
import crypto from 'node:crypto';
import { SecretBox } from '../../lib/secret-box.js';

const BASE = '/api/organization/webhooks';

/** A call.completed payload in the documented shape (docs/events.md). */
function completedCall(callSid: string) {
  return {
    call_sid: callSid,
    status: 'completed',
    direction: 'outbound',
    assistant_id: 7,
    contact_id: null,
    from_number: '+15550100000',
    to_number: '+15550100001',
    started_at: '2026-11-21T10:00:00.000Z',
    ended_at: '2026-11-21T10:01:30.000Z',
    duration_seconds: 90,
    end_reason: 'caller_hung_up',
    summary: 'The caller booked a table for two.',
    outcomes: { booked: true },
    transcript: [{ role: 'assistant', text: 'Hello!', start_ms: 0, end_ms: 800, interrupted: false }],
    recordings: [{ track: 'mixed', format: 'mp3', duration_ms: 90_000, size_bytes: 720_000 }],
  };
}

/** The API seals signing secrets with it, and the workers open them with it. */
const secrets = new SecretBox(crypto.randomBytes(32));

/** Short schedules so that retries happen within a test; the shape of the policy is the production one. */
const FAST: WebhookDeliveryOptions = {
  secrets,
  allowPrivateTargets: true,
  pollIntervalMs: 100,
  retryScheduleMs: [200, 400, 800],
  jitterRatio: 0.2,
  requestTimeoutMs: 2_000,
  leaseMs: 5_000,
};

/** An API whose webhook delivery worker runs for the whole file, with receivers that each test closes. */
function deliveryTest(allowPrivateTargets: boolean) {
  return apiTest
    .extend('apiOptions', { scope: 'file' }, { allowPrivateWebhookTargets: allowPrivateTargets, secrets })
    .extend('worker', { scope: 'file', auto: true }, async ({ api }, { onCleanup }) => {
      const worker = startWebhookDelivery(api.db.prisma, { ...FAST, allowPrivateTargets, changes: api.db.changes });
      onCleanup(() => worker.stop());
      return worker;
    })
    .extend('receiver', async ({}, { onCleanup }) => {
      const started: Receiver[] = [];
      onCleanup(async () => void (await Promise.all(started.map((r) => r.close()))));
      return async (options: Parameters<typeof startReceiver>[0] = {}): Promise<Receiver> => {
        const r = await startReceiver(options);
        started.push(r);
        return r;
      };
    })
    .extend(
      'endpointFor',
      { scope: 'file' },
      async ({ api }) =>
        async (url: string, eventTypes = ['call.completed']): Promise<{ tenant: Tenant; id: number; secret: string }> => {
          const tenant = await api.tenant();
          const res = await api.call(tenant, 'POST', BASE, { url, event_types: eventTypes });
          expect(res.status).toBe(201);
          return { tenant, id: res.body.data.id, secret: res.body.data.secret };
        },
    )
    .extend('log', { scope: 'file' }, async ({ api }) => async (tenant: Tenant, endpointId: number) => {
      const res = await api.call(tenant, 'GET', `${BASE}/${endpointId}/deliveries?limit=200`);
      expect(res.status).toBe(200);
      return res.body.data as any[];
    });
}
const privateTargetsTest = deliveryTest(true);
const publicTargetsTest = deliveryTest(false);

describe('webhook delivery', () => {
  const it = privateTargetsTest;

  it('POSTs call.completed signed as Standard Webhooks do, matchable on call_sid, with the event id as webhook-id', async ({
    api,
    receiver,
    endpointFor,
    log,
  }) => {
    const r = await receiver();
    const { tenant, id, secret } = await endpointFor(r.url);
    const event = await recordEvent(api.db.prisma, tenant.organizationId, 'call.completed', completedCall('CA100'));
    await r.until((got) => got.length >= 1);
    const [got] = r.received;
    expect(got!.id).toBe(event.id);
    expect(got!.signatures).toHaveLength(1);
    expect(signatureValid(secret, got!, got!.signatures[0]!)).toBe(true);
    expect(signatureValid(secret, { ...got!, body: got!.body.replace('two', 'three') }, got!.signatures[0]!)).toBe(false);
    expect(Math.abs(Number(got!.timestamp) - Date.now() / 1000)).toBeLessThan(300);
    expect(got!.json).toEqual({ id: event.id, type: 'call.completed', timestamp: event.createdAt.toISOString(), data: completedCall('CA100') });
    const attempts = await until(async () => {
      const items = await log(tenant, id);
      return items.length > 0 && items;
    }, 15_000);
    expect(attempts[0]).toMatchObject({
      event_id: event.id,
      event_type: 'call.completed',
      attempt: 1,
      succeeded: true,
      response_status: 200,
      error: null,
      next_retry_at: null,
    });
    expect(attempts[0].duration_ms).toEqual(expect.any(Number));
  });

  it('keeps retrying with backoff while the receiver is down, and delivers once it is up', async ({ api, receiver, endpointFor, log }) => {
    const port = await freePort();
    const { tenant, id, secret } = await endpointFor(`http://127.0.0.1:${port}/down-then-up`);
    const event = await recordEvent(api.db.prisma, tenant.organizationId, 'call.completed', completedCall('CA200'));
    // Two refused attempts, then the receiver comes up on that port.
    await until(async () => (await log(tenant, id)).length >= 2, 15_000);
    const r = await receiver({ port });
    await r.until((got) => got.some((g) => g.id === event.id));
    const got = r.received.find((g) => g.id === event.id)!;
    expect(signatureValid(secret, got, got.signatures[0]!)).toBe(true);
    const attempts = await until(async () => {
      const items = await log(tenant, id);
      return items.some((a) => a.succeeded) && items;
    }, 15_000);
    const oldestFirst = [...attempts].reverse();
    expect(oldestFirst.at(-1)).toMatchObject({ succeeded: true, response_status: 200 });
    const failures = oldestFirst.slice(0, -1);
    expect(failures.length).toBeGreaterThanOrEqual(2);
    for (const failure of failures) {
      expect(failure).toMatchObject({ succeeded: false, response_status: null, error: 'connection refused' });
      expect(Date.parse(failure.next_retry_at)).toBeGreaterThan(Date.parse(failure.attempted_at));
    }
    expect(oldestFirst.map((a) => a.attempt)).toEqual(oldestFirst.map((_, i) => i + 1));
  });

  it('ends an attempt the receiver does not answer at the request timeout, and retries it', async ({ api, receiver, endpointFor, log }) => {
    const r = await receiver({ reply: (i) => (i === 0 ? 'hold' : { status: 204 }) });
    const { tenant, id } = await endpointFor(r.url);
    const event = await recordEvent(api.db.prisma, tenant.organizationId, 'call.completed', completedCall('CA250'));
    await r.until((got) => got.length === 2);
    expect(r.received.map((g) => g.id)).toEqual([event.id, event.id]);
    const attempts = await until(async () => {
      const items = await log(tenant, id);
      return items.length === 2 && items;
    }, 15_000);
    expect(attempts[1]).toMatchObject({ attempt: 1, succeeded: false, response_status: null, error: 'timed out after 2000 ms' });
    expect(attempts[1].duration_ms).toBeGreaterThanOrEqual(2_000);
    expect(attempts[0]).toMatchObject({ attempt: 2, succeeded: true, response_status: 204 });
  });

  it('gives up after the last scheduled retry and says so in the log', async ({ api, receiver, endpointFor, log }) => {
    const r = await receiver({ reply: () => ({ status: 500 }) });
    const { tenant, id } = await endpointFor(r.url);
    await recordEvent(api.db.prisma, tenant.organizationId, 'call.completed', completedCall('CA300'));
    const attempts = await until(async () => {
      const items = await log(tenant, id);
      return items.length === 4 && items[0].next_retry_at === null && items;
    }, 15_000);
    expect(attempts.map((a) => a.attempt)).toEqual([4, 3, 2, 1]);
    expect(attempts.every((a) => a.response_status === 500 && !a.succeeded)).toBe(true);
    const delivery = await api.db.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId: id } });
    expect(delivery.status).toBe('failed');
    expect(r.received).toHaveLength(4);
  });

  it('disables the endpoint when the receiver answers 410, and queues nothing more for it', async ({ api, receiver, endpointFor, log }) => {
    const r = await receiver({ reply: () => ({ status: 410 }) });
    const { tenant, id } = await endpointFor(r.url);
    await recordEvent(api.db.prisma, tenant.organizationId, 'call.completed', completedCall('CA400'));
    const endpoint = await until(async () => {
      const res = await api.call(tenant, 'GET', `${BASE}/${id}`);
      return res.body.data.enabled === false && res.body.data;
    }, 15_000);
    expect(endpoint.disabled_reason).toMatch(/410/);
    const [attempt] = await log(tenant, id);
    expect(attempt).toMatchObject({ response_status: 410, succeeded: false, next_retry_at: null });
    await recordEvent(api.db.prisma, tenant.organizationId, 'call.completed', completedCall('CA401'));
    expect(await api.db.prisma.webhookDelivery.count({ where: { endpointId: id } })).toBe(1);
    const redeliver = await api.call(tenant, 'POST', `${BASE}/${id}/deliveries/${attempt.delivery_id}/redeliver`);
    expect(redeliver.status).toBe(409);
    const enabled = await api.call(tenant, 'PATCH', `${BASE}/${id}`, { enabled: true });
    expect(enabled.body.data).toMatchObject({ enabled: true, disabled_reason: null });
    expect(r.received).toHaveLength(1);
  });

  it('redelivers a delivered event on request, with the same webhook-id', async ({ api, receiver, endpointFor, log }) => {
    const r = await receiver();
    const { tenant, id } = await endpointFor(r.url);
    const event = await recordEvent(api.db.prisma, tenant.organizationId, 'call.completed', completedCall('CA500'));
    await r.until((got) => got.length === 1);
    const [first] = await until(async () => {
      const items = await log(tenant, id);
      return items.length === 1 && items;
    }, 15_000);
    const res = await api.call(tenant, 'POST', `${BASE}/${id}/deliveries/${first.delivery_id}/redeliver`);
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ id: first.delivery_id, event_id: event.id, status: 'pending' });
    await r.until((got) => got.length === 2);
    expect(r.received.map((g) => g.id)).toEqual([event.id, event.id]);
    const attempts = await until(async () => {
      const items = await log(tenant, id);
      return items.length === 2 && items;
    }, 15_000);
    expect(attempts.map((a) => [a.attempt, a.succeeded])).toEqual([
      [2, true],
      [1, true],
    ]);
    const missing = await api.call(tenant, 'POST', `${BASE}/${id}/deliveries/2147483647/redeliver`);
    expect(missing.status).toBe(404);
  });

  it('signs with both secrets during a rotation overlap, and with the new one alone once the overlap is over', async ({ api, receiver, endpointFor }) => {
    const r = await receiver();
    const { tenant, id, secret: oldSecret } = await endpointFor(r.url);
    const rotated = await api.call(tenant, 'POST', `${BASE}/${id}/rotate-secret`, { overlap_seconds: 3600 });
    const newSecret = rotated.body.data.secret as string;
    await recordEvent(api.db.prisma, tenant.organizationId, 'call.completed', completedCall('CA600'));
    await r.until((got) => got.length === 1);
    const during = r.received[0]!;
    expect(during.signatures).toHaveLength(2);
    expect(signatureValid(newSecret, during, during.signatures[0]!)).toBe(true);
    expect(signatureValid(oldSecret, during, during.signatures[1]!)).toBe(true);
    // A receiver that still knows only the old secret accepts the delivery: one of the signatures is valid for it.
    expect(during.signatures.some((s) => signatureValid(oldSecret, during, s))).toBe(true);

    const again = await api.call(tenant, 'POST', `${BASE}/${id}/rotate-secret`, { overlap_seconds: 0 });
    const newest = again.body.data.secret as string;
    await recordEvent(api.db.prisma, tenant.organizationId, 'call.completed', completedCall('CA601'));
    await r.until((got) => got.length === 2);
    const after = r.received[1]!;
    expect(after.signatures).toHaveLength(1);
    expect(signatureValid(newest, after, after.signatures[0]!)).toBe(true);
    expect(signatureValid(newSecret, after, after.signatures[0]!)).toBe(false);
  });

  it('delivers each of 1,000 events to a slow, flaky receiver from two workers side by side: none lost', async ({ api, receiver, endpointFor }) => {
    // Every request waits 20 ms. The first request of every 7th event answers 503 after the body arrived, so those
    // events are retried and arrive twice; their retries succeed, so none exhausts the short test schedule.
    const seen = new Set<string>();
    let r: Receiver;
    r = await receiver({
      reply: () => {
        const id = r.received.at(-1)!.id;
        const first = !seen.has(id);
        seen.add(id);
        return first && seen.size % 7 === 0 ? { status: 503, delayMs: 20 } : { status: 200, delayMs: 20 };
      },
    });
    const { tenant, id, secret } = await endpointFor(r.url);
    const second = startWebhookDelivery(api.db.prisma, { ...FAST, changes: api.db.changes, concurrency: 16 });
    try {
      const ids = new Set<string>();
      for (let batch = 0; batch < 10; batch++) {
        await api.db.prisma.$transaction(async (tx) => {
          for (let i = 0; i < 100; i++) {
            const event = await recordEvent(tx, tenant.organizationId, 'call.completed', completedCall(`CA7${batch}${i}`));
            ids.add(event.id);
          }
        });
      }
      await r.until((got) => new Set(got.map((g) => g.id)).size >= 1_000 && got.length >= 1_000 + Math.floor(1_000 / 7), 40_000);
      expect(r.ids()).toEqual(ids);
      expect(r.received.length).toBeGreaterThanOrEqual(1_000 + Math.floor(1_000 / 7));
      const sample = r.received.slice(0, 50);
      expect(sample.every((g) => signatureValid(secret, g, g.signatures[0]!))).toBe(true);
      const deliveries = await until(async () => {
        const rows = await api.db.prisma.webhookDelivery.groupBy({ by: ['status'], where: { endpointId: id }, _count: true });
        return rows.length === 1 && rows[0]!.status === 'succeeded' && rows;
      }, 15_000);
      expect(deliveries[0]!._count).toBe(1_000);
      // Every request the receiver got is an attempt in the log: duplicates come from retries, never from two workers
      // holding the same delivery.
      const attempts = await api.db.prisma.webhookDeliveryAttempt.count({ where: { endpointId: id } });
      expect(r.received.length).toBeLessThanOrEqual(attempts);
      expect(await api.db.prisma.webhookDeliveryAttempt.count({ where: { endpointId: id, error: { startsWith: 'attempt interrupted' } } })).toBe(0);
    } finally {
      await second.stop();
    }
  }, 120_000);
});

describe('webhook delivery to non-public addresses', () => {
  const it = publicTargetsTest;

  it('is refused after DNS resolution when the host name resolves to loopback', async ({ api, receiver }) => {
    const r = await receiver();
    const tenant = await api.tenant();
    const created = await api.call(tenant, 'POST', BASE, { url: `http://localhost:${r.port}/hooks`, event_types: ['call.completed'] });
    expect(created.status).toBe(201);
    await recordEvent(api.db.prisma, tenant.organizationId, 'call.completed', completedCall('CA800'));
    const attempts = await until(async () => {
      const res = await api.call(tenant, 'GET', `${BASE}/${created.body.data.id}/deliveries`);
      return res.body.data.length >= 2 && res.body.data;
    }, 15_000);
    expect(attempts.every((a: any) => a.error === 'target address is not public' && a.response_status === null)).toBe(true);
    expect(r.received).toHaveLength(0);
  });
});
