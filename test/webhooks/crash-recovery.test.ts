import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../modules/webhooks/events.js';
import { createApiContext, type ApiContext } from '../helpers/api.js';
import { eventually, signatureValid, startReceiver, type Receiver } from '../fakes/webhook-receiver.js';

const SCRIPT = path.join(import.meta.dirname, 'deliver-process.ts');
/** Longer than the test's whole wait for the held request, so the first attempt can only end by the kill. */
const REQUEST_TIMEOUT_MS = 20_000;
/** Short lease: the second process may take the delivery over 2 s after the first claimed it. */
const LEASE_MS = 2_000;

async function startDeliveringProcess(databaseUrl: string): Promise<ChildProcess> {
  // Node itself with tsx as a loader (not the tsx launcher), so SIGKILL hits the process that holds the connection.
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], {
    env: { ...process.env, DATABASE_URL: databaseUrl, REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), LEASE_MS: String(LEASE_MS) },
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
  let ctx: ApiContext;
  let receiver: Receiver;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    ctx = await createApiContext({ allowPrivateWebhookTargets: true });
    // The first request is held open until the test ends; later ones are answered.
    receiver = await startReceiver({ reply: (i) => (i === 0 ? 'hold' : { status: 200 }) });
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(children.map(killed));
    await receiver.close();
    await ctx.close();
  });

  it('leaves the delivery to the next process, which delivers it after the lease expires: at least once', async () => {
    const tenant = await ctx.tenant();
    const created = await ctx.call(tenant, 'POST', '/api/organization/webhooks', { url: receiver.url, event_types: ['call.completed'] });
    const { id: endpointId, secret } = created.body.data;

    const first = await startDeliveringProcess(ctx.db.url);
    children.push(first);
    const event = await recordEvent(ctx.db.prisma, tenant.organizationId, 'call.completed', { call_sid: 'CA-crash' });
    await receiver.until((got) => got.length === 1);
    first.kill('SIGKILL');
    await killed(first);

    const second = await startDeliveringProcess(ctx.db.url);
    children.push(second);
    await receiver.until((got) => got.length === 2, 20_000);
    expect(receiver.received.map((g) => g.id)).toEqual([event.id, event.id]);
    const delivered = receiver.received[1]!;
    expect(signatureValid(secret, delivered, delivered.signatures[0]!)).toBe(true);

    const attempts = await eventually(async () => {
      const res = await ctx.call(tenant, 'GET', `/api/organization/webhooks/${endpointId}/deliveries`);
      return res.body.data.length === 2 ? res.body.data : undefined;
    });
    expect(attempts.map((a: any) => [a.attempt, a.succeeded])).toEqual([
      [2, true],
      [1, false],
    ]);
    expect(attempts[1].error).toMatch(/interrupted/);
    const row = await ctx.db.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId } });
    expect(row).toMatchObject({ status: 'succeeded', attempts: 2, leaseToken: null });
    second.kill('SIGTERM');
    await killed(second);
    expect(second.exitCode).toBe(0);
  });
});
