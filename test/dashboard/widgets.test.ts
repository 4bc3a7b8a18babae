import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiContext, type ApiContext, type Tenant } from '../helpers/api.js';
import { hasChromium, launchChromium } from '../helpers/chromium.js';
import { addPerson, type Person } from '../helpers/people.js';
import { signedInContext } from '../helpers/sign-in.js';

// The Website widgets page in Chromium: a widget created with its origins, a refused origin shown at its field, the
// script tag to paste shown with its copy button, and a revoked widget's key refused by the public routes at once.

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

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('status').filter({ hasText: 'Widget revoked' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Revoked' }).isVisible()).toBe(true);
    const refused = await api.app.inject({ method: 'GET', url: `/api/widget/${key.publicKey}`, headers: { origin: 'https://shop.example.com' } });
    expect(refused.statusCode).toBe(401);
    await context.close();
  }, 90_000);
});
