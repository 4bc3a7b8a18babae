import crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import formBody from '@fastify/formbody';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ValidationFailed } from '../../lib/errors.js';
import { readCookie, setCsrfCookie } from '../auth/cookies.js';
import { csrfTokenFor } from '../auth/csrf.js';
import { DATABASE_RETRY_AFTER_S, STATUS_OF } from '../http/error-handler.js';
import { isDatabaseUnavailable } from '../../prisma/unavailable.js';
import { HttpError } from '../http/errors.js';
import { html } from './html.js';
import { sendPage, visitorPage } from './layout.js';
import type { DashboardDeps } from './deps.js';
import { registerAccountPages } from './pages/account.js';
import { registerApiKeyPages } from './pages/api-keys.js';
import { registerMemberPages } from './pages/members.js';
import { registerProfilePages } from './pages/profile.js';
import { registerAssistantPages } from './pages/assistants.js';
import { registerAssistantHistory } from './pages/assistant-history.js';
import { registerCallPages } from './pages/calls.js';
import { registerContactPages } from './pages/contacts.js';
import { registerBillingPages } from './pages/billing.js';
import { registerAnalyticsPages } from './pages/analytics.js';
import { registerWebhookPages } from './pages/webhooks.js';
import { registerDocumentPages } from './pages/documents.js';
import { registerCampaignPages } from './pages/campaigns.js';
import { registerToolPages } from './pages/tools.js';
import { registerPasskeyPages } from './pages/passkeys.js';
import { registerPhoneNumberPages } from './pages/phone-numbers.js';
import { registerOrganizationSettingsPages } from './pages/organization-settings.js';
import { registerWidgetPages } from './pages/widgets.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The anti-forgery token this page's forms carry (api/auth/csrf.ts). */
    csrfToken: string;
  }
}

// Pages run their own scripts and styles only; nothing frames them; forms post only here; and links in them (an
// invitation's, a reset's) never leak to another site through the Referer header.
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

const require = createRequire(import.meta.url);
const ASSETS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'assets');
const ASSET_TYPES: Record<string, string> = { '.css': 'text/css; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.svg': 'image/svg+xml' };

/** The assets, read once: a handful of small files, served from memory with a validator. */
function loadAssets(): Map<string, { body: Buffer; type: string; etag: string }> {
  const assets = new Map<string, { body: Buffer; type: string; etag: string }>();
  const files: [name: string, file: string][] = [
    'dashboard.css',
    'dashboard.js',
    'passkeys.js',
    'campaign-form.js',
    'row-editors.js',
    'chart-form.js',
    'favicon.svg',
    'call-client.js',
    'mic-worklet.js',
    'call-waveform.js',
  ].map((name) => [name, path.join(ASSETS_DIR, name)]);
  // The WebAuthn helper the passkey script runs on, served from its package as it ships.
  // (The package exports no package.json: its root is read from its CommonJS entry, script/index.js.)
  files.push(['webauthn.js', path.join(path.dirname(require.resolve('@simplewebauthn/browser')), '..', 'dist/bundle/index.umd.min.js')]);
  for (const [name, file] of files) {
    const body = readFileSync(file);
    assets.set(name, { body, type: ASSET_TYPES[path.extname(name)]!, etag: `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` });
  }
  return assets;
}

/** The anti-forgery token of this request's forms; a visitor without the cookie gets one now. */
function csrfTokenOf(request: FastifyRequest, reply: FastifyReply): string {
  if (request.routeOptions.config.auth === 'session') return csrfTokenFor(request.signedIn!.token);
  let secret = readCookie(request, 'csrf', request.secureContext);
  if (!secret) {
    secret = crypto.randomBytes(32).toString('base64url');
    setCsrfCookie(reply, secret, request.secureContext);
  }
  return csrfTokenFor(secret);
}

/** Errors become pages: a missing session goes to sign-in, anything else is said in words with its status. */
function dashboardErrors(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  reply.headers(PAGE_HEADERS);
  if (error instanceof AppError && error.kind === 'unauthenticated') {
    const next = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : '';
    return reply.redirect(`/login${next}`);
  }
  let status = 500;
  let message = 'Something went wrong on our side. Try again; if it goes on, tell your administrator.';
  if (error instanceof AppError) {
    status = STATUS_OF[error.kind];
    if (error instanceof HttpError && error.headers) reply.headers(error.headers);
    message = error.message;
  } else if (error instanceof ValidationFailed) {
    status = 422;
    message = error.message;
  } else if ((error as FastifyError).statusCode !== undefined && (error as FastifyError).statusCode! < 500) {
    status = (error as FastifyError).statusCode!;
    message = 'This request could not be read.';
  } else if (isDatabaseUnavailable(error)) {
    status = 503;
    reply.header('Retry-After', String(DATABASE_RETRY_AFTER_S));
    message = 'The service cannot reach its database right now. Try again in a few seconds.';
    request.log.warn({ err: error }, 'database unreachable');
  } else {
    request.log.error({ err: error }, 'dashboard page failed');
  }
  return sendPage(
    reply,
    visitorPage(
      status === 404 ? 'Not found' : 'Sorry',
      html`<div class="notice bad" role="alert">${message}</div><p><a href="/">Back to the dashboard</a></p>`,
    ),
    status,
  );
}

/** The dashboard: server-rendered pages at the root of the site, signed in by session (docs/dashboard.md). */
export async function dashboard(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  // Form bodies for these pages only: the API under /api keeps taking JSON alone.
  await app.register(formBody, { bodyLimit: 1024 * 1024 });
  app.setErrorHandler(dashboardErrors);
  // Pages are not part of the API's description (nor of the tests generated from it).
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  app.decorateRequest('csrfToken', '');
  app.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.config.auth === 'public') return;
    reply.headers(PAGE_HEADERS);
    request.csrfToken = csrfTokenOf(request, reply);
  });

  const assets = loadAssets();
  app.get('/assets/:name', { config: { auth: 'public' } }, async (request, reply) => {
    const asset = assets.get((request.params as { name: string }).name);
    if (!asset) return reply.status(404).type('text/plain').send('Not found');
    reply.header('etag', asset.etag).header('cache-control', 'no-cache').header('x-content-type-options', 'nosniff');
    if (request.headers['if-none-match'] === asset.etag) return reply.status(304).send();
    return reply.type(asset.type).send(asset.body);
  });

  // Browsers ask for /favicon.ico on pages that name no icon (the API reference, a call's page): the same icon.
  app.get('/favicon.ico', { config: { auth: 'public' } }, async (_request, reply) => reply.redirect('/assets/favicon.svg', 301));

  registerAccountPages(app, deps);
  registerApiKeyPages(app, deps);
  registerMemberPages(app, deps);
  registerProfilePages(app, deps);
  registerAssistantPages(app, deps);
  registerAssistantHistory(app, deps);
  registerCallPages(app, deps);
  registerContactPages(app, deps);
  registerBillingPages(app, deps);
  registerAnalyticsPages(app, deps);
  registerWebhookPages(app, deps);
  registerDocumentPages(app, deps);
  registerCampaignPages(app, deps);
  registerToolPages(app, deps);
  registerPasskeyPages(app, deps);
  registerPhoneNumberPages(app, deps);
  registerOrganizationSettingsPages(app, deps);
  registerWidgetPages(app, deps);
}
