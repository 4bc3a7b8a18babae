import { initializeLogger } from '@livekit/agents';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audioRunnerOf } from '../../agent/io/audio-link.js';
import { LocalCallRunner } from '../../agent/local-runner.js';
import type { CallAudioRunner } from '../../modules/calls/audio-runner.js';
import { createApiContext, type ApiContext, type Tenant } from '../helpers/api.js';
import { hasChromium, launchChromiumAsking } from '../helpers/chromium.js';
import { until } from '../helpers/until.js';
import { localSettings } from '../runtime/call-harness.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/vendors/openai.js';
import { loopbackVendorAccess } from '../helpers/vendor-hosts.js';

// The website widget in Chromium, as a team's customer meets it: a page on another origin (another port of
// 127.0.0.1) loads /widget.js from the API's origin; its button opens a panel framing the call page, the fake
// microphone asks a question, and the assistant's answer is heard and shown. A page on an origin the key does not list
// shows no button, and a request it sends itself gets no call.

initializeLogger({ pretty: false, level: 'silent' });

let api: ApiContext;
let llm: FakeOpenAI;
let dir: string;
let base: string;
let browser: Browser;
let runner: CallAudioRunner | undefined;
let tenant: Tenant;
let publicKey: string;
let widgetKeyId: number;
/** The customer's site, listed on the key, and another site, not listed: each a server of its own on 127.0.0.1. */
let listedSite: { server: http.Server; url: string };
let unlistedSite: { server: http.Server; url: string };

/** A shop's page whose own styles would break a widget that shared them: every button and div restyled. */
function hostPage(scriptTag: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Shop</title>
<style>body { font: 18px Georgia, serif; margin: 2rem; background: #fffbe8; } button { background: lime !important; font-size: 40px; } div { border: 3px dashed red; }</style>
</head><body><h1>Garden tools</h1><p>Spades, rakes and hoes since 1921.</p><button type="button" id="own">Add to basket</button>${scriptTag}</body></html>`;
}

async function site(html: () => string): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const snippet = () => `<script src="${base}/widget.js" data-key="${publicKey}" async></script>`;

beforeAll(async () => {
  if (!hasChromium) return;
  llm = await startFakeOpenAI((body) => {
    const first = String(((body.messages ?? []) as Array<{ content: unknown }>)[0]?.content ?? '');
    if (first.startsWith('You analyse a finished phone call'))
      return { text: JSON.stringify({ summary: 'Asked the time.', goal_achieved: true, sentiment: 'neutral', fields: {} }) };
    return { text: 'It is noon.' };
  });
  dir = await mkdtemp(path.join(os.tmpdir(), 'widget-call-'));
  api = await createApiContext({ dataDir: dir, callAudioRunner: { open: (id) => runner!.open(id) } });
  runner = audioRunnerOf(new LocalCallRunner(api.db.prisma, dir, { access: loopbackVendorAccess() }));
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  tenant = await api.tenant('Shop');
  const assistantId = (await api.call(tenant, 'POST', '/api/assistants', localSettings(llm.url, { name: 'Shop desk' }))).body.id;

  listedSite = await site(() => hostPage(snippet()));
  unlistedSite = await site(() => hostPage(snippet()));
  const key = await api.call(tenant, 'POST', '/api/widget-keys', {
    name: 'Shop site',
    assistant_id: assistantId,
    allowed_origins: [listedSite.url],
    greeting: 'Ask us anything about our tools.',
  });
  expect(key.status).toBe(201);
  publicKey = key.body.data.public_key;
  widgetKeyId = key.body.data.id;

  browser = await launchChromiumAsking(dir, 'what time is it');
}, 180_000);
afterAll(async () => {
  await browser?.close();
  for (const s of [listedSite, unlistedSite]) if (s) await new Promise((resolve) => s.server.close(resolve));
  await api?.close();
  await llm?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

type CallState = { status: string; playedSamples: number; sentSamples: number; transcript: Array<{ role: string; text: string }> };

/** What the page's getComputedStyle is, to a test whose types know no DOM; each use runs inside the page. */
type Styled = { getComputedStyle(e: unknown): { backgroundColor: string; fontSize: string } };

async function callFrame(page: Page): Promise<Frame> {
  return until(() => page.frames().find((f) => f.url().startsWith(`${base}/call/`)) ?? null, { timeoutMs: 30_000, message: 'the call frame' });
}

describe.skipIf(!hasChromium)('the website widget in Chromium', () => {
  it('starts a call from a page on another origin, and the assistant answers the fake microphone inside the panel', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(listedSite.url);
    const button = page.getByRole('button', { name: 'Talk to us' });
    await button.waitFor({ timeout: 30_000 });
    // The page's own styles reach neither the widget's button nor its panel (shadow DOM), and the widget's none of the page.
    expect(await button.evaluate((b) => (globalThis as unknown as Styled).getComputedStyle(b).backgroundColor)).toBe('rgb(47, 91, 234)');
    expect(await page.locator('#own').evaluate((b) => (globalThis as unknown as Styled).getComputedStyle(b).fontSize)).toBe('40px');
    expect(await button.getAttribute('aria-expanded')).toBe('false');
    await page.screenshot({ path: '/tmp/widget-host-desktop.png' });

    // Keyboard: focus the button and press Enter.
    await button.focus();
    await page.keyboard.press('Enter');
    expect(await button.getAttribute('aria-expanded')).toBe('true');
    const dialog = page.getByRole('dialog', { name: 'Call' });
    await dialog.waitFor();
    expect(await dialog.getByText('Ask us anything about our tools.').isVisible()).toBe(true);

    const frame = await callFrame(page);
    const iframe = page.locator('voice-widget iframe');
    expect(await iframe.getAttribute('allow')).toBe('microphone; autoplay');
    // The call page starts on its own: the caller pressed the widget's button already.
    await frame.waitForFunction(() => (globalThis as unknown as { callState: CallState }).callState.status === 'In call', undefined, { timeout: 30_000 });
    await frame.waitForFunction(
      () => {
        const s = (globalThis as unknown as { callState: CallState }).callState;
        return s.playedSamples > 8000 && s.transcript.some((t) => t.role === 'assistant' && t.text === 'It is noon.');
      },
      undefined,
      { timeout: 60_000 },
    );
    const state = await frame.evaluate(() => (globalThis as unknown as { callState: CallState }).callState);
    expect(state.sentSamples).toBeGreaterThan(16_000);
    expect(state.transcript).toEqual(expect.arrayContaining([{ role: 'user', text: 'what time is it' }]));
    await page.screenshot({ path: '/tmp/widget-call-desktop.png' });

    // The call is the widget key's: the call list says which key started it.
    const callSid = frame.url().split('/call/')[1]!.split('?')[0]!;
    const listed = await api.call(tenant, 'GET', `/api/calls?widget_key_id=${widgetKeyId}`);
    expect(listed.body.data.map((c: { call_sid: string }) => c.call_sid)).toContain(callSid);

    // Closing the panel ends the call as the caller's hang-up, and gives focus back to the button.
    await page.getByRole('button', { name: 'End the call and close' }).click();
    expect(await button.getAttribute('aria-expanded')).toBe('false');
    expect(await page.locator('voice-widget iframe').count()).toBe(0);
    const ended = await until(
      async () => {
        const c = await api.db.prisma.call.findUnique({ where: { callSid } });
        return c && c.status === 'completed' ? c : null;
      },
      { timeoutMs: 30_000 },
    );
    expect(ended).toMatchObject({ transport: 'browser', widgetKeyId, endReason: 'customer_hangup' });
    await context.close();
  }, 150_000);

  it('fits a phone-width screen with the panel open', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 760 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    await page.goto(listedSite.url);
    const button = page.getByRole('button', { name: 'Talk to us' });
    await button.waitFor({ timeout: 30_000 });
    await button.click();
    const frame = await callFrame(page);
    await frame.waitForFunction(() => (globalThis as unknown as { callState: CallState }).callState.status === 'In call', undefined, { timeout: 30_000 });
    const box = await page.getByRole('dialog', { name: 'Call' }).boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    await page.screenshot({ path: '/tmp/widget-call-phone.png' });
    await page.getByRole('button', { name: 'End the call and close' }).click();
    await context.close();
  }, 90_000);

  it('shows no button on a page of an origin the key does not list, and a call that page asks for itself is never made', async () => {
    const before = await api.db.prisma.call.count();
    const context = await browser.newContext();
    const page = await context.newPage();
    const warned = page.waitForEvent('console', { predicate: (m) => m.text().includes('voice widget: not shown'), timeout: 30_000 });
    await page.goto(unlistedSite.url);
    await warned;
    expect(await page.locator('voice-widget').count()).toBe(0);
    // The page sends the widget's own request: its browser refuses it (CORS), and the API created nothing.
    const outcome = await page.evaluate(async (url) => {
      try {
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        return `status ${res.status}`;
      } catch (error) {
        return `refused: ${(error as Error).name}`;
      }
    }, `${base}/api/widget/${publicKey}/calls`);
    expect(outcome).toBe('refused: TypeError');
    expect(await api.db.prisma.call.count()).toBe(before);
    await context.close();
  }, 60_000);
});
