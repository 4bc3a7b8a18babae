import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

// The process's Prometheus metrics: one registry per process, read by the metrics endpoint (lib/metrics/server.ts).
// Labels are bounded sets (route templates, statuses, transports, stage names), never ids, numbers or text: a label
// value per call would grow the series without bound, and a caller's number must not leave the process this way.

export const registry = new Registry();

// Event-loop lag, CPU, memory, GC and handles, under the names Grafana's Node.js dashboards expect.
collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });

/** Seconds, for latencies from a few ms to a slow vendor's several seconds. */
const LATENCY_BUCKETS = [0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 8];

const callsStarted = new Counter({
  name: 'voice_calls_started_total',
  help: 'Calls this process started running, by transport.',
  labelNames: ['transport'] as const,
  registers: [registry],
});
const callsEnded = new Counter({
  name: 'voice_calls_ended_total',
  help: 'Calls this process ran to their end, by final status and transport.',
  labelNames: ['status', 'transport'] as const,
  registers: [registry],
});
const callsActive = new Gauge({
  name: 'voice_calls_active',
  help: 'Calls running in this process now, by transport.',
  labelNames: ['transport'] as const,
  registers: [registry],
});
const turnLatency = new Histogram({
  name: 'voice_turn_latency_seconds',
  help: "An assistant reply's latency by stage: end_of_utterance (speech end to turn end), llm_ttft, tts_ttfb, e2e (speech end to first audio).",
  labelNames: ['stage'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});
const httpResponses = new Counter({
  name: 'voice_http_responses_total',
  help: 'API responses by route template, method and status code.',
  labelNames: ['route', 'method', 'status'] as const,
  registers: [registry],
});
const httpDuration = new Histogram({
  name: 'voice_http_request_duration_seconds',
  help: 'API request duration by route template and method.',
  labelNames: ['route', 'method'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

const dials = new Counter({
  name: 'voice_dials_total',
  help: 'Outbound calls this process started dialling (API calls and campaigns), by transport.',
  labelNames: ['transport'] as const,
  registers: [registry],
});
const eotInference = new Histogram({
  name: 'voice_eot_inference_seconds',
  help: "The audio end-of-turn model's time for one prediction, in its own process.",
  buckets: [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 1],
  registers: [registry],
});

const vadInference = new Histogram({
  name: 'voice_vad_inference_seconds',
  help: "The voice activity detector's time for one inference (a 32 ms window of a call's audio), on the call's event loop.",
  buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05],
  registers: [registry],
});
const frameLateness = new Histogram({
  name: 'voice_audio_frame_lateness_seconds',
  help: "How late the assistant's audio frames left for the caller, past their due time.",
  buckets: [0.005, 0.01, 0.02, 0.04, 0.06, 0.1, 0.2, 0.5],
  registers: [registry],
});

/** The pools of database connections this process holds (prisma/client.ts adds each as it is made). */
export interface ConnectionPool {
  /** Set once the pool is closed: it is then forgotten. */
  readonly ended: boolean;
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}
const pools = new Set<ConnectionPool>();
new Gauge({
  name: 'voice_db_pool_connections',
  help: "This process's database connections, by state: busy (running a statement or a transaction) or idle.",
  labelNames: ['state'] as const,
  registers: [registry],
  collect() {
    let total = 0;
    let idle = 0;
    for (const pool of pools) {
      if (pool.ended) {
        pools.delete(pool);
        continue;
      }
      total += pool.totalCount;
      idle += pool.idleCount;
    }
    this.set({ state: 'busy' }, total - idle);
    this.set({ state: 'idle' }, idle);
  },
});
new Gauge({
  name: 'voice_db_pool_waiting',
  help: 'Queries of this process waiting for a free database connection.',
  registers: [registry],
  collect() {
    let waiting = 0;
    for (const pool of pools) waiting += pool.waitingCount;
    this.set(waiting);
  },
});

/** The stages a stored turn's `metrics` carries (agent/turn/metrics.ts), by their metric label. */
const STAGES: ReadonlyArray<[key: string, stage: string]> = [
  ['end_of_utterance_delay_ms', 'end_of_utterance'],
  ['llm_ttft_ms', 'llm_ttft'],
  ['tts_ttfb_ms', 'tts_ttfb'],
  ['e2e_latency_ms', 'e2e'],
];

/** A call began running here; the returned function records its end with its final status (call it once). */
export function callStarted(transport: string): (status: string) => void {
  callsStarted.inc({ transport });
  callsActive.inc({ transport });
  let ended = false;
  return (status) => {
    if (ended) return;
    ended = true;
    callsActive.dec({ transport });
    callsEnded.inc({ status, transport });
  };
}

/** An assistant reply's latency breakdown, in ms as stored on the turn. */
export function observeTurnLatency(metrics: Record<string, number> | null): void {
  if (!metrics) return;
  for (const [key, stage] of STAGES) {
    const ms = metrics[key];
    if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) turnLatency.observe({ stage }, ms / 1000);
  }
}

/** One API response; `route` is the route's template (`/api/calls/:call_sid`), or `unmatched`. */
export function observeHttpResponse(route: string, method: string, status: number, seconds: number): void {
  httpResponses.inc({ route, method, status: String(status) });
  httpDuration.observe({ route, method }, seconds);
}

/** An outbound call's dial began here. */
export function dialStarted(transport: string): void {
  dials.inc({ transport });
}

/** One end-of-turn prediction, as long as the model reports it took. */
export function observeEotInference(ms: number): void {
  if (Number.isFinite(ms) && ms >= 0) eotInference.observe(ms / 1000);
}

/** One inference of the voice activity detector, as long as it took (ms). */
export function observeVadInference(ms: number): void {
  if (Number.isFinite(ms) && ms >= 0) vadInference.observe(ms / 1000);
}

/** A frame of the assistant's audio left this late (ms past its due time). */
export function observeFrameLateness(ms: number): void {
  if (Number.isFinite(ms)) frameLateness.observe(Math.max(ms, 0) / 1000);
}

/** Counts `pool`'s connections on the endpoint until it is closed. */
export function watchConnectionPool(pool: ConnectionPool): void {
  // Closed pools are dropped here too, so that a process that makes many and is never scraped keeps none of them.
  for (const known of pools) if (known.ended) pools.delete(known);
  pools.add(pool);
}
