import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

// What every page of the dashboard must do at any width: fit the screen. A test checks it where it stands, and with
// `SCREENSHOTS_DIR` set keeps a picture of the page for a person to look at.

const shotsDir = process.env.SCREENSHOTS_DIR ? path.resolve(process.env.SCREENSHOTS_DIR) : undefined;

// Run in the page (as text: this project's types have no DOM): how far the page sticks out of the screen, and the
// outermost elements that do.
const OVERFLOW = `(() => ({
  overflow: document.documentElement.scrollWidth - window.innerWidth,
  wide: [...document.querySelectorAll('body *')]
    .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1 && !(el.parentElement && el.parentElement.getBoundingClientRect().right > window.innerWidth + 1))
    .map((el) => el.outerHTML.slice(0, 100)),
}))()`;

/** Fails when the page is wider than its screen, naming what sticks out; keeps `<name>.png` when screenshots are asked for. */
export async function expectFitsAndShoot(page: Page, name: string): Promise<void> {
  const fit = (await page.evaluate(OVERFLOW)) as { overflow: number; wide: string[] };
  expect(fit.overflow, `${name} is wider than the screen: ${fit.wide.join(' | ')}`).toBeLessThanOrEqual(0);
  if (!shotsDir) return;
  await mkdir(shotsDir, { recursive: true });
  await page.screenshot({ path: path.join(shotsDir, `${name}.png`), fullPage: true });
}
