import type { FastifyReply, FastifyRequest } from 'fastify';
import { can, type Action } from '../../modules/organizations/index.js';
import type { SignedIn } from '../auth/plugin.js';
import { html, type Html } from './html.js';

/** The dashboard's sections, in the sidebar's order; `action` hides a link from a role that cannot use it. */
const SECTIONS: { group: string; links: { href: string; label: string; action?: Action }[] }[] = [
  {
    group: 'Build',
    links: [
      { href: '/assistants', label: 'Assistants' },
      { href: '/phone-numbers', label: 'Phone numbers' },
      { href: '/calls', label: 'Calls' },
      { href: '/contacts', label: 'Contacts' },
      { href: '/campaigns', label: 'Campaigns' },
      { href: '/documents', label: 'Knowledge' },
      { href: '/tools', label: 'Tools' },
      { href: '/playbooks', label: 'Playbooks' },
      { href: '/analytics', label: 'Analytics' },
      { href: '/webhooks', label: 'Webhooks' },
      { href: '/widgets', label: 'Website widgets' },
    ],
  },
  {
    group: 'Organisation',
    links: [
      { href: '/api-keys', label: 'API keys', action: 'manage_keys' },
      { href: '/members', label: 'Members' },
      { href: '/billing', label: 'Billing', action: 'billing' },
      { href: '/settings', label: 'Settings' },
      { href: '/profile', label: 'Profile' },
    ],
  },
  {
    group: 'Developers',
    links: [{ href: '/api/docs', label: 'API reference' }],
  },
];

function document(title: string, body: Html, csrf?: string): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
${csrf ? html`<meta name="csrf-token" content="${csrf}">` : ''}
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Voice assistants</title>
<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/dashboard.css">
<script src="/assets/dashboard.js" defer></script>
</head>
${body}
</html>`;
}

/** A page of the signed-in dashboard: the sidebar, the person, sign-out, and `content`. */
export function dashboardPage(request: FastifyRequest, title: string, content: Html): Html {
  const me = request.signedIn!;
  const here = request.url.split('?')[0]!;
  const nav = SECTIONS.map(
    (section) =>
      html`<div class="group">${section.group}</div>${section.links
        .filter((l) => !l.action || can(me.role, l.action))
        .map((l) => html`<a href="${l.href}"${here === l.href || here.startsWith(`${l.href}/`) ? html` aria-current="page"` : ''}>${l.label}</a>`)}`,
  );
  return document(
    title,
    html`<body>
<a class="skip" href="#main">Skip to content</a>
<div class="shell">
<header class="side">
<a class="brand" href="/">Voice assistants</a>
<input type="checkbox" id="menu-toggle" class="menu-toggle"><label for="menu-toggle" class="menu-button">Menu</label>
<nav aria-label="Dashboard">${nav}</nav>
<p class="who">${me.name ?? me.email}<br>${me.role}</p>
<form method="post" action="/logout">${csrfField(request)}<button class="link" type="submit">Sign out</button></form>
</header>
<main id="main">
<h1>${title}</h1>
${content}
</main>
</div>
</body>`,
    // For a script calling the session-only API from the page (the X-CSRF-Token header).
    request.csrfToken,
  );
}

/** A page for someone not signed in: sign-in, setup, reset, invitation. */
export function visitorPage(title: string, content: Html): Html {
  return document(title, html`<body><main id="main" class="narrow"><h1>${title}</h1>${content}</main></body>`);
}

/** The anti-forgery field of a signed-in page's forms (api/auth/csrf.ts). */
export function csrfField(request: FastifyRequest): Html {
  return html`<input type="hidden" name="_csrf" value="${request.csrfToken}">`;
}

export function sendPage(reply: FastifyReply, page: Html, status = 200): FastifyReply {
  return reply.status(status).type('text/html; charset=utf-8').send(page.text);
}

export type { SignedIn };
