import crypto from 'node:crypto';
import { describe, expect } from 'vitest';
import { startApi } from '../../api/server.js';
import { readConfig } from '../../lib/config.js';
import { SecretBox } from '../../lib/secret-box.js';
import { keyContext } from '../../modules/assistants/keys.js';
import { bootstrap } from '../../modules/organizations/bootstrap.js';
import { startWebhookDelivery } from '../../modules/webhooks/delivery-worker.js';
import { UNSIGNABLE_ERROR } from '../../modules/webhooks/delivery-attempt.js';
import { sealClearWebhookSecrets } from '../../modules/webhooks/endpoints.js';
import { recordEvent } from '../../modules/webhooks/events.js';
import { generateSecret, secretContext } from '../../modules/webhooks/signing.js';
import { signatureValid, startReceiver, type Receiver } from '../fakes/webhook-receiver.js';
import type { Tenant } from '../helpers/api.js';
import { createTestDatabase } from '../helpers/database.js';
import { apiTest } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';

// Signing secrets are stored sealed: the row holds no secret in the clear, reads show only the hint, and the delivery
// worker opens them (with the API's SECRETS_KEY) to sign, so receivers verify exactly as before. Secrets a release
// that did not seal them wrote in the clear keep signing until they are sealed.

const BASE = '/api/organization/webhooks';
const secrets = new SecretBox(crypto.randomBytes(32));

const it = apiTest
  .extend('apiOptions', { scope: 'file' }, { allowPrivateWebhookTargets: true, secrets })
  .extend('worker', { scope: 'file', auto: true }, async ({ api }, { onCleanup }) => {
    const worker = startWebhookDelivery(api.db.prisma, {
      secrets,
      allowPrivateTargets: true,
      changes: api.db.changes,
      pollIntervalMs: 100,
      retryScheduleMs: [200, 400],
      requestTimeoutMs: 2_000,
    });
    onCleanup(() => worker.stop());
    return worker;
  })
  .extend('receiver', async ({}, { onCleanup }) => {
    const r = await startReceiver();
    onCleanup(() => r.close());
    return r;
  })
  .extend('endpointFor', { scope: 'file' }, async ({ api }) => async (url: string): Promise<{ tenant: Tenant; id: number; secret: string }> => {
    const tenant = await api.tenant();
    const res = await api.call(tenant, 'POST', BASE, { url, event_types: ['call.completed'] });
    expect(res.status).toBe(201);
    return { tenant, id: res.body.data.id, secret: res.body.data.secret };
  });

async function deliveredTo(r: Receiver, api: { db: { prisma: import('../../prisma/client.js').PrismaClient } }, tenant: Tenant, callSid: string) {
  const event = await recordEvent(api.db.prisma, tenant.organizationId, 'call.completed', { call_sid: callSid });
  await r.until((got) => got.some((g) => g.id === event.id), 15_000);
  return r.received.find((g) => g.id === event.id)!;
}

describe('webhook signing secrets', () => {
  it('are shown once at creation, stored sealed, and read back only as their hint', async ({ api, receiver, endpointFor }) => {
    const { tenant, id, secret } = await endpointFor(receiver.url);
    expect(secret).toMatch(/^whsec_/);
    const row = await api.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } });
    expect(row.secret).not.toContain(secret.slice('whsec_'.length));
    expect(row.secret).toMatch(/^v1\./);
    expect(secrets.open(row.secret, secretContext(tenant.organizationId))).toBe(secret);

    const read = await api.call(tenant, 'GET', `${BASE}/${id}`);
    expect(read.body.data.secret_hint).toBe(`${secret.slice(0, 10)}…`);
    expect(read.body.data).not.toHaveProperty('secret');
    const listed = await api.call(tenant, 'GET', BASE);
    expect(JSON.stringify(listed.body)).not.toContain(secret.slice(10));
    const updated = await api.call(tenant, 'PATCH', `${BASE}/${id}`, { description: 'edited' });
    expect(updated.body.data.secret_hint).toBe(read.body.data.secret_hint);
    expect(JSON.stringify(updated.body)).not.toContain(secret.slice(10));
  });

  it('sign deliveries that the receiver verifies with the secret it was given', async ({ api, receiver, endpointFor }) => {
    const { tenant, secret } = await endpointFor(receiver.url);
    const got = await deliveredTo(receiver, api, tenant, 'CA-sealed');
    expect(got.signatures).toHaveLength(1);
    expect(signatureValid(secret, got, got.signatures[0]!)).toBe(true);
  });

  it('are both sealed after a rotation, and both sign during its overlap', async ({ api, receiver, endpointFor }) => {
    const { tenant, id, secret: oldSecret } = await endpointFor(receiver.url);
    const rotated = await api.call(tenant, 'POST', `${BASE}/${id}/rotate-secret`, { overlap_seconds: 3600 });
    const newSecret = rotated.body.data.secret as string;
    const row = await api.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } });
    expect([row.secret, row.previousSecret].map((s) => secrets.open(s!, secretContext(tenant.organizationId)))).toEqual([newSecret, oldSecret]);
    const got = await deliveredTo(receiver, api, tenant, 'CA-rotated');
    expect(signatureValid(newSecret, got, got.signatures[0]!)).toBe(true);
    expect(signatureValid(oldSecret, got, got.signatures[1]!)).toBe(true);
  });

  it('sealed under another SECRETS_KEY send nothing unsigned: the attempt fails and is retried', async ({ api, receiver, endpointFor }) => {
    const { tenant, id } = await endpointFor(receiver.url);
    const stranger = new SecretBox(crypto.randomBytes(32));
    await api.db.prisma.webhookEndpoint.update({ where: { id }, data: { secret: stranger.seal(generateSecret(), secretContext(tenant.organizationId)) } });
    await recordEvent(api.db.prisma, tenant.organizationId, 'call.completed', { call_sid: 'CA-unsignable' });
    const attempts = await until(async () => {
      const res = await api.call(tenant, 'GET', `${BASE}/${id}/deliveries`);
      return res.body.data.length >= 2 && res.body.data;
    }, 15_000);
    expect(attempts[0]).toMatchObject({ succeeded: false, response_status: null, error: UNSIGNABLE_ERROR });
    expect(receiver.received).toHaveLength(0);
    const read = await api.call(tenant, 'GET', `${BASE}/${id}`);
    expect(read.body.data.secret_hint).toBe('whsec_…');
  });
});

describe('webhook signing secrets stored in the clear by an earlier release', () => {
  async function clearEndpoint(api: { db: { prisma: import('../../prisma/client.js').PrismaClient } }, tenant: Tenant, url: string) {
    const secret = generateSecret();
    const row = await api.db.prisma.webhookEndpoint.create({
      data: { organizationId: tenant.organizationId, url, eventTypes: ['call.completed'], secret, updatedAt: new Date('2026-01-02T03:04:05.000Z') },
    });
    return { id: row.id, secret };
  }

  it('keep signing, and read as their hint', async ({ api, receiver }) => {
    const tenant = await api.tenant();
    const { id, secret } = await clearEndpoint(api, tenant, receiver.url);
    const read = await api.call(tenant, 'GET', `${BASE}/${id}`);
    expect(read.body.data.secret_hint).toBe(`${secret.slice(0, 10)}…`);
    const got = await deliveredTo(receiver, api, tenant, 'CA-clear');
    expect(signatureValid(secret, got, got.signatures[0]!)).toBe(true);
  });

  it('are sealed by a rotation, the replaced one still signing through the overlap', async ({ api, receiver }) => {
    const tenant = await api.tenant();
    const { id, secret: oldSecret } = await clearEndpoint(api, tenant, receiver.url);
    const rotated = await api.call(tenant, 'POST', `${BASE}/${id}/rotate-secret`, { overlap_seconds: 600 });
    const row = await api.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } });
    expect(row.previousSecret).toMatch(/^v1\./);
    expect(secrets.open(row.previousSecret!, secretContext(tenant.organizationId))).toBe(oldSecret);
    const got = await deliveredTo(receiver, api, tenant, 'CA-clear-rotated');
    expect(signatureValid(rotated.body.data.secret, got, got.signatures[0]!)).toBe(true);
    expect(signatureValid(oldSecret, got, got.signatures[1]!)).toBe(true);
  });

  it('are sealed by the start-up pass, which changes nothing else and finds nothing the second time', async ({ api, receiver }) => {
    const tenant = await api.tenant();
    const { id, secret } = await clearEndpoint(api, tenant, receiver.url);
    await api.db.prisma.webhookEndpoint.update({
      where: { id },
      data: { previousSecret: generateSecret(), previousSecretExpiresAt: new Date(Date.now() + 60_000), updatedAt: new Date('2026-01-02T03:04:05.000Z') },
    });
    const before = await api.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } });
    expect(await sealClearWebhookSecrets(api.db.prisma, secrets)).toBeGreaterThanOrEqual(1);
    const after = await api.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } });
    expect(after.updatedAt).toEqual(before.updatedAt);
    expect(secrets.open(after.secret, secretContext(tenant.organizationId))).toBe(secret);
    expect(secrets.open(after.previousSecret!, secretContext(tenant.organizationId))).toBe(before.previousSecret);
    expect(await sealClearWebhookSecrets(api.db.prisma, secrets)).toBe(0);
    const got = await deliveredTo(receiver, api, tenant, 'CA-pass');
    expect(signatureValid(secret, got, got.signatures[0]!)).toBe(true);
  });
});

describe('an API process starting', () => {
  it('seals with its SECRETS_KEY the signing secrets and vendor keys an earlier release stored in the clear', async () => {
    const db = await createTestDatabase();
    const key = crypto.randomBytes(32);
    try {
      const owner = await bootstrap(db.prisma, { organizationName: 'Upgraded', email: `upgraded-${Date.now()}@example.com` });
      const secret = generateSecret();
      const endpoint = await db.prisma.webhookEndpoint.create({
        data: { organizationId: owner.organization_id, url: 'https://example.com/hook', eventTypes: ['*'], secret },
      });
      const assistant = await db.prisma.assistant.create({
        data: {
          organizationId: owner.organization_id,
          userId: owner.user_id,
          name: 'Upgraded',
          llmProviderConfig: { custom_config: { api_key: 'sk-written-in-the-clear-0001' } },
          llmSettings: {},
          llmFallbackProviders: {},
          sttSettings: {},
          ttsSettings: { provider: 'elevenlabs', provider_config: {} },
          ragSettings: {},
          recordingSettings: {},
          interruptionSettings: {},
        },
      });
      const config = readConfig({ LOG_LEVEL: 'silent', PORT: '0', SECRETS_KEY: key.toString('base64') });
      const app = await startApi(config, { url: db.url, prisma: db.prisma, changes: db.changes, embedded: false, close: async () => {} });
      await app.close();
      const box = new SecretBox(key);
      const sealedEndpoint = await db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
      expect(box.open(sealedEndpoint.secret, secretContext(owner.organization_id))).toBe(secret);
      const sealedAssistant = await db.prisma.assistant.findUniqueOrThrow({ where: { id: assistant.id } });
      const stored = (sealedAssistant.llmProviderConfig as { custom_config: { api_key: string } }).custom_config.api_key;
      expect(box.open(stored, keyContext(owner.organization_id))).toBe('sk-written-in-the-clear-0001');
    } finally {
      await db.drop();
    }
  });
});
