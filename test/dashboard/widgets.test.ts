import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiContext, type ApiContext, type Tenant } from '../helpers/api.js';
import { hasChromium, launchChromium } from '../helpers/chromium.js';
import { addPerson, type Person } from '../helpers/people.js';
import { signedInContext } from '../helpers/sign-in.js';

// The Website widgets page in Chromium: a widget created with its origins, a refused origin shown at its field, the
// script tag to paste shown with its copy button, a widget edited (its key and script tag unchanged), and a revoked
// widget's key refused by the public routes at once.

let api: ApiContext;
let base: string;
let browser: Browser;
let tenant: Tenant;
let owner: Person;

beforeAll(async () => {
  if (!hasChromium) return;
  api = await createApiContext();
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  tenant = await api.tenant('Acme');
  owner = await addPerson(api, tenant.organizationId, 'owner');
  await api.call(tenant, 'POST', '/api/assistants', { name: 'Front desk' });
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

describe.skipIf(!hasChromium)('the Website widgets page', () => {
  it('creates a widget from its origins, shows the snippet to paste, and revokes it', async () => {
    const { context, page } = await signedInContext(browser, base, owner, { viewport: { width: 1280, height: 900 } });
    await page.goto(`${base}/widgets`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Website widgets');
    expect(await page.locator('.empty').textContent()).toContain('No widgets yet');

    // A path in an origin is refused at the field, and what was typed stays.
    await page.getByLabel('Name').fill('Shop');
    await page.getByLabel('Allowed origins').fill('https://shop.example.com/checkout');
    await page.getByRole('button', { name: 'Create widget' }).click();
    await page.waitForSelector('#f-allowed_origins-error');
    expect(await page.locator('#f-allowed_origins-error').textContent()).toContain('without a path');
    expect(await page.getByLabel('Name').inputValue()).toBe('Shop');
    expect(await api.db.prisma.widgetKey.count()).toBe(0);

    await page.getByLabel('Allowed origins').fill('https://shop.example.com\nhttp://127.0.0.1:8080');
    await page.getByLabel('Calls per minute').fill('5');
    await page.getByLabel('Greeting').fill('Ask us about your order.');
    await page.getByRole('button', { name: 'Create widget' }).click();
    await page.getByRole('status').filter({ hasText: 'Widget “Shop” created' }).waitFor();
    const key = await api.db.prisma.widgetKey.findFirstOrThrow({ where: { organizationId: tenant.organizationId } });
    expect(key).toMatchObject({
      allowedOrigins: ['https://shop.example.com', 'http://127.0.0.1:8080'],
      rateLimitPerMinute: 5,
      greeting: 'Ask us about your order.',
    });
    const snippet = await page.locator(`#snippet-${key.id}`).textContent();
    expect(snippet).toBe(`<script src="${base}/widget.js" data-key="${key.publicKey}" async></script>`);
    expect(await page.getByRole('button', { name: 'Copy' }).isVisible()).toBe(true);
    await page.screenshot({ path: '/tmp/widgets-page-desktop.png', fullPage: true });

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/widgets`);
    const overflow = (await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number;
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: '/tmp/widgets-page-phone.png', fullPage: true });

    // Edited: a bad origin is refused at its field with nothing saved; then new origins, limits and an emptied greeting
    // are saved, and the key (so the script tag on the site's pages) stays the same.
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole('link', { name: 'Edit Shop' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Edit widget');
    expect(await page.getByLabel('Allowed origins').inputValue()).toBe('https://shop.example.com\nhttp://127.0.0.1:8080');
    expect(await page.getByLabel('Greeting').inputValue()).toBe('Ask us about your order.');
    await page.getByLabel('Allowed origins').fill('shop.example.com');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForSelector('#f-allowed_origins-error');
    expect(await page.getByLabel('Allowed origins').inputValue()).toBe('shop.example.com');
    expect((await api.db.prisma.widgetKey.findUniqueOrThrow({ where: { id: key.id } })).allowedOrigins).toEqual(key.allowedOrigins);
    await page.getByLabel('Name').fill('Shop (new site)');
    await page.getByLabel('Allowed origins').fill('https://new.shop.example.com');
    await page.getByLabel('Calls at once').fill('2');
    await page.getByLabel('Greeting').fill('');
    await page.screenshot({ path: '/tmp/widgets-edit-desktop.png', fullPage: true });
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Widget “Shop (new site)” saved' }).waitFor();
    const edited = await api.db.prisma.widgetKey.findUniqueOrThrow({ where: { id: key.id } });
    expect(edited).toMatchObject({
      name: 'Shop (new site)',
      publicKey: key.publicKey,
      allowedOrigins: ['https://new.shop.example.com'],
      rateLimitPerMinute: 5,
      maxConcurrentCalls: 2,
      greeting: null,
    });
    expect(await page.locator(`#snippet-${key.id}`).textContent()).toBe(snippet);
    // The change holds at once: the old origin is refused, the new one served.
    const oldOrigin = await api.app.inject({ method: 'GET', url: `/api/widget/${key.publicKey}`, headers: { origin: 'https://shop.example.com' } });
    const newOrigin = await api.app.inject({ method: 'GET', url: `/api/widget/${key.publicKey}`, headers: { origin: 'https://new.shop.example.com' } });
    expect([oldOrigin.statusCode, newOrigin.statusCode]).toEqual([403, 200]);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('status').filter({ hasText: 'Widget revoked' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Revoked' }).isVisible()).toBe(true);
    const refused = await api.app.inject({ method: 'GET', url: `/api/widget/${key.publicKey}`, headers: { origin: 'https://shop.example.com' } });
    expect(refused.statusCode).toBe(401);
    // A revoked widget is not edited: its page says so, and a form posted anyway changes nothing.
    expect((await page.goto(`${base}/widgets/${key.id}/edit`))!.status()).toBe(409);
    expect(await page.getByRole('status').textContent()).toContain('is revoked');
    await context.close();
  }, 90_000);

  it('does not show or change another organisation’s widget', async () => {
    const other = await api.tenant('Globex');
    const assistant = (await api.call(other, 'POST', '/api/assistants', { name: 'Globex desk' })).body as { id: number };
    const theirs = (
      await api.call(other, 'POST', '/api/widget-keys', { name: 'Globex site', assistant_id: assistant.id, allowed_origins: ['https://globex.example'] })
    ).body.data as { id: number; name: string };
    const { context, page } = await signedInContext(browser, base, owner, { viewport: { width: 1280, height: 900 } });
    expect((await page.goto(`${base}/widgets/${theirs.id}/edit`))!.status()).toBe(404);
    expect(await page.content()).not.toContain('Globex site');
    // A form posted with a valid session and token, as a forged page of ours would.
    await page.goto(`${base}/widgets`);
    // Run in the page as text: this project's types have no DOM.
    const csrf = (await page.evaluate(`document.querySelector('input[name=_csrf]')?.getAttribute('value') ?? ''`)) as string;
    const posted = await page.request.post(`${base}/widgets/${theirs.id}`, { form: { _csrf: csrf, name: 'Taken', allowed_origins: 'https://evil.example' } });
    expect(posted.status()).toBe(404);
    expect(await api.db.prisma.widgetKey.findUniqueOrThrow({ where: { id: theirs.id } })).toMatchObject({
      name: 'Globex site',
      allowedOrigins: ['https://globex.example'],
    });
    await context.close();
  }, 90_000);
});
