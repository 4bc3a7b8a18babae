import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiContext, type ApiContext, type Tenant } from '../helpers/api.js';
import { hasChromium, launchChromium } from '../helpers/chromium.js';
import { until } from '../helpers/until.js';

// A call page that gives its call up before joining it, in Chromium: the microphone refused, or missing, or the page
// closed while the permission was still being asked (each answer of the browser's microphone request is played by an
// init script, as the browser gives it). Either
// way the call ends at once as canceled, not joined, rather than holding its slot until the unstarted-call sweep. No
// audio is ever asked of the worker.

let api: ApiContext;
let base: string;
let browser: Browser;
let tenant: Tenant;
let assistantId: number;

beforeAll(async () => {
  if (!hasChromium) return;
  api = await createApiContext({
    callAudioRunner: {
      open() {
        throw new Error('no call audio in this file');
      },
    },
  });
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  tenant = await api.tenant('Acme');
  assistantId = (await api.call(tenant, 'POST', '/api/assistants', { name: 'Front desk' })).body.id as number;
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

async function newCall(): Promise<{ callSid: string; pageUrl: string }> {
  const res = await api.call(tenant, 'POST', '/api/web-calls/browser', { assistant_id: assistantId });
  expect(res.status).toBe(201);
  // Asked in-process, the link names no port: the same page on this server's.
  const link = new URL(res.body.data.page_url as string);
  return { callSid: res.body.data.call_sid, pageUrl: `${base}${link.pathname}${link.search}` };
}

const callOf = (callSid: string) => api.db.prisma.call.findUniqueOrThrow({ where: { callSid } });
/** The call once it is no longer queued. */
const endedCall = (callSid: string) => until(async () => (await callOf(callSid)).status !== 'queued' && callOf(callSid));

describe.skipIf(!hasChromium)('a browser call page given up before it joined', () => {
  // What a browser answers when the person refuses the permission, and when it has no capture device (this headless one
  // has none either; played here so that a machine with a microphone answers the same).
  it.each([
    { what: 'refused', error: "new DOMException('Permission denied', 'NotAllowedError')", shown: 'Microphone blocked' },
    { what: 'missing', error: "new DOMException('Requested device not found', 'NotFoundError')", shown: 'No microphone found' },
  ])(
    'ends its call when the microphone is $what, and says so on the page',
    async ({ error, shown }) => {
      const { callSid, pageUrl } = await newCall();
      const context = await browser.newContext();
      await context.addInitScript(`navigator.mediaDevices.getUserMedia = () => Promise.reject(${error});`);
      const page = await context.newPage();
      await page.goto(pageUrl);
      await page.getByRole('button', { name: 'Start' }).click();
      await page.locator('[data-call-part="status"]').filter({ hasText: shown }).waitFor();
      expect(await endedCall(callSid)).toMatchObject({ status: 'canceled', endReason: 'not_joined' });
      await context.close();
    },
    60_000,
  );

  it('ends its call when the page is closed while the microphone is still being asked for', async () => {
    const { callSid, pageUrl } = await newCall();
    const context = await browser.newContext();
    // A permission prompt nobody answers: the request for the microphone never settles.
    await context.addInitScript('navigator.mediaDevices.getUserMedia = () => new Promise(() => {});');
    const page = await context.newPage();
    await page.goto(pageUrl);
    await page.getByRole('button', { name: 'Start' }).click();
    await page.locator('[data-call-part="status"]').filter({ hasText: 'Connecting' }).waitFor();
    expect(await callOf(callSid)).toMatchObject({ status: 'queued' });
    await page.close({ runBeforeUnload: true });
    expect(await endedCall(callSid)).toMatchObject({ status: 'canceled', endReason: 'not_joined' });
    await context.close();
  }, 60_000);

  it('leaves a call alone whose page was opened and closed without Start: the link may be opened elsewhere', async () => {
    const { callSid, pageUrl } = await newCall();
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(pageUrl);
    await page.close({ runBeforeUnload: true });
    // The beacon a closing page sends would have arrived by the time a later request of the same browser does.
    const later = await context.request.get(`${base}/healthz`);
    expect(later.status()).toBeLessThan(500);
    expect(await callOf(callSid)).toMatchObject({ status: 'queued' });
    await context.close();
  }, 60_000);
});
