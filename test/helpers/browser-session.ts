import type { FastifyInstance, InjectOptions } from 'fastify';

// A browser, as far as the dashboard can tell over `inject`: it keeps the cookies it is given (by name, honouring
// deletion), reads the anti-forgery token from the page it was last shown, and posts forms the way a browser does.

export interface PageResponse {
  status: number;
  body: string;
  headers: Record<string, unknown>;
  /** Raw Set-Cookie lines of this response. */
  setCookies: string[];
  location: string | undefined;
}

export class BrowserSession {
  readonly cookies = new Map<string, string>();
  /** The `_csrf` value of the last page that had a form. */
  csrf = '';

  constructor(private readonly app: FastifyInstance) {}

  /** A session signed in as `person`, on the page at `path` (its form's anti-forgery token read) when one is given. */
  static async signedIn(app: FastifyInstance, person: { email: string; password: string }, path?: string): Promise<BrowserSession> {
    const session = new BrowserSession(app);
    await session.signIn(person.email, person.password);
    if (path) await session.get(path);
    return session;
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(options: InjectOptions): Promise<PageResponse> {
    const headers = { ...(options.headers ?? {}), ...(this.cookies.size > 0 ? { cookie: this.cookieHeader() } : {}) };
    const res = await this.app.inject({ ...options, headers });
    const raw = res.headers['set-cookie'];
    const setCookies = raw === undefined ? [] : Array.isArray(raw) ? raw : [String(raw)];
    for (const line of setCookies) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line) || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1];
    if (token) this.csrf = token;
    return { status: res.statusCode, body: res.body, headers: res.headers, setCookies, location: res.headers.location as string | undefined };
  }

  get(url: string, headers: Record<string, string> = {}): Promise<PageResponse> {
    return this.request({ method: 'GET', url, headers });
  }

  /** Posts a form with the page's anti-forgery token unless `fields` sets `_csrf` itself (or `null` to leave it out). */
  post(url: string, fields: Record<string, string | null> = {}, headers: Record<string, string> = {}): Promise<PageResponse> {
    const form = new URLSearchParams();
    const withToken = { _csrf: this.csrf, ...fields };
    for (const [k, v] of Object.entries(withToken)) if (v !== null) form.append(k, v);
    return this.request({ method: 'POST', url, payload: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });
  }

  /** A JSON request to a session-only API route, with the anti-forgery header. */
  api(method: InjectOptions['method'], url: string, body?: unknown, headers: Record<string, string> = {}): Promise<PageResponse> {
    return this.request({
      method,
      url,
      headers: { 'x-csrf-token': this.csrf, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  }

  /** Signs in through the form; throws unless the dashboard redirects in. */
  async signIn(email: string, password: string): Promise<void> {
    await this.get('/login');
    const res = await this.post('/login', { email, password });
    if (res.status !== 302) throw new Error(`sign-in failed: ${res.status} ${res.body.slice(0, 300)}`);
    await this.get(res.location!);
  }
}
