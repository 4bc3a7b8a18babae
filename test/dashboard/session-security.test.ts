import { describe, expect } from 'vitest';
import { apiTest } from '../helpers/fixtures.js';
import { BrowserSession } from '../helpers/browser-session.js';
import { addPerson } from '../helpers/people.js';

// The session's security properties, through the dashboard's own routes: cookies, fixation, forgery, API keys on
// session-only routes, the sign-in limit, and that ending a session ends it at once.

const it = apiTest;
const sample = (url: string) => url.replace(/:[a-z_]+/g, '1').replace('*', 'x');

describe('session cookies', () => {
  it('are __Host- prefixed, HttpOnly, Secure, SameSite=Lax and Path=/ on a secure context, and the session ends with sign-out', async ({ api, tenant }) => {
    const owner = await addPerson(api, tenant.organizationId, 'owner');
    const browser = new BrowserSession(api.app);
    const form = await browser.get('/login');
    expect(form.setCookies.join('\n')).toMatch(/^__Host-csrf=[\w-]{43}; Path=\/; HttpOnly; Secure; SameSite=Strict$/m);
    const res = await browser.post('/login', { email: owner.email, password: owner.password });
    expect(res.status).toBe(302);
    const cookie = res.setCookies.find((c) => c.startsWith('__Host-session='))!;
    expect(cookie).toMatch(/^__Host-session=[\w-]{43}; Path=\/; Expires=[^;]+; HttpOnly; Secure; SameSite=Lax$/);
    expect(cookie).not.toMatch(/Domain=/i);
    // Only the token's hash is stored.
    const token = browser.cookies.get('__Host-session')!;
    expect(await api.db.prisma.session.count({ where: { tokenHash: token } })).toBe(0);

    await browser.get('/profile');
    const out = await browser.post('/logout');
    expect(out.location).toBe('/login?signed_out=1');
    expect(out.setCookies.join()).toMatch(/__Host-session=;/);
    // The token stops working at once, even if a copy of the cookie is replayed.
    const replay = new BrowserSession(api.app);
    replay.cookies.set('__Host-session', token);
    expect((await replay.get('/profile')).location).toBe('/login?next=%2Fprofile');
  });

  it('drop the __Host- prefix and Secure only on plain HTTP away from loopback, and keep them behind a TLS proxy', async ({ api }) => {
    const plain = await api.app.inject({ method: 'GET', url: '/login', headers: { host: 'dashboard.internal:3000' } });
    expect(String(plain.headers['set-cookie'])).toMatch(/^csrf=[\w-]+; Path=\/; HttpOnly; SameSite=Strict$/);
    const proxied = await api.app.inject({ method: 'GET', url: '/login', headers: { host: 'voice.example.com', 'x-forwarded-proto': 'https' } });
    expect(String(proxied.headers['set-cookie'])).toMatch(/^__Host-csrf=[\w-]+; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
  });
});

describe('session fixation', () => {
  it('never adopts a session token the browser arrived with: signing in issues a new one and ends the planted one', async ({ api, tenant }) => {
    const attacker = await addPerson(api, tenant.organizationId, 'member');
    const victim = await addPerson(api, tenant.organizationId, 'owner');
    const attackerBrowser = new BrowserSession(api.app);
    await attackerBrowser.signIn(attacker.email, attacker.password);
    const planted = attackerBrowser.cookies.get('__Host-session')!;

    // The victim has the sign-in form open when the token is planted, and signs in with it.
    const victimBrowser = new BrowserSession(api.app);
    await victimBrowser.get('/login');
    victimBrowser.cookies.set('__Host-session', planted);
    expect((await victimBrowser.post('/login', { email: victim.email, password: victim.password })).status).toBe(302);
    const issued = victimBrowser.cookies.get('__Host-session')!;
    expect(issued).not.toBe(planted);
    expect((await victimBrowser.get('/profile')).body).toContain(victim.email);
    // The planted token is dead: the attacker's browser cannot ride on the victim's sign-in.
    expect((await attackerBrowser.get('/profile')).status).toBe(302);

    // A made-up token is not a session either, before or after a sign-in.
    const made = new BrowserSession(api.app);
    made.cookies.set('__Host-session', 'A'.repeat(43));
    expect((await made.get('/profile')).status).toBe(302);
  });
});

describe('anti-forgery tokens', () => {
  it('are required by every state-changing dashboard and session-only route: missing, wrong, another session’s, or sent cross-site', async ({
    api,
    tenant,
  }) => {
    const owner = await addPerson(api, tenant.organizationId, 'owner');
    const other = await addPerson(api, tenant.organizationId, 'owner');
    const browser = new BrowserSession(api.app);
    await browser.signIn(owner.email, owner.password);
    const otherBrowser = new BrowserSession(api.app);
    await otherBrowser.signIn(other.email, other.password);

    const routes = api.app.declaredRoutes.filter((r) => (r.auth === 'session' || r.auth === 'visitor') && !['GET', 'HEAD', 'OPTIONS'].includes(r.method));
    expect(routes.length).toBeGreaterThanOrEqual(25);
    for (const route of routes) {
      const url = sample(route.url);
      const attempts: { _csrf: string | null; headers: Record<string, string> }[] = [
        { _csrf: null, headers: {} },
        { _csrf: 'x'.repeat(43), headers: {} },
        { _csrf: otherBrowser.csrf, headers: {} },
        { _csrf: browser.csrf, headers: { 'sec-fetch-site': 'cross-site' } },
      ];
      for (const attempt of attempts) {
        const res =
          route.method === 'POST' && !url.startsWith('/api/')
            ? await browser.post(url, { _csrf: attempt._csrf }, attempt.headers)
            : await browser.request({
                method: route.method as 'POST',
                url,
                headers: { ...(attempt._csrf ? { 'x-csrf-token': attempt._csrf } : {}), ...attempt.headers, 'content-type': 'application/json' },
                payload: '{}',
              });
        expect(res.status, `${route.method} ${url} with ${JSON.stringify(attempt)}`).toBe(403);
        expect(res.body, `${route.method} ${url}`).toMatch(/csrf_failed|reload the page|another site/);
      }
    }
    // Nothing was changed by any of them: the owner is still signed in with one key-less organisation.
    expect((await browser.get('/profile')).status).toBe(200);
    expect(await api.db.prisma.apiKey.count({ where: { organizationId: tenant.organizationId, name: { not: 'bootstrap' } } })).toBe(0);
  });
});

describe('session-only routes', () => {
  it('refuse an API key with 403 on every one of them, in the API and the dashboard alike', async ({ api, tenant }) => {
    const routes = api.app.declaredRoutes.filter((r) => r.auth === 'session' && r.method !== 'HEAD');
    expect(routes.filter((r) => r.url.startsWith('/api/')).length).toBeGreaterThanOrEqual(12);
    for (const route of routes) {
      const res = await api.app.inject({ method: route.method as 'GET', url: sample(route.url), headers: { authorization: `Bearer ${tenant.key}` } });
      expect(res.statusCode, `${route.method} ${route.url}`).toBe(403);
      expect(res.body).toMatch(/only in a dashboard session/);
    }
  });

  it('answer 401 with no session and no key, and work with a session', async ({ api, tenant }) => {
    expect((await api.call(null, 'GET', '/api/users/me')).status).toBe(401);
    const owner = await addPerson(api, tenant.organizationId, 'owner');
    const browser = new BrowserSession(api.app);
    await browser.signIn(owner.email, owner.password);
    const me = await browser.api('GET', '/api/users/me');
    expect(me.status).toBe(200);
    expect(JSON.parse(me.body).data).toMatchObject({ email: owner.email, role: 'owner', organization_id: tenant.organizationId });
  });
});

describe('sign-in', () => {
  it('is limited to 10 failures per email in 15 minutes: the 11th attempt gets 429 with Retry-After, even with the right password', async ({ api, tenant }) => {
    const owner = await addPerson(api, tenant.organizationId, 'owner');
    const browser = new BrowserSession(api.app);
    await browser.get('/login');
    for (let i = 0; i < 10; i++) {
      const res = await browser.post('/login', { email: owner.email, password: `wrong password ${i}` });
      expect(res.status).toBe(401);
      expect(res.body).toContain('Wrong email or password');
    }
    const limited = await browser.post('/login', { email: owner.email, password: owner.password });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(800);
    expect(limited.body).toContain('Too many failed sign-ins');
    // Another person's sign-in is not held up by it.
    const other = await addPerson(api, tenant.organizationId, 'member');
    await new BrowserSession(api.app).signIn(other.email, other.password);
  });

  it('says the same for an unknown email as for a wrong password', async ({ api, tenant }) => {
    const owner = await addPerson(api, tenant.organizationId, 'owner');
    const browser = new BrowserSession(api.app);
    await browser.get('/login');
    const unknown = await browser.post('/login', { email: 'nobody@example.com', password: 'whatever password' });
    const wrong = await browser.post('/login', { email: owner.email, password: 'whatever password' });
    expect(unknown.status).toBe(wrong.status);
    const normal = (body: string, email: string) => body.replaceAll(email, 'EMAIL').replace(/name="_csrf" value="[^"]+"/g, '');
    expect(normal(unknown.body, 'nobody@example.com')).toBe(normal(wrong.body, owner.email));
    expect(unknown.body).toContain('Wrong email or password');
  });

  it('goes back only to a page of the dashboard after signing in, never to another site', async ({ api, tenant }) => {
    const owner = await addPerson(api, tenant.organizationId, 'owner');
    for (const [next, expected] of [
      ['/calls?status=completed', '/calls?status=completed'],
      ['//evil.example/x', '/assistants'],
      ['https://evil.example', '/assistants'],
      ['/\\evil.example', '/assistants'],
    ]) {
      const browser = new BrowserSession(api.app);
      await browser.get('/login');
      const res = await browser.post('/login', { email: owner.email, password: owner.password, next: next! });
      expect(res.location, next).toBe(expected);
    }
  });
});
