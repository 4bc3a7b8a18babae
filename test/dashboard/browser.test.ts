import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiContext, type ApiContext } from '../helpers/api.js';
import { hasChromium, launchChromium } from '../helpers/chromium.js';

// The dashboard as people use it, in Debian's headless Chromium against a real server on loopback: first-run setup,
// an API key used against the API, an invitation accepted and the member removed, an assistant created.

let api: ApiContext;
let base: string;
let browser: Browser;

beforeAll(async () => {
  if (!hasChromium) return;
  api = await createApiContext();
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

const OWNER = { email: 'owner@example.com', password: 'owner password 123' };

async function newPage(): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  // Destructive buttons ask first; the people in these tests always say yes.
  page.on('dialog', (dialog) => void dialog.accept());
  return page;
}

describe.skipIf(!hasChromium)('the dashboard in Chromium', () => {
  let owner: Page;

  it('sets up the organisation on first run, signs its owner in with a __Host- session cookie, and lands on the first assistant to make', async () => {
    owner = await newPage();
    await owner.goto(base);
    expect(new URL(owner.url()).pathname).toBe('/setup');
    await owner.getByLabel('Organisation name').fill('Acme Voice');
    await owner.getByLabel('Your name').fill('Olive Owner');
    await owner.getByLabel('Email').fill(OWNER.email);
    await owner.getByLabel('Password').fill(OWNER.password);
    await owner.getByRole('button', { name: 'Create organisation' }).click();
    await owner.waitForURL(`${base}/assistants`);
    expect(await owner.getByRole('link', { name: 'Create your first assistant' }).isVisible()).toBe(true);
    // The API's reference is one click away, and the tab shows the service's icon.
    expect(await owner.getByRole('link', { name: 'API reference' }).getAttribute('href')).toBe('/api/docs');
    const icon = await owner.evaluate(`fetch(document.querySelector('link[rel=icon]').href).then((r) => [r.status, r.headers.get('content-type')])`);
    expect(icon).toEqual([200, 'image/svg+xml']);

    const session = (await owner.context().cookies()).find((c) => c.name === '__Host-session');
    expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: '/' });
  });

  it('signs out and in again with the form, keyboard only', async () => {
    await owner.getByRole('button', { name: 'Sign out' }).click();
    await owner.waitForURL(/\/login/);
    await owner.getByLabel('Email').focus();
    await owner.keyboard.type(OWNER.email);
    await owner.keyboard.press('Tab');
    await owner.keyboard.type(OWNER.password);
    await owner.keyboard.press('Enter');
    await owner.waitForURL(`${base}/assistants`);
    expect(await owner.getByText('No assistants yet.').isVisible()).toBe(true);
  });

  it('creates an API key, shown once, that works against the API', async () => {
    await owner.goto(`${base}/api-keys`);
    await owner.getByLabel('New key').fill('Integration');
    await owner.getByRole('button', { name: 'Create key' }).click();
    const key = (await owner.locator('#new-key').textContent())!.trim();
    expect(key).toMatch(/^vak_[\w-]{43}$/);
    const res = await fetch(`${base}/api/assistants`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    // Shown once: the list has its prefix only.
    await owner.goto(`${base}/api-keys`);
    const listed = await owner.locator('table').textContent();
    expect(listed).toContain(key.slice(0, 12));
    expect(listed).not.toContain(key);
  });

  it('invites a member who joins by the link; removed, their session stops working at once', async () => {
    await owner.goto(`${base}/members`);
    await owner.getByLabel('Invite by email').fill('mia@example.com');
    await owner.getByLabel('Role', { exact: true }).selectOption('member');
    await owner.getByRole('button', { name: 'Invite' }).click();
    const link = (await owner.locator('#invite-link').textContent())!.trim();
    expect(link).toMatch(new RegExp(`^${base}/join\\?token=`));

    const member = await newPage();
    await member.goto(link);
    expect(await member.getByText('Join Acme Voice as member').isVisible()).toBe(true);
    await member.getByLabel('Your name').fill('Mia Member');
    await member.getByLabel('Choose a password').fill('member password 123');
    await member.getByRole('button', { name: 'Join' }).click();
    await member.waitForURL(`${base}/assistants`);
    // A member has no API keys page.
    expect(await member.getByRole('link', { name: 'API keys' }).count()).toBe(0);

    await owner.goto(`${base}/members`);
    const row = owner.getByRole('row').filter({ hasText: 'mia@example.com' });
    await row.getByRole('button', { name: 'Remove' }).click();
    await owner.waitForSelector('text=Removed: their sessions ended');
    expect(await owner.getByRole('row').filter({ hasText: 'mia@example.com' }).count()).toBe(0);

    await member.goto(`${base}/contacts`);
    expect(new URL(member.url()).pathname).toBe('/login');
  });

  it('creates an assistant, showing the API’s refusal next to its field first', async () => {
    await owner.goto(`${base}/assistants/new`);
    await owner.getByRole('link', { name: /Blank assistant/ }).click();
    await owner.getByLabel('Name', { exact: true }).fill('Front desk');
    await owner.getByRole('tab', { name: 'Model' }).click();
    await owner.getByLabel('Creativity (temperature)').fill('5');
    await owner.getByRole('button', { name: 'Create assistant' }).click();
    const error = owner.locator('#f-llm_settings-temperature-error');
    expect(await error.textContent()).toBe('Use 2 or less.');
    expect(await owner.getByLabel('Creativity (temperature)').getAttribute('aria-invalid')).toBe('true');
    await owner.getByRole('tab', { name: 'Essentials' }).click();
    expect(await owner.getByLabel('Name', { exact: true }).inputValue()).toBe('Front desk');

    await owner.getByRole('tab', { name: /Model/ }).click();
    await owner.getByLabel('Creativity (temperature)').fill('0.3');
    await owner.getByRole('button', { name: 'Create assistant' }).click();
    await owner.waitForURL(/\/assistants\/\d+\?created=1$/);
    expect(await owner.getByText('Assistant created.').isVisible()).toBe(true);
    const id = Number(new URL(owner.url()).pathname.split('/').pop());
    const stored = await api.db.prisma.assistant.findUniqueOrThrow({ where: { id } });
    expect(stored.name).toBe('Front desk');
    expect((stored.llmSettings as { temperature: number }).temperature).toBe(0.3);
  });
});
