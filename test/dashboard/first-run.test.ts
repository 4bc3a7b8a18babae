import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiContext, type ApiContext } from '../helpers/api.js';
import { BrowserSession } from '../helpers/browser-session.js';

// A fresh installation: no organisation, so the dashboard's first page is setup, and setup happens once.

let api: ApiContext;
beforeAll(async () => {
  api = await createApiContext();
});
afterAll(async () => api?.close());

describe('first-run setup', () => {
  it('sends a visitor of a fresh installation to setup, creates the organisation and its owner once, and signs the owner in', async () => {
    const browser = new BrowserSession(api.app);
    const home = await browser.get('/');
    expect(home.status).toBe(302);
    expect(home.location).toBe('/setup');
    expect((await browser.get('/setup')).body).toContain('Create organisation');

    const done = await browser.post('/setup', { organization_name: 'Acme', name: 'Ada Owner', email: 'Ada@Example.com', password: 'correct horse battery' });
    expect(done.status).toBe(302);
    expect(done.location).toBe('/assistants');
    const landing = await browser.get('/assistants');
    expect(landing.status).toBe(200);
    expect(landing.body).toContain('Create your first assistant');
    // Every page's icon, and the one a browser asks for on pages that name none, instead of a 404.
    expect(landing.body).toContain('<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">');
    const favicon = await api.app.inject({ method: 'GET', url: '/favicon.ico' });
    expect([favicon.statusCode, favicon.headers.location]).toEqual([301, '/assets/favicon.svg']);
    const svg = await api.app.inject({ method: 'GET', url: '/assets/favicon.svg' });
    expect([svg.statusCode, svg.headers['content-type']]).toEqual([200, 'image/svg+xml']);

    const user = await api.db.prisma.user.findUniqueOrThrow({ where: { email: 'ada@example.com' }, include: { organization: true } });
    expect(user).toMatchObject({ role: 'owner', name: 'Ada Owner', organization: { name: 'Acme' } });
    expect(user.passwordHash).toMatch(/^\$argon2id\$/);

    // Setup is over for everyone: the page sends to sign-in, and a second post is refused.
    const other = new BrowserSession(api.app);
    expect((await other.get('/setup')).location).toBe('/login');
    await other.get('/login');
    const again = await other.post('/setup', { organization_name: 'Evil', name: 'Eve', email: 'eve@example.com', password: 'correct horse battery' });
    expect(again.status).toBe(409);
    expect(again.body).toContain('has an organisation already');
    expect(await api.db.prisma.organization.count()).toBe(1);
  });

  it("shows refused setup fields next to their inputs with the API's 422 messages, keeping what was typed", async () => {
    const fresh = await createApiContext();
    try {
      const browser = new BrowserSession(fresh.app);
      await browser.get('/setup');
      const res = await browser.post('/setup', { organization_name: 'Acme', name: 'Ada', email: 'not-an-email', password: 'short' });
      expect(res.status).toBe(422);
      expect(res.body).toMatch(
        /<input id="f-email"[^>]*value="not-an-email"[^>]*aria-invalid="true">\s*<div class="error" id="f-email-error">Use an email address, like name@example.com./,
      );
      expect(res.body).toMatch(/id="f-password-error">Use at least 10 characters./);
      expect(await fresh.db.prisma.organization.count()).toBe(0);
    } finally {
      await fresh.close();
    }
  });
});

describe('the sign-in page', () => {
  it('sends someone already signed in straight on, to where they were going', async () => {
    const browser = new BrowserSession(api.app);
    await browser.signIn('ada@example.com', 'correct horse battery');
    expect((await browser.get('/login')).location).toBe('/assistants');
    expect((await browser.get('/login?next=%2Fcalls')).location).toBe('/calls');
    expect((await browser.get('/setup')).location).toBe('/login');
  });
});
