import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserSession } from '../helpers/browser-session.js';
import { createApiContext, type ApiContext, type Tenant } from '../helpers/api.js';
import { hasChromium, launchChromium } from '../helpers/chromium.js';
import { addPerson } from '../helpers/people.js';
import { signedInContext } from '../helpers/sign-in.js';
import { expectFitsAndShoot } from '../helpers/page-fit.js';

// A custom property and a contact's custom fields as a person fills them in, in Debian's Chromium: a select
// property's choices typed one a line, and a contact's custom fields each a control of its property's type, labelled
// with its label. What a save stores is read back from the database; refusals land at their controls with what was
// typed kept; both forms post without a script. With SCREENSHOTS_DIR set, the forms are saved there at a desktop's and
// a phone's width.

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

let api: ApiContext;
let base: string;
let browser: Browser | undefined;
let tenant: Tenant;
let owner: { email: string; password: string };

beforeAll(async () => {
  api = await createApiContext();
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  if (hasChromium) browser = await launchChromium();
  tenant = await api.tenant('Fields Co');
  owner = await addPerson(api, tenant.organizationId, 'owner');
  for (const property of [
    { key: 'company', label: 'Company', type: 'text' },
    { key: 'seats', label: 'Seats', type: 'number' },
    { key: 'renews_on', label: 'Renews on', type: 'date' },
    { key: 'vip', label: 'VIP customer', type: 'boolean' },
    { key: 'plan', label: 'Plan', type: 'select', options: ['gold', 'silver', 'bronze'] },
  ]) {
    const res = await api.call(tenant, 'POST', '/api/contact-properties', property);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

const signedIn = (viewport = DESKTOP, javaScriptEnabled = true): Promise<{ context: BrowserContext; page: Page }> =>
  signedInContext(browser!, base, owner, { viewport, javaScriptEnabled });

const contactBy = (phone: string) => api.db.prisma.contact.findFirstOrThrow({ where: { organizationId: tenant.organizationId, phoneNumber: phone } });
const propertyBy = (key: string) => api.db.prisma.contactProperty.findFirstOrThrow({ where: { organizationId: tenant.organizationId, key } });

/** How far the page sticks out of the screen, and the outermost elements that do. */

describe.skipIf(!hasChromium)('custom properties and custom fields in a browser', () => {
  let contactId: number;

  it('makes a select property from three choices typed one a line, the choices shown only for that type, and reads them back', async () => {
    const { context, page } = await signedIn();
    await page.goto(`${base}/contacts/properties/new`);
    expect(await page.getByLabel('Choices').isVisible()).toBe(false);
    await page.getByLabel('Key').fill('tier');
    await page.getByLabel('Label').fill('Support tier');
    await page.getByLabel('Type').selectOption({ label: 'One of a list' });
    await page.getByLabel('Choices').fill('Basic\nPro\nEnterprise');
    await expectFitsAndShoot(page, 'contact-property-new-1280');
    await page.getByRole('button', { name: 'Create property' }).click();
    await page.waitForURL(/\/contacts\/properties\/\d+$/);

    expect(await propertyBy('tier')).toMatchObject({ label: 'Support tier', type: 'select', options: ['Basic', 'Pro', 'Enterprise'] });
    // The key and the type are shown, no longer offered; the choices read back a line each.
    expect(await page.getByLabel('Key').count()).toBe(0);
    expect(await page.getByLabel('Choices').inputValue()).toBe('Basic\nPro\nEnterprise');
    await page.getByLabel('Choices').fill('Basic\nPro\nEnterprise\nEnterprise');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#f-options-error').waitFor();
    expect(await page.locator('#f-options-error').textContent()).toBe('Each choice only once: Enterprise is there twice.');
    expect(await page.getByLabel('Choices').inputValue()).toBe('Basic\nPro\nEnterprise\nEnterprise');
    await expectFitsAndShoot(page, 'contact-property-refused-1280');
    await context.close();
  });

  it('adds a contact with a text, a number and a select custom field, each through its own control, and reads them back', async () => {
    const { context, page } = await signedIn();
    await page.goto(`${base}/contacts/new`);
    await page.getByLabel('first name').fill('Ada');
    await page.getByLabel('phone number').fill('+14155550171');
    await page.getByLabel('Company').fill('Analytical Engines');
    await page.getByLabel('Seats').fill('12');
    await page.getByLabel('Plan').selectOption('silver');
    await page.getByLabel('Renews on').fill('2026-09-30');
    await page.getByLabel('VIP customer').check();
    await expectFitsAndShoot(page, 'contact-new-1280');
    await page.getByRole('button', { name: 'Add contact' }).click();
    await page.waitForURL(/\/contacts\/\d+\?created=1$/);
    await page.getByText('Contact added.').waitFor();

    const contact = await contactBy('+14155550171');
    contactId = contact.id;
    expect(contact.customFields).toEqual({ company: 'Analytical Engines', seats: 12, plan: 'silver', renews_on: '2026-09-30', vip: true });
    expect(await page.getByLabel('Company').inputValue()).toBe('Analytical Engines');
    expect(await page.getByLabel('Seats').inputValue()).toBe('12');
    expect(await page.getByLabel('Plan').inputValue()).toBe('silver');
    expect(await page.getByLabel('VIP customer').isChecked()).toBe(true);
    // A select property made in the form above is offered too, unset.
    expect(await page.getByLabel('Support tier').inputValue()).toBe('');
    await expectFitsAndShoot(page, 'contact-edit-1280');
    await context.close();
  });

  it('changes and clears custom fields on a contact’s page, and keeps everything typed when a field is refused', async () => {
    const { context, page } = await signedIn();
    await page.goto(`${base}/contacts/${contactId}`);
    await page.getByLabel('Company').fill('');
    await page.getByLabel('Plan').selectOption('gold');
    await page.getByLabel('VIP customer').uncheck();
    await page.getByLabel('Support tier').selectOption('Pro');
    await page.getByLabel('email').fill('not an email');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('alert').first().waitFor();
    expect(await page.locator('#f-email-error').textContent()).toBe('Use an email address, like name@example.com.');
    expect(await page.getByLabel('Plan').inputValue()).toBe('gold');
    expect(await page.getByLabel('Support tier').inputValue()).toBe('Pro');
    expect(await page.getByLabel('VIP customer').isChecked()).toBe(false);
    expect(await page.getByLabel('Company').inputValue()).toBe('');
    expect((await contactBy('+14155550171')).customFields).toMatchObject({ company: 'Analytical Engines', plan: 'silver' });

    await page.getByLabel('email').fill('ada@example.com');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    expect((await contactBy('+14155550171')).customFields).toEqual({ seats: 12, plan: 'gold', renews_on: '2026-09-30', vip: false, tier: 'Pro' });
    await context.close();
  });

  it('refuses to remove a choice contacts still hold, saying how many hold it', async () => {
    const { context, page } = await signedIn();
    const plan = await propertyBy('plan');
    await page.goto(`${base}/contacts/properties/${plan.id}`);
    await page.getByLabel('Choices').fill('silver\nbronze\nplatinum');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#f-options-error').waitFor();
    expect(await page.locator('#f-options-error').textContent()).toBe(
      'Still held by contacts: gold (1 contact). Change their value first, or keep the choice.',
    );
    expect(await page.getByLabel('Choices').inputValue()).toBe('silver\nbronze\nplatinum');
    expect((await propertyBy('plan')).options).toEqual(['gold', 'silver', 'bronze']);
    await context.close();
  });

  it('fits a phone’s width', async () => {
    const { context, page } = await signedIn(PHONE);
    await page.goto(`${base}/contacts/new`);
    await expectFitsAndShoot(page, 'contact-new-390');
    await page.goto(`${base}/contacts/${contactId}`);
    await expectFitsAndShoot(page, 'contact-edit-390');
    await page.goto(`${base}/contacts/properties/new`);
    await page.getByLabel('Type').selectOption('select');
    await page.getByRole('button', { name: 'Create property' }).click();
    await page.getByRole('alert').first().waitFor();
    await expectFitsAndShoot(page, 'contact-property-refused-390');
    await context.close();
  });

  it('submits both forms without JavaScript', async () => {
    const { context, page } = await signedIn(DESKTOP, false);
    await page.goto(`${base}/contacts/properties/new`);
    await page.getByLabel('Key').fill('region');
    await page.getByLabel('Label').fill('Region');
    await page.getByLabel('Type').selectOption({ label: 'One of a list' });
    await page.getByLabel('Choices').fill('North\nSouth');
    await page.getByRole('button', { name: 'Create property' }).click();
    await page.waitForURL(/\/contacts\/properties\/\d+$/);
    expect((await propertyBy('region')).options).toEqual(['North', 'South']);

    await page.goto(`${base}/contacts/new`);
    await page.getByLabel('phone number').fill('+14155550172');
    await page.getByLabel('Seats').fill('3.5');
    await page.getByLabel('Region', { exact: true }).selectOption('South');
    await page.getByRole('button', { name: 'Add contact' }).click();
    await page.waitForURL(/\/contacts\/\d+\?created=1$/);
    expect((await contactBy('+14155550172')).customFields).toEqual({ seats: 3.5, region: 'South' });
    await context.close();
  });
});

describe('the contact forms’ posts', () => {
  async function session() {
    return BrowserSession.signedIn(api.app, owner, '/contacts/new');
  }

  it('shows a custom field the service refuses at its control, in plain words, with what was typed', async () => {
    const s = await session();
    const res = await s.post('/contacts/new', { phone_number: '+14155550173', 'cf.seats': 'lots', 'cf.plan': 'platinum', 'cf.renews_on': 'soon' });
    expect(res.status).toBe(422);
    expect(res.body).toMatch(/id="f-cf-seats-error">Give a number, such as 42 or 3\.5\./);
    expect(res.body).toMatch(/id="f-cf-plan-error">Pick one of the choices\./);
    expect(res.body).toMatch(/id="f-cf-renews_on-error">Pick a date\./);
    expect(res.body).toContain('value="lots"');
    expect(res.body).toContain('<option selected>platinum</option>');
    expect(await api.db.prisma.contact.count({ where: { organizationId: tenant.organizationId, phoneNumber: '+14155550173' } })).toBe(0);
  });

  it('answers a malformed post with the form and its message, never a server error, and another organisation’s property is not found', async () => {
    const s = await session();
    const raw = (url: string, payload: string, type = 'application/x-www-form-urlencoded') =>
      s.request({ method: 'POST', url, payload, headers: { 'content-type': type, 'x-csrf-token': s.csrf } });
    const answers = [
      await raw('/contacts/new', `_csrf=${encodeURIComponent(s.csrf)}&phone_number=%2B14155550174&cf.seats=1&cf.seats=2&cf.vip=yes&cf.vip=maybe`),
      await raw('/contacts/new', JSON.stringify({ phone_number: ['x'], 'cf.plan': { a: 1 }, custom_fields: 5 }), 'application/json'),
      await raw('/contacts/properties', JSON.stringify([1, 2]), 'application/json'),
      await raw('/contacts/properties', `_csrf=${encodeURIComponent(s.csrf)}&key=Bad%20Key&type=nonsense&options=a`),
    ];
    for (const res of answers) {
      expect(res.status, res.body.slice(0, 300)).toBe(422);
      expect(res.body).toContain('class="notice bad" role="alert"');
    }
    expect(answers[0]!.body).toMatch(/id="f-cf-vip-error">Choose yes or no\./);
    expect(answers[3]!.body).toMatch(/id="f-type-error">Pick a type\./);
    const other = await api.tenant('Other fields');
    const theirs = (await api.call(other, 'POST', '/api/contact-properties', { key: 'secret', label: 'Secret', type: 'text' })).body.data.id;
    expect((await s.get(`/contacts/properties/${theirs}`)).status).toBe(404);
    expect((await s.post(`/contacts/properties/${theirs}`, { label: 'Mine now' })).status).toBe(404);
  });
});
