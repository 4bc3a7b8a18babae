import type { SpanProcessor } from '@opentelemetry/sdk-trace-node';
import type { Tracing, TracingSettings } from './provider.js';

// OpenTelemetry traces for the operator: the provider that exports them over OTLP (provider.ts) and the helpers our
// code makes its spans with (spans.ts). docs/operations.md says what a trace holds.

export type { Tracing, TracingSettings };
export {
  contextOfHeaders,
  contextOfTraceParent,
  currentTraceParent,
  inSpan,
  markFailed,
  SpanKind,
  SpanStatusCode,
  trace,
  traceContext,
  tracer,
  tracingEnabled,
  type Attributes,
  type Context,
  type Span,
} from './spans.js';

/**
 * Starts exporting this process's spans over OTLP (provider.ts): loaded only then, so that a process without an
 * endpoint never loads the SDK and its exporter.
 */
export async function startTracing(settings: TracingSettings, role: string, processors: SpanProcessor[] = []): Promise<Tracing> {
  const { startExport } = await import('./provider.js');
  return startExport(settings, role, processors);
}
