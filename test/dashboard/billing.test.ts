import { describe, expect } from 'vitest';
import { apiTest as it } from '../helpers/fixtures.js';
import { BrowserSession } from '../helpers/browser-session.js';
import { addPerson } from '../helpers/people.js';
import type { ApiContext } from '../helpers/api.js';

// Billing: the period's metered cost by component and by assistant, from the calls' own cost columns, and the limits.

async function signedIn(api: ApiContext, organizationId: number, role: 'owner' | 'admin' | 'member'): Promise<BrowserSession> {
  const browser = new BrowserSession(api.app);
  const person = await addPerson(api, organizationId, role);
  await browser.signIn(person.email, person.password);
  return browser;
}

describe('billing', () => {
  it('sums the period’s call costs by component and by assistant, with minutes and the concurrency limit, for owners and admins only', async ({
    api,
    tenant,
  }) => {
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

    const owner = await signedIn(api, tenant.organizationId, 'owner');
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

    const member = await signedIn(api, tenant.organizationId, 'member');
    expect((await member.api('GET', '/api/billing')).status).toBe(403);
    expect(await member.get('/assistants').then((r) => r.body)).not.toContain('href="/billing"');
    expect((await api.call(tenant, 'GET', '/api/billing')).status).toBe(403);
  });

  it('reports a custom period of dates read in the chosen time zone, and shows the API’s refusals of its bounds at their fields', async ({ api, tenant }) => {
    const assistant = (await api.call(tenant, 'POST', '/api/assistants', { name: 'Tokyo desk' })).body.id;
    const call = (sid: string, createdAt: string) =>
      api.db.prisma.call.create({
        data: {
          callSid: sid,
          organizationId: tenant.organizationId,
          assistantId: assistant,
          direction: 'inbound',
          status: 'completed',
          durationMs: 60_000,
          createdAt: new Date(createdAt),
          costLlmMicroUsd: 50_000n,
          costMicroUsd: 50_000n,
        },
      });
    // 1 March in Tokyo runs from 28 February 15:00 UTC to 1 March 15:00 UTC.
    await call('CAtokyo1', '2026-02-28T16:00:00Z');
    await call('CAtokyo2', '2026-03-01T14:00:00Z');
    await call('CAtokyo3', '2026-03-01T16:00:00Z');
    const admin = await signedIn(api, tenant.organizationId, 'admin');

    const res = await admin.api('GET', '/api/billing?from=2026-03-01&to=2026-03-02&timezone=Asia/Tokyo');
    expect(res.status).toBe(200);
    const bill = JSON.parse(res.body).data;
    expect(bill).toMatchObject({ calls: 2, period: { preset: null } });
    expect(bill.total).toBeCloseTo(0.1, 6);
    expect(Date.parse(bill.period.from)).toBe(Date.parse('2026-02-28T15:00:00Z'));
    const page = await admin.get('/billing?period=this_month&timezone=Asia%2FTokyo&from=2026-03-01&to=2026-03-02');
    expect(page.status).toBe(200);
    expect(page.body).toContain('$0.10');
    expect(page.body).toMatch(/id="f-from"[^>]*value="2026-03-01"/);

    const backwards = await admin.get('/billing?period=this_month&timezone=UTC&from=2026-03-02&to=2026-03-01');
    expect(backwards.status).toBe(422);
    expect(backwards.body).toMatch(/id="f-to-error">Value should be after `from`/);
    const apiBackwards = await admin.api('GET', '/api/billing?from=2026-03-02&to=2026-03-01');
    expect(apiBackwards.status).toBe(422);
    expect(JSON.parse(apiBackwards.body).detail[0].loc).toEqual(['query', 'to']);

    const half = await admin.get('/billing?period=this_month&timezone=UTC&from=2026-03-01&to=');
    expect(half.status).toBe(422);
    expect(half.body).toMatch(/id="f-to-error">Give both/);
    const notADate = await admin.get('/billing?period=this_month&timezone=Mars%2FOlympus&from=2026-13-40&to=2026-03-01');
    expect(notADate.status).toBe(422);
    expect(notADate.body).toMatch(/id="f-from-error">/);
    expect(notADate.body).toMatch(/id="f-timezone-error">/);
  });
});
