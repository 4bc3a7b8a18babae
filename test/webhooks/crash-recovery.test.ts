import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { recordEvent } from '../../modules/webhooks/events.js';
import { signatureValid, startReceiver, type Receiver } from '../fakes/webhook-receiver.js';
import { apiTestWith } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';
import crypto from 'node:crypto';
import { SecretBox } from '../../lib/secret-box.js';

/** SECRETS_KEY of the API and of the delivering processes: they open the signing secrets the API sealed. */
const SECRETS_KEY = crypto.randomBytes(32);

const it = apiTestWith({ allowPrivateWebhookTargets: true, secrets: new SecretBox(SECRETS_KEY) });

const SCRIPT = path.join(import.meta.dirname, 'deliver-process.ts');
/** Longer than the test's whole wait for the held request, so the first attempt can only end by the kill. */
const REQUEST_TIMEOUT_MS = 20_000;
/** Short lease: the second process may take the delivery over 2 s after the first claimed it. */
const LEASE_MS = 2_000;

async function startDeliveringProcess(databaseUrl: string): Promise<ChildProcess> {
  // Node itself with tsx as a loader (not the tsx launcher), so SIGKILL hits the process that holds the connection.
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      LEASE_MS: String(LEASE_MS),
      SECRETS_KEY: SECRETS_KEY.toString('base64'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (c) => (output += c));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`delivering process did not start in 15 s: ${output}`)), 15_000);
    child.stdout!.on('data', (c: Buffer) => {
      if (c.toString().includes('ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`delivering process exited with ${code}: ${output}`));
    });
  });
  return child;
}

function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

describe('a delivering process killed mid-attempt', () => {
  let receiver: Receiver;
  const children: ChildProcess[] = [];
  it.beforeAll(async () => {
    // The first request is held open until the test ends; later ones are answered.
    receiver = await startReceiver({ reply: (i) => (i === 0 ? 'hold' : { status: 200 }) });
  });
  it.afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(children.map(killed));
    await receiver.close();
  });

  it('leaves the delivery to the next process, which delivers it after the lease expires: at least once', async ({ api }) => {
    const tenant = await api.tenant();
    const created = await api.call(tenant, 'POST', '/api/organization/webhooks', { url: receiver.url, event_types: ['call.completed'] });
    const { id: endpointId, secret } = created.body.data;

    const first = await startDeliveringProcess(api.db.url);
    children.push(first);
    const event = await recordEvent(api.db.prisma, tenant.organizationId, 'call.completed', { call_sid: 'CA-crash' });
    await receiver.until((got) => got.length === 1);
    first.kill('SIGKILL');
    await killed(first);

    const second = await startDeliveringProcess(api.db.url);
    children.push(second);
    await receiver.until((got) => got.length === 2, 20_000);
    expect(receiver.received.map((g) => g.id)).toEqual([event.id, event.id]);
    const delivered = receiver.received[1]!;
    expect(signatureValid(secret, delivered, delivered.signatures[0]!)).toBe(true);

    const attempts = await until(async () => {
      const res = await api.call(tenant, 'GET', `/api/organization/webhooks/${endpointId}/deliveries`);
      return res.body.data.length === 2 && res.body.data;
    }, 15_000);
    expect(attempts.map((a: any) => [a.attempt, a.succeeded])).toEqual([
      [2, true],
      [1, false],
    ]);
    expect(attempts[1].error).toMatch(/interrupted/);
    const row = await api.db.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId } });
    expect(row).toMatchObject({ status: 'succeeded', attempts: 2, leaseToken: null });
    second.kill('SIGTERM');
    await killed(second);
    expect(second.exitCode).toBe(0);
  });
});
