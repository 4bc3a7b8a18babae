import type { FastifyInstance } from 'fastify';
import type { PrismaClient } from '../../../prisma/client.js';
import { assistantName } from '../../../modules/assistants/index.js';
import { framingOriginsOfCall } from '../../../modules/widgets/index.js';
import type { StreamTokens } from '../../../lib/stream-token.js';
import { html } from '../../dashboard/html.js';

// The built-in browser call's page: microphone in, the assistant's audio out, a live transcript with each reply's
// latency, who is speaking, and mute and hang-up buttons. Plain HTML with no build step and nothing loaded from
// elsewhere; its script (the dashboard's call-client.js, which the builder's talk panel runs too) reads the call and
// token from the page's URL and speaks the socket protocol of serializer.ts (docs/transports.md).

/** `embedded`: a website widget's call, framed in its panel: compact, started at once, no link into the dashboard. */
function callPage(assistant: string | undefined, embedded: boolean): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${assistant ? `Call with ${assistant}` : 'Call'}</title>
<style>
  body { font: 16px/1.4 system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
  #status { color: #555; }
  #transcript p { margin: .4rem 0; }
  #transcript .user { color: #0b5394; }
  #transcript .latency { color: #667; white-space: nowrap; }
  h1 { overflow-wrap: anywhere; }
  button { font: inherit; padding: .5rem 1.2rem; border-radius: 6px; border: 1px solid #2f5bea; background: #2f5bea; color: #fff; cursor: pointer; }
  button.secondary { background: #fff; color: #2f5bea; }
  button:disabled { opacity: .5; cursor: default; }
  button[aria-pressed="true"] { background: #b42318; border-color: #b42318; color: #fff; }
  .controls { display: flex; gap: .5rem; flex-wrap: wrap; margin: 1rem 0; }
  #activity { display: inline-flex; align-items: center; gap: .4rem; color: #555; min-height: 1.4em; }
  #activity:not(:empty)::before { content: ""; width: .7rem; height: .7rem; border-radius: 50%; background: #c5ccd8; }
  #activity[data-who="assistant"]::before { background: #2b8a3e; }
  #activity[data-who="caller"]::before { background: #2f5bea; }
  body[data-embedded] { margin: 0; padding: .75rem; max-width: none; font-size: 15px; }
  body[data-embedded] h1 { font-size: 1.1rem; margin: 0 0 .4rem; }
  body[data-embedded] #start { display: none; }
  body[data-embedded] #transcript .latency { display: none; }
</style>
</head>
<body data-call-page${embedded ? html` data-embedded data-autostart` : ''}>
<h1>${assistant ? html`Call with ${assistant}` : 'Call'}</h1>
<p id="status" data-call-part="status">Connecting…</p>
<p id="activity" data-call-part="activity" aria-live="polite" data-who="none"></p>
<div class="controls"><button id="start" data-call-part="start">Start call</button> <button id="mute" data-call-part="mute" class="secondary" aria-pressed="false" disabled>Mute</button> <button id="hangup" data-call-part="hangup" class="secondary" disabled>Hang up</button></div>
${embedded ? '' : html`<p id="record" data-call-part="record" hidden><a href="">See this call's record</a> (in the dashboard, signed in)</p>`}
<div id="transcript" data-call-part="transcript" aria-live="polite"></div>
<script src="/assets/call-client.js"></script>
</body>
</html>
`.toString();
}

/** Who may frame the page: nobody, or exactly the origins of the live widget key that started the call. */
function frameAncestors(origins: string[] | null): string {
  return origins && origins.length > 0 ? origins.join(' ') : "'none'";
}

/**
 * Serves the page at `/call/<call_sid>`. The page itself is public; what it opens, the audio socket, needs the call's
 * token. With that token in its URL, the page names the assistant; without it, it names nothing about the call. A call
 * a website widget started may be framed by that widget key's origins (its panel frames the page); every other page,
 * and any page without the call's token, may be framed by none.
 */
export function registerCallPage(app: FastifyInstance, options: { prisma: PrismaClient; tokens: StreamTokens }): void {
  app.get('/call/:call_sid', { schema: { hide: true }, config: { auth: 'public' } }, async (request, reply) => {
    const { call_sid } = request.params as { call_sid: string };
    const token = (request.query as Record<string, unknown>).token;
    const callSid = typeof token === 'string' ? options.tokens.verify(token) : null;
    let assistant: string | undefined;
    let framers: string[] | null = null;
    if (callSid !== null && callSid === call_sid) {
      const call = await options.prisma.call.findUnique({ where: { callSid }, select: { organizationId: true, assistantId: true } });
      if (call?.assistantId != null) assistant = await assistantName(options.prisma, call.organizationId, call.assistantId);
      framers = await framingOriginsOfCall(options.prisma, callSid);
    }
    return reply
      .type('text/html; charset=utf-8')
      .header(
        'content-security-policy',
        `default-src 'self'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; frame-ancestors ${frameAncestors(framers)}`,
      )
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .send(callPage(assistant, framers !== null));
  });
}
