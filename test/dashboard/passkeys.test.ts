import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiContext, type ApiContext } from '../helpers/api.js';
import { hasChromium, launchChromium } from '../helpers/chromium.js';
import { addPerson, type Person } from '../helpers/people.js';
import { BrowserSession } from '../helpers/browser-session.js';
import { signIn } from '../helpers/sign-in.js';

// Passkeys as people use them, in Debian's headless Chromium with a virtual authenticator (the DevTools WebAuthn
// domain: a platform authenticator that holds discoverable credentials and verifies its user): added on the profile
// page, used to sign in with no password, refused once removed; and the rules no page shows, over the API.

let api: ApiContext;
let base: string;
let browser: Browser;
let organizationId: number;
let person: Person;

beforeAll(async () => {
  api = await createApiContext();
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  // A host name, not an address: browsers bind passkeys to a host, and refuse them on an IP address.
  base = `http://localhost:${(api.app.server.address() as AddressInfo).port}`;
  organizationId = (await api.tenant('Passkeys')).organizationId;
  person = await addPerson(api, organizationId, 'admin');
  if (hasChromium) browser = await launchChromium(['--host-resolver-rules=MAP localhost 127.0.0.1']);
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

/** A browser context with its own virtual authenticator, which keeps its passkeys across the context's pages. */
async function withAuthenticator(): Promise<{ context: BrowserContext; page: Page; cdp: CDPSession; authenticatorId: string }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on('dialog', (dialog) => void dialog.accept());
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { context, page, cdp, authenticatorId };
}

/** The sign-out button of the page's header (the profile also lists other sessions, each with its own). */
const signOut = (page: Page) => page.locator('form[action="/logout"] button').click();

async function signInWithPassword(page: Page): Promise<void> {
  await signIn(page, base, person);
}

describe.skipIf(!hasChromium)('passkeys in Chromium', () => {
  let page: Page;
  let context: BrowserContext;
  let cdp: CDPSession;
  let authenticatorId: string;

  it('adds a passkey from the profile page, and lists it by the name given', async () => {
    ({ page, context, cdp, authenticatorId } = await withAuthenticator());
    await signInWithPassword(page);
    await page.goto(`${base}/profile`);
    await page.getByLabel('Name of a new passkey').fill('Work laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.waitForURL(`${base}/profile?passkey=added`);
    await expect(page.getByRole('status').textContent()).resolves.toContain('Passkey added.');
    await expect(page.getByRole('cell', { name: 'Work laptop' }).isVisible()).resolves.toBe(true);

    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.isResidentCredential).toBe(true);
    const stored = await api.db.prisma.passkey.findMany({ where: { userId: person.userId } });
    expect(stored.map((p) => [p.name, p.credentialId])).toEqual([
      ['Work laptop', credentials[0]!.credentialId.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_')],
    ]);
  });

  it('signs in with the passkey alone, into a new session, and records its use', async () => {
    await signOut(page);
    await page.waitForURL(/\/login/);
    const before = (await context.cookies()).find((c) => c.name === '__Host-session');
    expect(before).toBeUndefined();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(`${base}/assistants`);
    const session = (await context.cookies()).find((c) => c.name === '__Host-session');
    expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax' });
    const [stored] = await api.db.prisma.passkey.findMany({ where: { userId: person.userId } });
    expect(stored!.lastUsedAt).not.toBeNull();
  });

  it('refuses an answer played a second time: its challenge was used up by the first', async () => {
    await signOut(page);
    await page.waitForURL(/\/login/);
    const sent = page.waitForRequest((r) => r.url().endsWith('/login/passkey') && r.method() === 'POST');
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    const answer = (await sent).postData()!;
    await page.waitForURL(`${base}/assistants`);
    await signOut(page);
    await page.waitForURL(/\/login/);
    const replayed = await page.evaluate(async (body) => {
      // In the page: its DOM, which this file's types do not describe.
      const page = globalThis as unknown as { document: { querySelector(selector: string): { value: string } } };
      const csrf = page.document.querySelector('input[name=_csrf]').value;
      const res = await fetch('/login/passkey', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': csrf }, body });
      return { status: res.status, body: await res.json() };
    }, answer);
    expect(replayed).toMatchObject({ status: 401, body: { code: 'passkey_invalid' } });
    expect((await context.cookies()).find((c) => c.name === '__Host-session')).toBeUndefined();
  });

  it('removes the passkey from the profile, after which it signs nobody in', async () => {
    await signInWithPassword(page);
    await page.goto(`${base}/profile`);
    await page.getByRole('button', { name: 'Remove' }).click();
    await page.waitForURL(`${base}/profile?passkey=removed`);
    await expect(page.getByText('No passkeys yet.').isVisible()).resolves.toBe(true);
    await signOut(page);
    await page.waitForURL(/\/login/);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await expect(page.locator('[data-passkey-error]').filter({ hasText: 'not accepted' }).textContent()).resolves.toContain('That passkey was not accepted');
    expect(new URL(page.url()).pathname).toBe('/login');
    await context.close();
  });
});

describe('passkeys over the API', () => {
  it('are session-only: an API key gets 403 on every passkey route', async () => {
    const tenant = await api.tenant();
    for (const [method, url] of [
      ['GET', '/api/users/me/passkeys'],
      ['POST', '/api/users/me/passkeys/options'],
      ['POST', '/api/users/me/passkeys'],
      ['DELETE', '/api/users/me/passkeys/1'],
    ] as const) {
      const res = await api.call(tenant, method, url, method === 'POST' ? {} : undefined);
      expect(res.status, `${method} ${url}`).toBe(403);
    }
  });

  it("answers 404 for another person's passkey, and removes nothing", async () => {
    const other = await addPerson(api, organizationId, 'member');
    const theirs = await api.db.prisma.passkey.create({
      data: { userId: other.userId, credentialId: `cred-${Date.now()}`, publicKey: Buffer.alloc(8), transports: [], name: 'Theirs' },
    });
    const me = new BrowserSession(api.app);
    await me.signIn(person.email, person.password);
    expect((await me.api('DELETE', `/api/users/me/passkeys/${theirs.id}`)).status).toBe(404);
    await expect(api.db.prisma.passkey.count({ where: { id: theirs.id } })).resolves.toBe(1);
  });

  it('refuses a forged answer with 401 and a malformed one with 422, adding nothing', async () => {
    const me = new BrowserSession(api.app);
    await me.signIn(person.email, person.password);
    const options = await me.api('POST', '/api/users/me/passkeys/options');
    expect(options.status).toBe(200);
    const { challenge } = JSON.parse(options.body).data;
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge, origin: 'http://localhost' })).toString('base64url');
    const forged = { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: { clientDataJSON, attestationObject: 'AAAA' }, clientExtensionResults: {} };
    const refused = await me.api('POST', '/api/users/me/passkeys', { name: 'Forged', response: forged });
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'passkey_invalid' });
    const malformed = await me.api('POST', '/api/users/me/passkeys', { name: '', response: { id: 'not base64url!' } });
    expect(malformed.status).toBe(422);
    const locs = JSON.parse(malformed.body).detail.map((d: { loc: string[] }) => d.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.name', 'body.response.id']));
    await expect(api.db.prisma.passkey.count({ where: { userId: person.userId, name: 'Forged' } })).resolves.toBe(0);
  });

  it('offers passkeys only where their origin is known: 503 off loopback without PUBLIC_URL', async () => {
    const host = { host: 'dashboard.example.com' };
    const me = new BrowserSession(api.app);
    await me.get('/login', host);
    expect((await me.post('/login', { email: person.email, password: person.password }, host)).status).toBe(302);
    // The profile page: its forms carry this session's anti-forgery token, and it says why no passkey can be added.
    expect((await me.get('/profile', host)).body).toContain('Passkeys need PUBLIC_URL');
    const res = await me.api('POST', '/api/users/me/passkeys/options', undefined, host);
    expect(res.status).toBe(503);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'passkeys_unavailable' });
  });
});
