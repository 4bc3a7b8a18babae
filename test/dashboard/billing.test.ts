import { describe, expect } from 'vitest';
import { apiTest as it } from '../helpers/fixtures.js';
import { BrowserSession } from '../helpers/browser-session.js';
import { addPerson } from '../helpers/people.js';

// Billing: the period's metered cost by component and by assistant, from the calls' own cost columns, and the limits.

describe('billing', () => {
  it('sums the period’s call costs by component and by assistant, with minutes and the concurrency limit, for owners and admins only', async ({ api, tenant }) => {
    const assistant = (await api.call(tenant, 'POST', '/api/assistants', { name: 'Billed desk' })).body.id;
    const now = new Date();
    const call = (sid: string, micro: { llm: number; stt: number; tts: number; telephony: number }, durationMs: number, createdAt = now) =>
      api.db.prisma.call.create({
        data: {
          callSid: sid,
          organizationId: tenant.organizationId,
          assistantId: assistant,
          direction: 'inbound',
          status: 'completed',
          durationMs,
          createdAt,
          costLlmMicroUsd: BigInt(micro.llm),
          costSttMicroUsd: BigInt(micro.stt),
          costTtsMicroUsd: BigInt(micro.tts),
          costTelephonyMicroUsd: BigInt(micro.telephony),
          costMicroUsd: BigInt(micro.llm + micro.stt + micro.tts + micro.telephony),
        },
      });
    await call('CAbill1', { llm: 10_000, stt: 20_000, tts: 30_000, telephony: 40_000 }, 60_000);
    await call('CAbill2', { llm: 1_000, stt: 2_000, tts: 3_000, telephony: 4_000 }, 120_000);
    // Outside the period.
    await call('CAbill3', { llm: 9_000_000, stt: 0, tts: 0, telephony: 0 }, 60_000, new Date(now.getTime() - 400 * 24 * 3600_000));

    const owner = new BrowserSession(api.app);
    const o = await addPerson(api, tenant.organizationId, 'owner');
    await owner.signIn(o.email, o.password);
    const res = await owner.api('GET', '/api/billing?period=last_30_days');
    expect(res.status).toBe(200);
    const bill = JSON.parse(res.body).data;
    expect(bill).toMatchObject({ currency: 'USD', calls: 2, payment: 'none', limits: { max_concurrent_calls: 10, active_calls: 0 } });
    expect(bill.total).toBeCloseTo(0.11, 6);
    expect(bill.minutes).toBeCloseTo(3, 6);
    expect(bill.by_component.llm).toBeCloseTo(0.011, 6);
    expect(bill.by_component.telephony).toBeCloseTo(0.044, 6);
    expect(bill.by_assistant).toEqual([{ assistant_id: assistant, name: 'Billed desk', total: expect.closeTo(0.11, 6), minutes: expect.closeTo(3, 6) }]);

    const page = await owner.get('/billing?period=last_30_days');
    expect(page.status).toBe(200);
    expect(page.body).toContain('$0.11');
    expect(page.body).toContain('Billed desk');

    const member = new BrowserSession(api.app);
    const m = await addPerson(api, tenant.organizationId, 'member');
    await member.signIn(m.email, m.password);
    expect((await member.api('GET', '/api/billing')).status).toBe(403);
    expect(await member.get('/assistants').then((r) => r.body)).not.toContain('href="/billing"');
    expect((await api.call(tenant, 'GET', '/api/billing')).status).toBe(403);
  });
});
