import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeWav } from '../../media/wav.js';
import { LocalFileStorage } from '../../media/recording/storage.js';
import { createApiContext, type ApiContext, type Tenant } from '../helpers/api.js';
import { hasChromium, launchChromium } from '../helpers/chromium.js';
import { addPerson } from '../helpers/people.js';
import { until } from '../helpers/until.js';
import { startDocumentProcessing } from '../../modules/knowledge/processing.js';
import { signIn as signInOn } from '../helpers/sign-in.js';

// Every page of the dashboard, with data and empty, at a phone's width and a desktop's: it loads, fits the width, has
// a label on every control, and runs without a script error or a blocked resource. With SCREENSHOTS_DIR set (`npm run
// screenshots`), each is also saved there as <page>-<width>.png for review.

const WIDTHS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
const shotsDir = process.env.SCREENSHOTS_DIR ? path.resolve(process.env.SCREENSHOTS_DIR) : undefined;

let api: ApiContext;
let base: string;
let browser: Browser;
let tenant: Tenant;
let owner: { email: string; password: string };
let emptyOwner: { email: string; password: string };
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pages-'));
const ids: Record<string, string | number> = {};

beforeAll(async () => {
  if (!hasChromium) return;
  api = await createApiContext({ dataDir });
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  browser = await launchChromium();

  // A lived-in organisation: assistants, a call with transcript and recording, contacts, keys, people.
  tenant = await api.tenant('Acme Voice');
  owner = await addPerson(api, tenant.organizationId, 'owner');
  await addPerson(api, tenant.organizationId, 'admin');
  await addPerson(api, tenant.organizationId, 'member');
  const assistant = await api.call(tenant, 'POST', '/api/assistants', { name: 'Front desk', description: 'Answers the main line and books appointments.' });
  await api.call(tenant, 'POST', '/api/assistants', { name: 'After hours', is_active: false });
  ids.assistant = assistant.body.id;
  for (const [i, name] of ['Ada Lovelace', 'Grace Hopper', 'Alan Turing'].entries()) {
    const [first, last] = name.split(' ');
    await api.call(tenant, 'POST', '/api/contacts', {
      first_name: first,
      last_name: last,
      phone_number: `+1415555010${i}`,
      email: `${first!.toLowerCase()}@example.com`,
    });
  }
  ids.contact = (await api.db.prisma.contact.findFirstOrThrow({ where: { organizationId: tenant.organizationId } })).id;
  const started = new Date(Date.now() - 3600_000);
  const call = await api.db.prisma.call.create({
    data: {
      callSid: 'CAdemo0001',
      organizationId: tenant.organizationId,
      assistantId: Number(ids.assistant),
      direction: 'inbound',
      transport: 'browser',
      status: 'completed',
      fromNumber: '+14155550100',
      startedAt: started,
      endedAt: new Date(started.getTime() + 42_000),
      durationMs: 42_000,
      endReason: 'customer_hangup',
      summary: 'The caller booked a table for two on Friday at 7 pm.',
      outcomes: { goal_achieved: true, sentiment: 'positive' },
    },
  });
  ids.call = call.callSid;
  const turns = [
    ['user', 'Hi, can I book a table for Friday?', null],
    [
      'assistant',
      'Of course. For how many people, and at what time?',
      { end_of_utterance_delay_ms: 310, llm_ttft_ms: 420, tts_ttfb_ms: 180, e2e_latency_ms: 910 },
    ],
    ['user', 'Two people at seven.', null],
    ['assistant', 'Booked: a table for two on Friday at 7 pm.', { end_of_utterance_delay_ms: 280, llm_ttft_ms: 390, tts_ttfb_ms: 170, e2e_latency_ms: 840 }],
  ] as const;
  for (const [position, [role, text, metrics]] of turns.entries()) {
    await api.db.prisma.callTurn.create({
      data: {
        callId: call.id,
        position,
        role,
        text,
        startMs: position * 4000,
        endMs: position * 4000 + 2500,
        interrupted: false,
        ...(metrics ? { metrics } : {}),
      },
    });
  }
  const samples = new Int16Array(16_000 * 2).map((_, i) => Math.round(Math.sin(i / 8) * 8000));
  const wav = encodeWav({ samples, sampleRate: 16_000, channels: 1 });
  await mkdir(dataDir, { recursive: true });
  await new LocalFileStorage(dataDir).put('recordings/CAdemo0001/mixed.wav', wav);
  await api.db.prisma.callRecording.create({
    data: { callId: call.id, track: 'mixed', format: 'wav', storageKey: 'recordings/CAdemo0001/mixed.wav', durationMs: 2000, sizeBytes: wav.length },
  });

  const connection = (await api.call(tenant, 'POST', '/api/phone-connections', { name: 'Trunk', sip_address: 'sip.example.com' })).body.data.id;
  ids.connection = connection;
  await api.call(tenant, 'POST', '/api/phone-numbers', { number: '+14155550199', phone_connection_id: connection, assistant_id: ids.assistant });
  ids.campaign = (
    await api.call(tenant, 'POST', '/api/campaigns', { name: 'Spring reminders', assistant_id: ids.assistant, from_numbers: ['+14155550199'] })
  ).body.data.id;
  ids.tool = (
    await api.call(tenant, 'POST', '/api/tools', {
      name: 'lookup_order',
      description: 'Finds an order by its number',
      type: 'http',
      parameters: { type: 'object', properties: { number: { type: 'string' } } },
      http: { url: 'https://api.example.com/orders/{{args.number}}' },
    })
  ).body.data.id;
  ids.playbook = (
    await api.call(tenant, 'POST', '/api/playbooks', {
      name: 'Order status',
      goal: 'Tell the caller where their order is',
      instructions: ['Ask for the order number', 'Look it up'],
      tool_ids: [ids.tool],
    })
  ).body.data.id;
  ids.endpoint = (
    await api.call(tenant, 'POST', '/api/organization/webhooks', {
      url: 'https://hooks.example.com/voice',
      event_types: ['call.completed'],
      description: 'CRM',
    })
  ).body.data.id;

  await api.call(tenant, 'POST', '/api/widget-keys', {
    name: 'Shop site',
    assistant_id: ids.assistant,
    allowed_origins: ['https://shop.example.com', 'https://www.shop.example.com'],
    greeting: 'Ask us about your order.',
  });

  ids.document = (
    await api.call(tenant, 'POST', '/api/documents', { name: 'Opening hours', text: '# Hours\n\nWe open at nine, Monday to Saturday.' })
  ).body.data.id;
  const processing = startDocumentProcessing(api.db.prisma, { changes: api.db.changes, pollIntervalMs: 100 });
  await until(async () => (await api.db.prisma.document.findUniqueOrThrow({ where: { id: Number(ids.document) } })).status === 'ready', {
    timeoutMs: 20_000,
    message: 'the document is processed',
  });
  await processing.stop();

  await api.call(tenant, 'POST', '/api/contact-properties', { key: 'plan', label: 'Plan', type: 'select', options: ['gold', 'silver'] });

  // And an organisation with nothing in it, for the empty states.
  const empty = await api.tenant('Empty Co');
  await api.db.prisma.apiKey.updateMany({ where: { organizationId: empty.organizationId }, data: { revokedAt: new Date() } });
  emptyOwner = await addPerson(api, empty.organizationId, 'owner');
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await api?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function signIn(
  person: { email: string; password: string },
  viewport: { width: number; height: number },
  where: { timezoneId?: string; locale?: string } = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport, ...where });
  const page = await context.newPage();
  await signInOn(page, base, person);
  await page.close();
  return context;
}

// Run in the page (as text: this project's types have no DOM): how far the page sticks out of the screen and which
// outermost elements do, the form controls without a label, the page's heading.
const LAYOUT_PROBE = `(() => ({
  overflow: document.documentElement.scrollWidth - window.innerWidth,
  wide: [...document.querySelectorAll('body *')]
    .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1 && !(el.parentElement && el.parentElement.getBoundingClientRect().right > window.innerWidth + 1))
    .map((el) => el.outerHTML.slice(0, 100)),
  unlabelled: [...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
    .filter((el) => !el.labels?.length && !el.getAttribute('aria-label'))
    .map((el) => el.outerHTML.slice(0, 80)),
  h1: document.querySelector('h1')?.textContent ?? '',
}))()`;

/** What each tab saw go wrong since its last page began loading: console errors and uncaught script errors. */
const problemsOf = new WeakMap<Page, string[]>();

/** One tab to tour many pages in, as a person clicking through does: a tab a page costs Chromium a renderer each. */
async function tab(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  const problems: string[] = [];
  problemsOf.set(page, problems);
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`script: ${e.message}`));
  return page;
}

/** Loads `url` in `page` and checks what every page must hold. */
async function check(page: Page, url: string, name: string, width: keyof typeof WIDTHS): Promise<void> {
  const problems = problemsOf.get(page)!;
  problems.length = 0;
  const res = await page.goto(`${base}${url}`);
  expect(res?.status(), `${url}`).toBe(200);
  const layout = (await page.evaluate(LAYOUT_PROBE)) as { overflow: number; wide: string[]; unlabelled: string[]; h1: string };
  expect(layout.overflow, `${url} at ${width} is wider than the screen: ${layout.wide.join(' | ')}`).toBeLessThanOrEqual(0);
  expect(layout.unlabelled, `${url}: controls without a label`).toEqual([]);
  expect(layout.h1, `${url}: no heading`).not.toBe('');
  expect(problems, `${url}`).toEqual([]);
  if (shotsDir) {
    await mkdir(shotsDir, { recursive: true });
    await page.screenshot({ path: path.join(shotsDir, `${name}-${width}.png`), fullPage: true });
  }
}

const PAGES = (): [string, string][] => [
  ['/assistants', 'assistants'],
  ['/assistants/new', 'assistant-new'],
  [`/assistants/${ids.assistant}`, 'assistant-edit'],
  ['/calls', 'calls'],
  [`/calls/${ids.call}`, 'call'],
  ['/contacts', 'contacts'],
  [`/contacts/${ids.contact}`, 'contact'],
  ['/contacts/new', 'contact-new'],
  ['/contacts/properties', 'contact-properties'],
  ['/contacts/properties/new', 'contact-property-new'],
  ['/api-keys', 'api-keys'],
  ['/members', 'members'],
  ['/profile', 'profile'],
  ['/billing', 'billing'],
  ['/billing?period=this_month&timezone=Europe%2FParis&from=2026-03-01&to=2026-04-01', 'billing-custom'],
  ['/analytics', 'analytics'],
  ['/analytics?period=last_7_days', 'analytics-last-7-days'],
  ['/analytics/charts', 'charts'],
  ['/analytics/charts/new', 'chart-new'],
  ['/webhooks', 'webhooks'],
  ['/documents', 'documents'],
  ['/campaigns', 'campaigns'],
  ['/tools', 'tools'],
  ['/tools/new', 'tool-new'],
  [`/tools/${ids.tool}`, 'tool'],
  ['/playbooks', 'playbooks'],
  [`/playbooks/${ids.playbook}`, 'playbook'],
  ['/campaigns/new', 'campaign-new'],
  [`/campaigns/${ids.campaign}`, 'campaign'],
  [`/campaigns/${ids.campaign}/edit`, 'campaign-edit'],
  [`/documents/${ids.document}`, 'document'],
  [`/webhooks/${ids.endpoint}`, 'webhook'],
  ['/phone-numbers', 'phone-numbers'],
  [`/phone-numbers/connections/${ids.connection}`, 'phone-connection'],
  ['/settings', 'settings'],
  ['/widgets', 'widgets'],
];

describe.skipIf(!hasChromium)('every dashboard page', () => {
  for (const width of Object.keys(WIDTHS) as (keyof typeof WIDTHS)[]) {
    it(`loads at ${width} width, fits it, labels every control and runs without errors, with data and empty`, async () => {
      const full = await signIn(owner, WIDTHS[width]);
      const fullTab = await tab(full);
      for (const [url, name] of PAGES()) await check(fullTab, url, name, width);
      const empty = await signIn(emptyOwner, WIDTHS[width]);
      const emptyTab = await tab(empty);
      for (const [url, name] of [
        ['/assistants', 'assistants-empty'],
        ['/calls', 'calls-empty'],
        ['/contacts', 'contacts-empty'],
        ['/api-keys', 'api-keys-empty'],
        ['/webhooks', 'webhooks-empty'],
        ['/documents', 'documents-empty'],
        ['/campaigns', 'campaigns-empty'],
        ['/tools', 'tools-empty'],
        ['/playbooks', 'playbooks-empty'],
        ['/contacts/properties', 'contact-properties-empty'],
        ['/widgets', 'widgets-empty'],
      ] as const) {
        await check(emptyTab, url, name, width);
        expect(await emptyTab.locator('.empty').count(), `${url} has a readable empty state`).toBe(1);
      }
      const visitor = await browser.newContext({ viewport: WIDTHS[width] });
      const visitorTab = await tab(visitor);
      for (const [url, name] of [
        ['/login', 'login'],
        ['/forgot', 'forgot'],
        // The browser call's page, as a caller opens it (its socket is only opened by Start).
        ['/call/CA00000000000000000000000000000000', 'call-page'],
      ] as const)
        await check(visitorTab, url, name, width);
      await Promise.all([full.close(), empty.close(), visitor.close()]);
    }, 120_000);
  }

  it('keeps the menu behind one button on a phone, so the page starts at the top, and opens it from the keyboard too', async () => {
    const phone = await signIn(owner, WIDTHS.phone);
    const page = await phone.newPage();
    await page.goto(`${base}/calls`);
    const headingTop = () => page.evaluate(`document.querySelector('h1').getBoundingClientRect().top`) as Promise<number>;
    expect(await page.getByRole('link', { name: 'Contacts' }).isVisible()).toBe(false);
    // Below a one-line bar: the brand and the button.
    expect(await headingTop()).toBeLessThan(120);
    await page.getByText('Menu', { exact: true }).click();
    expect(await page.getByRole('link', { name: 'Contacts' }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
    await page.getByText('Menu', { exact: true }).click();
    expect(await page.getByRole('link', { name: 'Contacts' }).isVisible()).toBe(false);
    await page.getByRole('checkbox', { name: 'Menu' }).focus();
    await page.keyboard.press('Space');
    expect(await page.getByRole('link', { name: 'Contacts' }).isVisible()).toBe(true);
    // A desktop has no button: the sidebar is always open.
    await page.setViewportSize(WIDTHS.desktop);
    expect(await page.getByText('Menu', { exact: true }).isVisible()).toBe(false);
    await phone.close();
  });

  it('fits the members table on a phone: the role column wraps its select and button instead of scrolling the table sideways', async () => {
    const phone = await signIn(owner, WIDTHS.phone);
    const page = await phone.newPage();
    await page.goto(`${base}/members`);
    const fit = (await page.evaluate(`(() => {
      const wrap = document.querySelector('.table-wrap');
      const controls = [...wrap.querySelectorAll('td select, td button')].map((el) => el.getBoundingClientRect().right);
      return { scroll: wrap.scrollWidth - wrap.clientWidth, rightmost: Math.max(...controls), edge: wrap.getBoundingClientRect().right, selects: wrap.querySelectorAll('td select').length };
    })()`)) as { scroll: number; rightmost: number; edge: number; selects: number };
    expect(fit.selects).toBeGreaterThan(0);
    expect(fit.scroll, 'the members table scrolls sideways').toBeLessThanOrEqual(0);
    expect(fit.rightmost).toBeLessThanOrEqual(fit.edge);
    await phone.close();
  });

  it('plays the recording in the call’s page and shows each turn’s latency and times in the reader’s time zone', async () => {
    const reader = await signIn(owner, WIDTHS.desktop);
    const page = await reader.newPage();
    await page.goto(`${base}/calls/${ids.call}`);
    const duration = (await page.evaluate(`new Promise((resolve, reject) => {
      const audio = document.querySelector('audio');
      if (audio.readyState >= 1) resolve(audio.duration);
      audio.addEventListener('loadedmetadata', () => resolve(audio.duration));
      audio.addEventListener('error', () => reject(new Error('audio failed to load')));
    })`)) as number;
    expect(duration).toBeCloseTo(2, 1);
    expect(await page.locator('table').textContent()).toMatch(/Booked: a table for two on Friday at 7 pm\.\s*840 ms/);
    // Where the reply's time went, stage by stage.
    expect(await page.locator('tr', { hasText: 'Booked: a table' }).locator('.latency').textContent()).toMatch(
      /840 ms.*End of turn 280 ms.*Model first token 390 ms.*Voice first sound 170 ms/,
    );
    await reader.close();

    const tokyo = await signIn(owner, WIDTHS.desktop, { timezoneId: 'Asia/Tokyo', locale: 'en-GB' });
    const tokyoPage = await tokyo.newPage();
    await tokyoPage.goto(`${base}/calls/${ids.call}`);
    const started = tokyoPage.locator('dd time').first();
    const iso = (await started.getAttribute('datetime'))!;
    const expected = new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Asia/Tokyo' });
    expect(await started.textContent()).toBe(expected);
    await tokyo.close();
  });
});
