import type { FastifyInstance, FastifyRequest } from 'fastify';
import { contextOfHeaders, SpanKind, SpanStatusCode, trace, traceContext, tracer, type Span } from '../../lib/tracing/index.js';

// A server span per request when the process exports traces, named by its route template (`GET /api/calls/:call_sid`,
// never the URL, which can carry phone numbers and emails) and joined to the caller's trace by its `traceparent`
// header. Everything the request does (a call's row it creates) runs inside it.
//
// Written here rather than taken from @fastify/otel: that instrumentation takes its parent from the active context,
// which only @opentelemetry/instrumentation-http sets, by patching Node's `http` for every request; and it wraps every
// hook of every route in a span of its own. Both cost on the request path that bench:api measures, for spans an
// operator does not read. These three hooks are the whole of what is needed.

const spans = new WeakMap<FastifyRequest, Span>();

/** Adds the request spans to `app`; the process's tracing decides whether they are added at all. */
export function registerRequestSpans(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    const parent = contextOfHeaders(request.headers);
    const span = tracer().startSpan(
      route ? `${request.method} ${route}` : request.method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method, ...(route ? { 'http.route': route } : {}) } },
      parent,
    );
    spans.set(request, span);
    // The rest of the request's life (its handler and what it awaits) runs with this span active.
    traceContext.with(trace.setSpan(parent, span), done);
  });
  app.addHook('onResponse', async (request, reply) => {
    const span = spans.get(request);
    if (!span) return;
    spans.delete(request);
    span.setAttribute('http.response.status_code', reply.statusCode);
    if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  app.addHook('onRequestAbort', async (request) => {
    const span = spans.get(request);
    if (!span) return;
    spans.delete(request);
    // The client went before the answer: no status code to record.
    span.setAttribute('error.type', 'request_aborted');
    span.end();
  });
}
