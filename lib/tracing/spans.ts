import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';

// Our spans beside the speech framework's: the same API, so a call's spans and the framework's turn spans nest in one
// trace. Without a registered provider (no OTLP endpoint configured) every tracer here is the API's no-op one.

const TRACER_NAME = 'voice-platform';

let exporting = false;

/** Whether this process exports traces (the API adds its request spans only then). */
export function tracingEnabled(): boolean {
  return exporting;
}

/** Set by the provider as it starts and stops (provider.ts). */
export function markExporting(on: boolean): void {
  exporting = on;
}

export function tracer() {
  return trace.getTracer(TRACER_NAME);
}

/**
 * Runs `work` in a span named `name`, active for everything it awaits, ended when it settles. A failure marks the span
 * an error with the error's kind only: messages can carry what a caller said or a tool was given.
 */
export async function inSpan<T>(name: string, attributes: Attributes, work: (span: Span) => Promise<T>, parent: Context = context.active()): Promise<T> {
  return tracer().startActiveSpan(name, { attributes }, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      markFailed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Marks `span` failed with the kind of error only (its class name), never its message. */
export function markFailed(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute('error.type', error instanceof Error ? error.constructor.name : typeof error);
}

/**
 * The active span's W3C `traceparent`, to be stored with work another process will take up (a call's row), or null when
 * no span is recording (tracing off, or nothing traced here).
 */
export function currentTraceParent(): string | null {
  if (!trace.getSpan(context.active())?.isRecording()) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/** The context a stored `traceparent` names, to start a span in its trace; the root context without one. */
export function contextOfTraceParent(traceParent: string | null | undefined): Context {
  if (!traceParent) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { traceparent: traceParent });
}

/** The context an incoming request's headers name (`traceparent`, `tracestate`), for its server span. */
export function contextOfHeaders(headers: Record<string, string | string[] | undefined>): Context {
  return propagation.extract(ROOT_CONTEXT, headers);
}

export { context as traceContext, SpanKind, SpanStatusCode, trace };
export type { Attributes, Context, Span };
