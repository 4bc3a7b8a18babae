import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiContext, type ApiContext, type Tenant } from '../helpers/api.js';
import { BrowserSession } from '../helpers/browser-session.js';
import { hasChromium, launchChromium } from '../helpers/chromium.js';
import { addPerson, type Person } from '../helpers/people.js';
import { signIn } from '../helpers/sign-in.js';

// The organisation's settings page as its people use it, in Debian's Chromium: an owner changes how many calls may be
// under way at once and the country of local numbers, sees the default beside the limit and the API's refusal at its
// field; a member reads the same settings with nothing to change. What is stored is read back through the API and the
// database. Roles, tenancy and odd form shapes are checked request by request.

const WIDTHS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
const shotsDir = process.env.SCREENSHOTS_DIR ? path.resolve(process.env.SCREENSHOTS_DIR) : undefined;

let api: ApiContext;
let base: string;
let browser: Browser | undefined;
let tenant: Tenant;
let owner: Person;
let admin: Person;
let member: Person;

beforeAll(async () => {
  api = await createApiContext();
  tenant = await api.tenant('Settings Co');
  owner = await addPerson(api, tenant.organizationId, 'owner');
  admin = await addPerson(api, tenant.organizationId, 'admin');
  member = await addPerson(api, tenant.organizationId, 'member');
  if (!hasChromium) return;
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

async function signedIn(person: Person, viewport: { width: number; height: number } = WIDTHS.desktop): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser!.newContext({ viewport });
  const page = await context.newPage();
  await signIn(page, base, person);
  await page.goto(`${base}/settings`);
  return { context, page };
}

async function sessionOf(person: Person): Promise<BrowserSession> {
  return BrowserSession.signedIn(api.app, person, '/settings');
}

const stored = (organizationId = tenant.organizationId) => api.db.prisma.organization.findUniqueOrThrow({ where: { id: organizationId } });
const limitField = (page: Page) => page.getByRole('spinbutton', { name: 'Calls at once' });

describe.skipIf(!hasChromium)('the organisation settings page', () => {
  it('lets an owner change calls at once, with its unit and default beside it, and the API reads the new limit', async () => {
    const { context, page } = await signedIn(owner);
    expect(await page.getByRole('link', { name: 'Settings', exact: true }).getAttribute('aria-current')).toBe('page');
    expect(await limitField(page).inputValue()).toBe('10');
    expect(await page.locator('#f-max_concurrent_calls-hint').textContent()).toMatch(/Default 10 calls$/);
    expect(
      await page
        .locator('.setting', { has: limitField(page) })
        .locator('.unit')
        .textContent(),
    ).toBe('calls');
    await limitField(page).fill('25');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    expect(await limitField(page).inputValue()).toBe('25');
    expect((await stored()).maxConcurrentCalls).toBe(25);
    expect((await api.call(tenant, 'GET', '/api/organization/settings')).body.data).toMatchObject({ max_concurrent_calls: 25 });
    await context.close();
  });

  it('refuses no calls at once and too many at the field, keeping what was typed and the stored limit', async () => {
    const { context, page } = await signedIn(owner);
    for (const typed of ['0', '100000']) {
      await limitField(page).fill(typed);
      await page.getByRole('button', { name: 'Save' }).click();
      await page.locator('#f-max_concurrent_calls-error').waitFor();
      expect(await page.locator('#f-max_concurrent_calls-error').textContent()).toMatch(typed === '0' ? /1/ : /10000/);
      expect(await limitField(page).getAttribute('aria-invalid')).toBe('true');
      expect(await limitField(page).inputValue()).toBe(typed);
      expect(await page.getByRole('alert').textContent()).toBe('Not saved: see the marked fields.');
    }
    expect((await stored()).maxConcurrentCalls).toBe(25);
    await context.close();
  });

  it('picks the country of local numbers by its name', async () => {
    const { context, page } = await signedIn(owner);
    const country = page.getByLabel('Country of local numbers');
    expect(await country.locator('option:checked').textContent()).toBe('United States (US)');
    await country.selectOption({ label: 'United Kingdom (GB)' });
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    expect((await stored()).defaultRegion).toBe('GB');
    expect(await page.getByLabel('Country of local numbers').locator('option:checked').textContent()).toBe('United Kingdom (GB)');
    await context.close();
  });

  it('shows a member the settings read-only: the values in words, no field and no Save', async () => {
    const { context, page } = await signedIn(member);
    // Members find the page in the menu like everyone else.
    expect(await page.getByRole('link', { name: 'Settings', exact: true }).getAttribute('aria-current')).toBe('page');
    const facts = await page.locator('dl.settings-read').textContent();
    expect(facts).toMatch(/Calls at once\s*25 calls \(default 10\)/);
    expect(facts).toMatch(/Country of local numbers\s*United Kingdom \(GB\)/);
    expect(await page.getByText('Only owners and admins change these settings.').isVisible()).toBe(true);
    expect(await page.getByRole('spinbutton').count()).toBe(0);
    expect(await page.locator('main select, main input:not([type=hidden])').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
    await context.close();
  });

  it('fits a phone and a desktop, for an owner and a member, every control labelled', async () => {
    // One sign-in a person, the page seen at each width in turn.
    for (const [person, name] of [
      [owner, 'settings'],
      [member, 'settings-member'],
    ] as const) {
      const { context, page } = await signedIn(person);
      for (const [width, viewport] of Object.entries(WIDTHS)) {
        await page.setViewportSize(viewport);
        await page.reload();
        const layout = (await page.evaluate(`(() => ({
          overflow: document.documentElement.scrollWidth - window.innerWidth,
          unlabelled: [...document.querySelectorAll('input:not([type=hidden]), select, textarea')].filter((el) => !el.labels?.length).length,
        }))()`)) as { overflow: number; unlabelled: number };
        expect(layout.overflow, `${name} at ${width}`).toBeLessThanOrEqual(0);
        expect(layout.unlabelled, name).toBe(0);
        if (shotsDir) {
          await mkdir(shotsDir, { recursive: true });
          await page.screenshot({ path: path.join(shotsDir, `${name}-${width}.png`), fullPage: true });
        }
      }
      await context.close();
    }
  });
});

describe('organisation settings, request by request', () => {
  it('refuses a member’s change with 403 and changes nothing, while an admin’s is stored', async () => {
    const before = await stored();
    const refused = await (await sessionOf(member)).post('/settings', { max_concurrent_calls: '3' });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatch(/role="alert">Your role \(member\) does not allow this/);
    expect((await stored()).maxConcurrentCalls).toBe(before.maxConcurrentCalls);

    const saved = await (await sessionOf(admin)).post('/settings', { max_concurrent_calls: '40', default_phone_region: 'de' });
    expect(saved.status).toBe(302);
    expect(saved.location).toBe('/settings?saved=1');
    expect(await stored()).toMatchObject({ maxConcurrentCalls: 40, defaultRegion: 'DE' });
  });

  it('changes only the signed-in person’s organisation', async () => {
    const other = await api.tenant('Other settings');
    const otherOwner = await addPerson(api, other.organizationId, 'owner');
    const before = await stored();
    expect((await (await sessionOf(otherOwner)).post('/settings', { max_concurrent_calls: '7' })).status).toBe(302);
    expect((await stored(other.organizationId)).maxConcurrentCalls).toBe(7);
    expect((await stored()).maxConcurrentCalls).toBe(before.maxConcurrentCalls);
  });

  it('answers a form of any shape with a page, never a server error, and stores nothing refused', async () => {
    const session = await sessionOf(owner);
    const before = await stored();
    const form = (payload: string) =>
      session.request({
        method: 'POST',
        url: '/settings',
        payload: `_csrf=${encodeURIComponent(session.csrf)}&${payload}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    const refused = [
      await session.post('/settings', { max_concurrent_calls: 'many' }),
      await session.post('/settings', { max_concurrent_calls: '2.5' }),
      await session.post('/settings', { default_phone_region: 'Atlantis' }),
      await form('max_concurrent_calls=x&max_concurrent_calls=5'),
    ];
    for (const answer of refused) expect(answer.status, answer.body.slice(0, 300)).toBe(422);
    expect(refused[0]!.body).toMatch(/id="f-max_concurrent_calls-error">Use a whole number.</);
    expect(refused[0]!.body).toMatch(/id="f-max_concurrent_calls"[^>]*value="many"/);
    expect(refused[2]!.body).toMatch(/id="f-default_phone_region-error">Input should be an ISO 3166-1 alpha-2 region/);
    // A region the list does not offer is kept in the select as typed, not replaced by another.
    expect(refused[2]!.body).toMatch(/<option value="Atlantis" selected>Atlantis<\/option>/);

    const odd = [
      await session.api('POST', '/settings', { max_concurrent_calls: 5, name: 'Renamed' }),
      await session.api('POST', '/settings', [1, 2]),
      await session.post('/settings', { name: 'Renamed', organization_id: '999' }),
      await session.get('/settings?saved=%3Cb%3E'),
    ];
    for (const answer of odd) expect(answer.status, answer.body.slice(0, 300)).toBeLessThan(500);
    expect(await stored()).toMatchObject({ name: before.name, maxConcurrentCalls: before.maxConcurrentCalls, defaultRegion: before.defaultRegion });
  });
});
