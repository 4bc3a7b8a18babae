import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserSession } from '../helpers/browser-session.js';
import { createApiContext, type ApiContext, type Tenant } from '../helpers/api.js';
import { hasChromium, launchChromium } from '../helpers/chromium.js';
import { addPerson } from '../helpers/people.js';
import { signedInContext } from '../helpers/sign-in.js';
import { expectFitsAndShoot } from '../helpers/page-fit.js';

// The saved chart's form as a product team fills it in, in Debian's Chromium: the measure and how it is shown from
// selects in words, the grouping and the filters ticked (assistants by name, contacts found by a search), the period a
// preset or two days. What a save stores is read back from the database; refusals land at their controls with what was
// typed kept; the form posts without a script; and another organisation's assistant is refused, never used. With
// SCREENSHOTS_DIR set, the form is saved there at a desktop's and a phone's width.

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

let api: ApiContext;
let base: string;
let browser: Browser | undefined;
let tenant: Tenant;
let owner: { email: string; password: string };
const assistants: Record<string, number> = {};
const contacts: Record<string, number> = {};
let theirAssistant: number;

beforeAll(async () => {
  api = await createApiContext();
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  if (hasChromium) browser = await launchChromium();
  tenant = await api.tenant('Chart Co');
  owner = await addPerson(api, tenant.organizationId, 'owner');
  for (const name of ['Front desk', 'Renewals caller']) assistants[name] = (await api.call(tenant, 'POST', '/api/assistants', { name })).body.id;
  const trunk = (await api.call(tenant, 'POST', '/api/phone-connections', { name: 'Trunk', sip_address: 'sip.example.com' })).body.data.id;
  expect((await api.call(tenant, 'POST', '/api/phone-numbers', { number: '+14155550121', phone_connection_id: trunk, label: 'Main line' })).status).toBe(201);
  for (const [first, last, phone] of [
    ['Ada', 'Lovelace', '+14155550131'],
    ['Grace', 'Hopper', '+14155550132'],
  ] as const) {
    contacts[first] = (await api.call(tenant, 'POST', '/api/contacts', { first_name: first, last_name: last, phone_number: phone })).body.data.id;
  }
  // Calls today, so a preview has something to draw.
  for (const [sid, assistant, status] of [
    ['CAchart1', 'Renewals caller', 'completed'],
    ['CAchart2', 'Renewals caller', 'failed'],
    ['CAchart3', 'Front desk', 'completed'],
  ] as const) {
    await api.db.prisma.call.create({
      data: { callSid: sid, organizationId: tenant.organizationId, assistantId: assistants[assistant], direction: 'inbound', transport: 'sip', status },
    });
  }
  const other = await api.tenant('Other charts');
  theirAssistant = (await api.call(other, 'POST', '/api/assistants', { name: 'Their caller' })).body.id;
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

const signedIn = (viewport = DESKTOP, javaScriptEnabled = true): Promise<{ context: BrowserContext; page: Page }> =>
  signedInContext(browser!, base, owner, { viewport, javaScriptEnabled });

const stored = (name: string) => api.db.prisma.analyticsChart.findFirstOrThrow({ where: { organizationId: tenant.organizationId, name } });

/** How far the page sticks out of the screen, and the outermost elements that do. */

const group = (page: Page, name: string) => page.getByRole('group', { name, exact: true });

describe.skipIf(!hasChromium)('the chart form in a browser', () => {
  let chartId: number;

  it('creates a chart by day and assistant, of two statuses and one assistant picked by name, over the last 7 days, and stores exactly that', async () => {
    const { context, page } = await signedIn();
    await page.goto(`${base}/analytics/charts/new`);
    // A new chart starts from the API's defaults, said in words.
    expect(await page.getByLabel('Period', { exact: true }).inputValue()).toBe('last_30_days');
    expect(await page.getByLabel('Series shown, at most').inputValue()).toBe('10');
    expect(await page.locator('#f-limit-hint').textContent()).toContain('Default 10 · 1 to 50');
    // The analysis field and the custom days show only when they apply.
    expect(await page.getByLabel('Field of the post-call analysis', { exact: true }).isVisible()).toBe(false);
    expect(await page.getByLabel('First day').isVisible()).toBe(false);

    await page.getByLabel('Name', { exact: true }).fill('Calls by assistant');
    await page.getByLabel('Measure').selectOption({ label: 'Calls (a count)' });
    await page.getByLabel('Drawn as').selectOption({ label: 'Bars' });
    await group(page, 'Over time').getByLabel('By day').check();
    await group(page, 'Split by').getByLabel('Assistant', { exact: true }).check();
    await group(page, 'Status').getByLabel('Completed').check();
    await group(page, 'Status').getByLabel('Failed').check();
    await group(page, 'Assistants').getByLabel('Renewals caller').check();
    await page.getByLabel('Period', { exact: true }).selectOption({ label: 'The last 7 days, today included' });
    await expectFitsAndShoot(page, 'chart-new-1280');
    await page.getByRole('button', { name: 'Create chart' }).click();
    await page.waitForURL(/\/analytics\/charts\/\d+$/);
    chartId = Number(new URL(page.url()).pathname.split('/').pop());

    const row = await stored('Calls by assistant');
    expect(row.id).toBe(chartId);
    expect(row.definition).toEqual({
      chart_type: 'bar',
      metric: 'calls',
      group_by: ['day', 'assistant'],
      filters: { status: ['completed', 'failed'], assistant_id: [assistants['Renewals caller']] },
      period: { preset: 'last_7_days' },
      timezone: 'UTC',
      limit: 10,
    });
    // The saved chart is drawn above its form, from the calls it counts: the Renewals caller's two.
    const preview = page.locator('.chart-preview');
    expect(await preview.getByRole('heading').textContent()).toBe('As saved');
    expect(await preview.locator('.bar-label').allTextContents()).toEqual(['Renewals caller']);
    // And the form reads back what was stored.
    expect(await group(page, 'Assistants').getByLabel('Renewals caller').isChecked()).toBe(true);
    expect(await group(page, 'Assistants').getByLabel('Front desk').isChecked()).toBe(false);
    expect(await group(page, 'Over time').getByLabel('By day').isChecked()).toBe(true);
    await expectFitsAndShoot(page, 'chart-edit-1280');
    await context.close();
  });

  it('saves a custom period from its first to its last day, the days shown once “Days of your choice” is picked', async () => {
    const { context, page } = await signedIn();
    await page.goto(`${base}/analytics/charts/${chartId}`);
    await page.getByLabel('Period', { exact: true }).selectOption({ label: 'Days of your choice' });
    await page.getByLabel('First day').fill('2026-03-01');
    await page.getByLabel('Last day').fill('2026-03-31');
    await page.getByLabel('Time zone').selectOption('Europe/Paris');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved.').waitFor();

    const row = await stored('Calls by assistant');
    expect(row.definition).toMatchObject({ period: { from: '2026-03-01', to: '2026-04-01' }, timezone: 'Europe/Paris' });
    expect(await page.getByLabel('Last day').inputValue()).toBe('2026-03-31');
    expect(await page.getByLabel('First day').isVisible()).toBe(true);
    await context.close();
  });

  it('shows each refusal at its control in plain words and keeps everything typed', async () => {
    const { context, page } = await signedIn();
    await page.goto(`${base}/analytics/charts/new`);
    await page.getByLabel('Name', { exact: true }).fill('Refused chart');
    await page.getByLabel('Measure').selectOption({ label: 'Top outcomes (calls per value of a field)' });
    // The measure reads a field: its line appears.
    await page.getByLabel('Field of the post-call analysis', { exact: true }).waitFor();
    await group(page, 'Status').getByLabel('Voicemail').check();
    await group(page, 'Assistants').getByLabel('Front desk').check();
    await page.getByLabel('Other numbers').fill('12345');
    await page.getByLabel('Series shown, at most').fill('5');
    await page.getByRole('button', { name: 'Create chart' }).click();
    await page.getByRole('alert').first().waitFor();

    expect(await page.locator('.notice.bad').textContent()).toBe('2 settings were refused: see the marked fields.');
    expect(await page.locator('#f-field-error').textContent()).toBe('Top outcomes reads a field of the post-call analysis: type one, such as sentiment.');
    expect(await page.getByLabel('Field of the post-call analysis', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#f-filters-phone_number-other-error').textContent()).toBe('12345: Not a phone number in international form, like +14155550123.');
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Refused chart');
    expect(await page.getByLabel('Measure').inputValue()).toBe('outcomes');
    expect(await group(page, 'Status').getByLabel('Voicemail').isChecked()).toBe(true);
    expect(await group(page, 'Assistants').getByLabel('Front desk').isChecked()).toBe(true);
    expect(await page.getByLabel('Other numbers').inputValue()).toBe('12345');
    expect(await page.getByLabel('Series shown, at most').inputValue()).toBe('5');
    await expectFitsAndShoot(page, 'chart-refused-1280');

    // Put right, a range that ends before it starts is refused at its last day, before anything is saved.
    await page.getByLabel('Field of the post-call analysis', { exact: true }).fill('sentiment');
    await page.getByLabel('Other numbers').fill('');
    await page.getByLabel('Period', { exact: true }).selectOption('custom');
    await page.getByLabel('First day').fill('2026-03-10');
    await page.getByLabel('Last day').fill('2026-03-05');
    await page.getByRole('button', { name: 'Create chart' }).click();
    await page.locator('#f-period-last_day-error').waitFor();
    expect(await page.locator('#f-period-last_day-error').textContent()).toBe('The last day is before the first.');
    expect(await page.getByLabel('First day').inputValue()).toBe('2026-03-10');
    expect(await api.db.prisma.analyticsChart.count({ where: { name: 'Refused chart' } })).toBe(0);
    await context.close();
  });

  it('finds contacts by name with Enter in the search, previews without saving, then saves the contact ticked', async () => {
    const { context, page } = await signedIn();
    await page.goto(`${base}/analytics/charts/new`);
    await page.getByLabel('Name', { exact: true }).fill('Ada’s calls');
    await page.getByLabel('Find contacts').fill('Lovelace');
    await page.getByLabel('Find contacts').press('Enter');
    await page.getByText('1 found for “Lovelace”').waitFor();
    // The search kept what was typed.
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Ada’s calls');
    await group(page, 'Contacts')
      .getByLabel(/Ada Lovelace/)
      .check();
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('heading', { name: 'Preview, not saved yet' }).waitFor();
    expect(await api.db.prisma.analyticsChart.count({ where: { name: 'Ada’s calls' } })).toBe(0);
    expect(
      await group(page, 'Contacts')
        .getByLabel(/Ada Lovelace/)
        .isChecked(),
    ).toBe(true);
    await page.getByRole('button', { name: 'Create chart' }).click();
    await page.waitForURL(/\/analytics\/charts\/\d+$/);
    expect((await stored('Ada’s calls')).definition).toMatchObject({ filters: { contact_id: [contacts.Ada] } });
    await context.close();
  });

  it('fits a phone’s width, new, refused and saved', async () => {
    const { context, page } = await signedIn(PHONE);
    await page.goto(`${base}/analytics/charts/new`);
    await expectFitsAndShoot(page, 'chart-new-390');
    await page.getByLabel('Name', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Create chart' }).click();
    await page.getByRole('alert').first().waitFor();
    await expectFitsAndShoot(page, 'chart-refused-390');
    await page.goto(`${base}/analytics/charts/${chartId}`);
    await expectFitsAndShoot(page, 'chart-edit-390');
    await context.close();
  });

  it('submits without JavaScript: the custom days, a contact search and the boxes are plain fields', async () => {
    const { context, page } = await signedIn(DESKTOP, false);
    await page.goto(`${base}/analytics/charts/new`);
    await page.getByLabel('Name', { exact: true }).fill('Without script');
    await page.getByLabel('Measure').selectOption({ label: 'Call length (seconds)' });
    await page.getByLabel('Shown as').selectOption({ label: 'Median (p50)' });
    await group(page, 'Split by').getByLabel('Direction (in or out)').check();
    await group(page, 'Direction').getByLabel('Going out').check();
    await page.getByLabel('Period', { exact: true }).selectOption('custom');
    await page.getByLabel('First day').fill('2026-01-01');
    await page.getByLabel('Last day').fill('2026-01-31');
    await page.getByLabel('Find contacts').fill('Hopper');
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await group(page, 'Contacts')
      .getByLabel(/Grace Hopper/)
      .check();
    // The end reasons fold away until opened; their boxes say what each means.
    await page.locator('details.reasons > summary').click();
    await group(page, 'End reasons').getByLabel('Transferred').check();
    await expectFitsAndShoot(page, 'chart-new-noscript-1280');
    await page.getByRole('button', { name: 'Create chart' }).click();
    await page.waitForURL(/\/analytics\/charts\/\d+$/);
    expect((await stored('Without script')).definition).toEqual({
      chart_type: 'line',
      metric: 'duration_seconds',
      aggregation: 'p50',
      group_by: ['direction'],
      filters: { direction: ['outbound'], end_reason: ['transferred'], contact_id: [contacts.Grace] },
      period: { from: '2026-01-01', to: '2026-02-01' },
      timezone: 'UTC',
      limit: 10,
    });
    await context.close();
  });
});

describe('the chart form’s posts', () => {
  async function session() {
    return BrowserSession.signedIn(api.app, owner, '/analytics/charts/new');
  }
  const raw = (s: BrowserSession, url: string, payload: string, type = 'application/x-www-form-urlencoded') =>
    s.request({ method: 'POST', url, payload, headers: { 'content-type': type, 'x-csrf-token': s.csrf } });

  it('refuses another organisation’s assistant at its box, never naming it, and stores nothing', async () => {
    const s = await session();
    const form = new URLSearchParams([
      ['_csrf', s.csrf],
      ['name', 'Tenancy check'],
      ['metric', 'calls'],
      ['filters.assistant_id', String(assistants['Front desk'])],
      ['filters.assistant_id', String(theirAssistant)],
    ]);
    const res = await raw(s, '/analytics/charts', form.toString());
    expect(res.status).toBe(422);
    expect(res.body).toMatch(/id="f-filters-assistant_id-\d+-error">Not one of this organisation’s assistants: untick it\./);
    expect(res.body).toContain(`Assistant ${theirAssistant}`);
    expect(res.body).not.toContain('Their caller');
    expect(await api.db.prisma.analyticsChart.count({ where: { name: 'Tenancy check' } })).toBe(0);
    // A search never finds another organisation's contacts, nor a preview their calls.
    const other = await api.tenant('Other contacts');
    await api.call(other, 'POST', '/api/contacts', { first_name: 'Hidden', last_name: 'Person', phone_number: '+14155550199' });
    const found = await raw(
      s,
      '/analytics/charts',
      new URLSearchParams([
        ['_csrf', s.csrf],
        ['intent', 'find'],
        ['contact_search', 'Hidden'],
      ]).toString(),
    );
    expect(found.status).toBe(200);
    expect(found.body).toContain('No contacts match “Hidden”.');
  });

  it('answers a malformed post with the form and its message, never a server error', async () => {
    const s = await session();
    const answers = [
      await s.post('/analytics/charts', {}),
      await s.post('/analytics/charts', {
        name: 'x',
        metric: 'nonsense',
        limit: 'lots',
        timezone: 'Mars/Olympus',
        'period.preset': 'custom',
        'period.from': 'soon',
      }),
      await raw(
        s,
        '/analytics/charts',
        `_csrf=${encodeURIComponent(s.csrf)}&name=A&name=B&filters.contact_id=x&filters.contact_id=99999999999999999999&group_by=weird`,
      ),
      await raw(s, '/analytics/charts', JSON.stringify({ name: { a: 1 }, group_by: [[1]], 'filters.status': { x: 1 } }), 'application/json'),
      await raw(s, '/analytics/charts', JSON.stringify([1, 2, 3]), 'application/json'),
    ];
    for (const res of answers) {
      expect(res.status, res.body.slice(0, 300)).toBe(422);
      expect(res.body).toContain('class="notice bad" role="alert"');
    }
    expect(answers[1]!.body).toMatch(/id="f-limit-error">Give a whole number\./);
    expect(answers[1]!.body).toMatch(/id="f-period-from-error">Pick the first day\./);
    expect(answers[1]!.body).toMatch(/id="f-timezone-error">Not a time zone this service knows/);
    // What was typed is kept, offered as it was, for the person to correct.
    expect(answers[1]!.body).toContain('<option value="Mars/Olympus" selected>');
    // Another organisation's chart is not found, to read or to change.
    const theirs = await api.tenant('Other saved charts');
    const chart = (await api.call(theirs, 'POST', '/api/analytics/charts', { name: 'Theirs', metric: 'calls' })).body.data.id;
    expect((await s.get(`/analytics/charts/${chart}`)).status).toBe(404);
    expect((await s.post(`/analytics/charts/${chart}`, { name: 'Mine now', metric: 'calls' })).status).toBe(404);
  });
});
