import { telemetry } from '@livekit/agents';
import { startTracing, trace, type Tracing, type TracingSettings } from '../lib/tracing/index.js';

// A calls' process exports the speech framework's spans (the session, each turn, each model's request) with ours, into
// the same trace as its call. The framework adds its content filter to the provider through the fan-out it is given:
// unless TRACES_INCLUDE_CONTENT is set, what was said, prompts and tool arguments are taken off its spans before export.

/** Starts the process's tracing (lib/tracing) and hands the provider to the speech framework. */
export async function startAgentTracing(settings: TracingSettings, role: string): Promise<Tracing> {
  const fanout = new telemetry.FanoutSpanProcessor();
  const tracing = await startTracing(settings, role, [fanout]);
  telemetry.setTracerProvider(tracing.provider, { registerSpanProcessor: (processor) => fanout.add(processor), allowPii: settings.includeContent });
  return {
    settings,
    provider: tracing.provider,
    async stop() {
      await tracing.stop();
      // Back to the API's no-op provider, as before the start (set on the framework's tracer itself: handing it to
      // setTracerProvider again would ask for a content filter a no-op provider has no use for).
      telemetry.tracer.setProvider(trace.getTracerProvider());
    },
  };
}
