import { html, type Html } from './html.js';

/** A moment, written in UTC and shown in the reader's time zone by the page's script (UTC without it). */
export function when(iso: string | Date): Html {
  const value = typeof iso === 'string' ? iso : iso.toISOString();
  return html`<time datetime="${value}">${value.slice(0, 16).replace('T', ' ')} UTC</time>`;
}
