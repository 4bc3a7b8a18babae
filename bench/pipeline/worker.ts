import { initializeLogger, type VAD } from '@livekit/agents';
import { loadVad } from '../../agent/turn/vad.js';
import { readFile } from 'node:fs/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { secondsToMs } from '../../agent/call/session-config.js';
import { BenchCall, benchSettings, type Turn } from './bench-call.js';
import type { Utterance } from './caller.js';

// One measurement in its own process (run.ts starts it pinned to one core): either turns of a single call one after
// another (latency), or N calls at once (load). Prints one line, `BENCH_RESULT {json}`, and exits.

export type WorkerJob =
  | { mode: 'latency'; llmUrl: string; phrasesFile: string; turnDetection: TurnDetectionMode; minDelayS: number; turns: number; capMs: number }
  | { mode: 'load'; llmUrl: string; phrasesFile: string; turnDetection: TurnDetectionMode; calls: number; callMs: number; capMs: number };

export type TurnDetectionMode = 'turn_detector' | 'text_turn_detector';

export interface TurnSample {
  /** End of speech to first audio out, less the endpointing delay that applied. */
  addedMs: number;
  vadMs: number | null;
  endpointingMs: number | null;
  replyMs: number | null;
  delay: 'min' | 'max';
}

export interface LatencyResult {
  mode: 'latency';
  turnDetection: TurnDetectionMode;
  minDelayMs: number;
  maxDelayMs: number;
  samples: TurnSample[];
  unanswered: number;
  transcriptsOk: boolean;
  errors: number;
}

export interface LoadResult {
  mode: 'load';
  turnDetection: TurnDetectionMode;
  calls: number;
  wallMs: number;
  cpuMs: number;
  baselineRssMb: number;
  peakRssMb: number;
  latenessMs: number[];
  samples: TurnSample[];
  expectedTurns: number;
  unanswered: number;
  interruptions: number;
  errors: number;
  eventLoopP99Ms: number;
}

/** Between the end of a reply and the next utterance: a caller's natural pause. */
const GAP_AFTER_REPLY_MS = 300;
/** A turn with no reply after this long is counted unanswered: 8 s is far beyond any endpointing delay used here. */
const TURN_TIMEOUT_MS = 8_000;
/**
 * Utterance offsets within each load call: two exchanges, 4.7 s apart, so that a reply after the longest endpointing
 * delay (up to 1.1 s of speech, 2.5 s counted from its end, a 0.8 s reply: 4.4 s) is over before the caller speaks again.
 */
const LOAD_SCRIPT_MS = [300, 5_000];
const CLOSE_TIMEOUT_MS = 5_000;
/** Event-loop delay sampling period: fine enough to see a stall of one 20 ms frame, cheap enough not to add load. */
const LOOP_RESOLUTION_MS = 10;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const collectGarbage = () => (globalThis as { gc?: () => void }).gc?.();

/**
 * BENCH_PLAIN_TRANSCRIPTS=1: the recogniser gives words without punctuation or capitals, as one with punctuation off
 * does. The words then leave every turn open, and the audio end-of-turn model decides each one: its most costly case.
 */
const plain = (text: string) => (process.env.BENCH_PLAIN_TRANSCRIPTS ? text.toLowerCase().replace(/[.,!?]/g, '') : text);

async function loadPhrases(file: string): Promise<Utterance[]> {
  const stored = JSON.parse(await readFile(file, 'utf8')) as Array<{ text: string; pcm: string }>;
  return stored.map(({ text, pcm }) => {
    const bytes = Buffer.from(pcm, 'base64');
    return { text: plain(text), samples: new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2).slice() };
  });
}

function sample(turn: Turn, minDelayMs: number, maxDelayMs: number): TurnSample | undefined {
  if (turn.firstAudioAt === undefined) return undefined;
  const delay = turn.delay ?? 'min';
  return {
    addedMs: turn.firstAudioAt - turn.speechEndAt - (delay === 'max' ? maxDelayMs : minDelayMs),
    vadMs: turn.vadEndAt !== undefined ? turn.vadEndAt - turn.speechEndAt : null,
    endpointingMs: turn.vadEndAt !== undefined && turn.committedAt !== undefined ? turn.committedAt - turn.vadEndAt : null,
    replyMs: turn.committedAt !== undefined ? turn.firstAudioAt - turn.committedAt : null,
    delay,
  };
}

async function latency(job: Extract<WorkerJob, { mode: 'latency' }>, vad: VAD): Promise<LatencyResult> {
  const phrases = await loadPhrases(job.phrasesFile);
  const settings = benchSettings(job.llmUrl, { mode: job.turnDetection, min_endpointing_delay: job.minDelayS });
  const minDelayMs = secondsToMs(settings.stt_settings.turn_detection.min_endpointing_delay);
  const maxDelayMs = secondsToMs(settings.stt_settings.turn_detection.max_endpointing_delay);
  const call = await BenchCall.start(settings, vad);
  // One turn first to warm the JIT, the turn detector and the LLM client's connection; it is not counted.
  const warmup = 1;
  let unanswered = 0;
  try {
    await sleep(GAP_AFTER_REPLY_MS);
    for (let i = 0; i < job.turns + warmup; i++) {
      call.caller.say(phrases[i % phrases.length]!);
      if (!(await call.replyPlayed(i, TURN_TIMEOUT_MS))) unanswered++;
      await sleep(GAP_AFTER_REPLY_MS);
    }
  } finally {
    await call.close(CLOSE_TIMEOUT_MS);
  }
  const expected = Array.from({ length: job.turns + warmup }, (_, i) => phrases[i % phrases.length]!.text);
  return {
    mode: 'latency',
    turnDetection: job.turnDetection,
    minDelayMs,
    maxDelayMs,
    samples: call.turns.slice(warmup).flatMap((t) => sample(t, minDelayMs, maxDelayMs) ?? []),
    unanswered,
    transcriptsOk: JSON.stringify(call.userTranscripts) === JSON.stringify(expected),
    errors: call.errors,
  };
}

async function load(job: Extract<WorkerJob, { mode: 'load' }>, vad: VAD): Promise<LoadResult> {
  const phrases = await loadPhrases(job.phrasesFile);
  const settings = benchSettings(job.llmUrl, { mode: job.turnDetection });
  const minDelayMs = secondsToMs(settings.stt_settings.turn_detection.min_endpointing_delay);
  const maxDelayMs = secondsToMs(settings.stt_settings.turn_detection.max_endpointing_delay);

  // A short call first, so that JIT compilation and first-use loading are not charged to the measured calls.
  const warm = await BenchCall.start(settings, vad);
  warm.caller.say(phrases[0]!, 300);
  await sleep(300);
  await warm.replyPlayed(0, TURN_TIMEOUT_MS);
  await warm.close(CLOSE_TIMEOUT_MS);
  collectGarbage();
  await sleep(200);

  const baselineRss = process.memoryUsage().rss;
  let peakRss = baselineRss;
  const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 250);
  const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  loop.enable();
  const cpu0 = process.cpuUsage();
  const t0 = Date.now();

  // Calls start spread over one second, as independent callers would; each follows the same script from its own start.
  const stagger = 1000 / job.calls;
  const calls = await Promise.all(
    Array.from({ length: job.calls }, async (_, i) => {
      await sleep(i * stagger);
      const call = await BenchCall.start(settings, vad);
      LOAD_SCRIPT_MS.forEach((at, k) => call.caller.say(phrases[(i + k) % phrases.length]!, at));
      await sleep(job.callMs);
      return call;
    }),
  );
  const wallMs = Date.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  loop.disable();
  clearInterval(rssTimer);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  await Promise.all(calls.map((c) => c.close(CLOSE_TIMEOUT_MS)));

  const turns = calls.flatMap((c) => c.turns);
  const samples = turns.flatMap((t) => sample(t, minDelayMs, maxDelayMs) ?? []);
  return {
    mode: 'load',
    turnDetection: job.turnDetection,
    calls: job.calls,
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    baselineRssMb: baselineRss / 2 ** 20,
    peakRssMb: peakRss / 2 ** 20,
    latenessMs: calls.flatMap((c) => c.latenessMs),
    samples,
    expectedTurns: job.calls * LOAD_SCRIPT_MS.length,
    unanswered: job.calls * LOAD_SCRIPT_MS.length - samples.length,
    interruptions: calls.reduce((n, c) => n + c.interruptions, 0),
    errors: calls.reduce((n, c) => n + c.errors, 0),
    // The histogram measures a timer of the given resolution, so its figures include that resolution.
    eventLoopP99Ms: Math.max(loop.percentile(99) / 1e6 - LOOP_RESOLUTION_MS, 0),
  };
}

export async function runWorker(job: WorkerJob): Promise<void> {
  initializeLogger({ pretty: false, level: process.env.BENCH_LOG_LEVEL ?? 'silent' });
  // The worker's own cap, inside run.ts's overall one: a wedged session must not keep the process alive.
  const cap = setTimeout(() => {
    process.stderr.write(`pipeline bench worker exceeded ${job.capMs} ms\n`);
    process.exit(2);
  }, job.capMs);
  cap.unref();
  // The same VAD the runtime picks (agent/turn/vad.ts): Silero with its silence window set by the minimum endpointing delay
  // and the turn detection, its end of speech corrected from the audio.
  const vad = await loadVad(job.mode === 'latency' ? job.minDelayS * 1000 : 300, job.turnDetection);
  const result = job.mode === 'latency' ? await latency(job, vad) : await load(job, vad);
  process.stdout.write(`BENCH_RESULT ${JSON.stringify(result)}\n`);
  process.exit(0);
}
