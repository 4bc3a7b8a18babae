import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';

// Signing in to the dashboard as a person does, through the login form, for the Chromium tests.

export interface Credentials {
  email: string;
  password: string;
}

/** Signs `person` in on `page` and waits for the page a sign-in lands on (the assistants). */
export async function signIn(page: Page, base: string, person: Credentials): Promise<void> {
  await page.goto(`${base}/login`);
  await page.getByLabel('Email').fill(person.email);
  await page.getByLabel('Password').fill(person.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(`${base}/assistants`);
}

/** A browser context of its own (its viewport, time zone, script on or off) with `person` signed in, and its page. */
export async function signedInContext(
  browser: Browser,
  base: string,
  person: Credentials,
  options: BrowserContextOptions = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  await signIn(page, base, person);
  return { context, page };
}
