import os from 'node:os';
import { context, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { markExporting } from './spans.js';

// The process's traces, exported over OTLP/HTTP (protobuf) to the collector the operator names. The SDK reads the
// standard variables itself where we pass nothing (OTEL_EXPORTER_OTLP_HEADERS, OTEL_TRACES_SAMPLER and its argument,
// OTEL_BSP_*), so an operator's existing OpenTelemetry setup works unchanged.

/** Where and how a process exports its traces (lib/config.ts reads them from the OTEL_* variables). */
export interface TracingSettings {
  /** The collector's trace endpoint, `…/v1/traces`. */
  endpoint: string;
  /** OTEL_SERVICE_NAME; default the process's role (`voice-api`, `voice-agent`, `voice-platform` for both). */
  serviceName?: string | undefined;
  /**
   * TRACES_INCLUDE_CONTENT: whether the speech framework's spans keep what was said, prompts and tool arguments. Off by
   * default: traces leave the service for a collector that may keep them longer, and by more people, than the calls'
   * own records.
   */
  includeContent: boolean;
}

export interface Tracing {
  readonly settings: TracingSettings;
  readonly provider: NodeTracerProvider;
  /** Exports what is still buffered, then stops: the process's last spans are not lost on shutdown. */
  stop(): Promise<void>;
}

let running: Tracing | undefined;

/**
 * Starts exporting this process's spans and makes the provider the process's global one, with the W3C trace-context
 * propagator. `processors` see every span before it is exported (the speech framework's content filter). Once per
 * process; a second start is given the running one.
 */
export function startExport(settings: TracingSettings, role: string, processors: SpanProcessor[] = []): Tracing {
  if (running) return running;
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      'service.name': settings.serviceName ?? role,
      'service.instance.id': `${os.hostname()}:${process.pid}`,
    }),
    spanProcessors: [...processors, new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.endpoint }))],
  });
  provider.register();
  const started: Tracing = {
    settings,
    provider,
    async stop() {
      if (running !== started) return;
      running = undefined;
      markExporting(false);
      await provider.shutdown().catch(() => {});
      // The process is left as it was before: a later start (another test file in the same process) registers anew.
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
  running = started;
  markExporting(true);
  return started;
}
