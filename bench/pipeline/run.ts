import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { espeakSynthesize } from '../../media/voice/espeak.js';
import { resampleLinear } from '../../media/pcm.js';
import { startFakeOpenAI } from '../../test/fakes/vendors/openai.js';
import { CALLER_RATE, trimSilence } from './caller.js';
import type { LatencyResult, LoadResult, TurnDetectionMode, TurnSample, WorkerJob } from './worker.js';

// The voice pipeline with instant vendors and real-time audio: (a) the latency the pipeline itself adds between the
// end of the caller's speech and the first reply audio, beyond the endpointing delay; (b) how many concurrent calls one
// core carries, with CPU, memory and the playout's frame lateness. Each measurement runs in its own process, pinned to
// core 0 with taskset where available; the instant LLM server runs here, outside the measured process, like a vendor.
//
// BENCH_TURNS (default 15) turns per latency run, BENCH_LATENCY (default all four) which latency runs, as
// mode:seconds pairs such as `turn_detector:0.3,text_turn_detector:0.6`, BENCH_STEPS (default 1,2,4,8,10,12) concurrent calls per load step
// (the largest is run once more with the text turn detector, which needs no model inference),
// BENCH_CALL_SECONDS (default 10) per load call, BENCH_LOG_LEVEL for the workers' logs (default silent),
// BENCH_PLAIN_TRANSCRIPTS=1 for a recogniser without punctuation (every turn then goes to the audio model).

const self = fileURLToPath(import.meta.url);

/**
 * Both parts take about 6.5 minutes; past 8 minutes the run is stopped and reports what it has, so
 * a contended machine cannot keep it going.
 */
const OVERALL_CAP_MS = 8 * 60_000;
/**
 * A latency turn takes 2.5 s to 5 s (speech, endpointing up to the 2.5 s max delay, a 0.8 s reply, a pause); a load
 * step is its calls plus ~8 s of start-up and warm-up.
 */
const TURN_BUDGET_MS = 7_000;
const STEP_OVERHEAD_MS = 20_000;
/**
 * Part (a): the product's defaults (audio turn detector, 0.3 s min delay, 2.5 s max), the audio turn detector at 0.5 s
 * (where its model's inference, started after 200 ms of silence, fits inside the delay), then the text turn detector,
 * which applies the min delay to every one of these complete phrases, at 0.3 s and at 0.6 s.
 */
const LATENCY_RUNS: Array<{ turnDetection: TurnDetectionMode; minDelayS: number }> = [
  { turnDetection: 'turn_detector', minDelayS: 0.3 },
  { turnDetection: 'turn_detector', minDelayS: 0.5 },
  { turnDetection: 'text_turn_detector', minDelayS: 0.3 },
  { turnDetection: 'text_turn_detector', minDelayS: 0.6 },
];
/** The instant LLM's answer: 14 characters, about 0.8 s of audio from the instant voice. */
const REPLY = 'Sure, will do.';
/** Short complete sentences, 0.6 to 1.1 s as espeak says them. */
const PHRASES = ['What time is it?', 'Good morning.', 'Yes, please.', 'Thank you very much.', 'Book a table for two.'];

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(Math.ceil((p / 100) * sorted.length) - 1, sorted.length - 1)]!;
}

const ms = (v: number) => (Number.isFinite(v) ? `${Math.round(v)} ms` : 'n/a');
const ms1 = (v: number) => (Number.isFinite(v) ? `${v.toFixed(1)} ms` : 'n/a');

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(headers), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...rows.map(line)].join('\n');
}

async function synthesizePhrases(dir: string): Promise<string> {
  const stored = [];
  for (const text of PHRASES) {
    const audio = await espeakSynthesize(text, { voice: 'en-us', wordsPerMinute: 175, pitch: 50 });
    const samples = trimSilence(resampleLinear(audio.samples, audio.sampleRate, CALLER_RATE));
    stored.push({ text, pcm: Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength).toString('base64') });
  }
  const file = path.join(dir, 'phrases.json');
  await writeFile(file, JSON.stringify(stored));
  return file;
}

let current: ChildProcess | undefined;

function runChild<T>(job: WorkerJob, pin: boolean): Promise<T> {
  const args = ['--expose-gc', '--import', 'tsx', self, 'worker', JSON.stringify(job)];
  const child = pin
    ? spawn('taskset', ['-c', '0', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
    : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  current = child;
  return new Promise<T>((resolve, reject) => {
    let result: T | undefined;
    // The worker has its own cap; this one catches a worker that cannot even reach its timer.
    const timer = setTimeout(() => child.kill('SIGKILL'), job.capMs + 10_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('BENCH_RESULT ')) result = JSON.parse(line.slice('BENCH_RESULT '.length)) as T;
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      current = undefined;
      if (result) resolve(result);
      else reject(new Error(`worker ${job.mode} exited with ${code} and no result`));
    });
  });
}

function latencyRow(r: LatencyResult): string[] {
  const added = r.samples.map((s) => s.addedMs);
  const atMin = r.samples.filter((s) => s.delay === 'min').length;
  const p50 = (pick: (s: TurnSample) => number | null) =>
    percentile(
      r.samples.flatMap((s) => pick(s) ?? []),
      50,
    );
  return [
    r.turnDetection,
    `${r.minDelayMs} / ${r.maxDelayMs} ms`,
    `${atMin} / ${r.samples.length - atMin}${r.unanswered ? `, ${r.unanswered} unanswered` : ''}`,
    ms(percentile(added, 50)),
    ms(percentile(added, 95)),
    ms(Math.max(...added)),
    ms(p50((s) => s.vadMs)),
    ms(p50((s) => s.endpointingMs)),
    ms(p50((s) => s.replyMs)),
  ];
}

/** p50 / p95 of the added latency of the turns that waited the min delay and of those that waited the max. */
function splitByDelay(samples: TurnSample[]): string {
  return (['min', 'max'] as const)
    .map((delay) => {
      const added = samples.filter((s) => s.delay === delay).map((s) => s.addedMs);
      return added.length ? `at ${delay} delay (${added.length}) p50 ${ms(percentile(added, 50))}, p95 ${ms(percentile(added, 95))}` : '';
    })
    .filter(Boolean)
    .join('; ');
}

function loadRow(r: LoadResult): string[] {
  const cpuPct = (100 * r.cpuMs) / r.wallMs;
  const added = r.samples.map((s) => s.addedMs);
  return [
    r.turnDetection === 'turn_detector' ? String(r.calls) : `${r.calls} (text turn detector)`,
    `${cpuPct.toFixed(0)} %`,
    `${(cpuPct / r.calls).toFixed(1)} %`,
    `${r.peakRssMb.toFixed(0)} MB`,
    `${((r.peakRssMb - r.baselineRssMb) / r.calls).toFixed(1)} MB`,
    ms1(percentile(r.latenessMs, 50)),
    ms1(percentile(r.latenessMs, 99)),
    ms(Math.max(...r.latenessMs)),
    ms1(r.eventLoopP99Ms),
    `${ms(percentile(added, 50))} / ${ms(percentile(added, 95))}`,
    `${r.expectedTurns - r.unanswered}/${r.expectedTurns}${r.interruptions ? `, ${r.interruptions} interrupted` : ''}${r.errors ? `, ${r.errors} errors` : ''}`,
  ];
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  const turns = Number(process.env.BENCH_TURNS ?? 15);
  const latencyRuns = process.env.BENCH_LATENCY
    ? process.env.BENCH_LATENCY.split(',').map((pair) => {
        const [turnDetection, seconds] = pair.split(':');
        const run = LATENCY_RUNS.find((r) => r.turnDetection === turnDetection && r.minDelayS === Number(seconds));
        if (!run) throw new Error(`BENCH_LATENCY: no latency run ${pair}`);
        return run;
      })
    : LATENCY_RUNS;
  const steps = (process.env.BENCH_STEPS ?? '1,2,4,8,10,12').split(',').map(Number);
  const callMs = Number(process.env.BENCH_CALL_SECONDS ?? 10) * 1000;
  if (!Number.isInteger(turns) || turns < 1 || turns > 100) throw new Error('BENCH_TURNS must be 1..100');
  if (steps.some((n) => !Number.isInteger(n) || n < 1 || n > 50)) throw new Error('BENCH_STEPS must be integers 1..50');
  if (!(callMs >= 5_000 && callMs <= 60_000)) throw new Error('BENCH_CALL_SECONDS must be 5..60');

  const pin = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
  const latencyResults: LatencyResult[] = [];
  const loadResults: LoadResult[] = [];
  const load0 = os.loadavg();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-pipeline-'));
  const llm = await startFakeOpenAI(() => ({ text: REPLY }));

  const report = () => {
    console.log(
      `\nnode ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), ${pin ? 'workers pinned to core 0 (taskset -c 0)' : 'taskset unavailable: workers NOT pinned'}`,
    );
    console.log(
      `load average at start ${load0.map((l) => l.toFixed(2)).join(' ')}, at end ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    if (latencyResults.length > 0) {
      console.log('\n(a) End of caller speech to first reply audio, less the endpointing delay (target p95 < 50 ms)\n');
      const headers = [
        'turn detection',
        'min / max delay',
        'turns at min / max',
        'added p50',
        'added p95',
        'added max',
        'speech end -> VAD end p50',
        'VAD end -> commit p50',
        'commit -> first audio p50',
      ];
      console.log(table(headers, latencyResults.map(latencyRow)));
      for (const r of latencyResults) {
        console.log(
          `  ${r.turnDetection} ${r.minDelayMs} ms: ${splitByDelay(r.samples)}; transcripts ${r.transcriptsOk ? 'as spoken' : 'NOT as spoken'}, ${r.errors} session errors`,
        );
      }
    }
    if (loadResults.length > 0) {
      console.log(`\n(b) Concurrent calls on one core, ${callMs / 1000} s each, 2 exchanges per call, product defaults (audio turn detector);`);
      console.log('    the last row repeats the largest step with the text turn detector (target >= 10 calls with p99 frame lateness < 20 ms)\n');
      console.log(
        table(
          [
            'calls',
            'CPU (one core)',
            'CPU per call',
            'RSS',
            'RSS per call',
            'lateness p50',
            'lateness p99',
            'lateness max',
            'event loop lag p99',
            'added latency p50 / p95',
            'replies',
          ],
          loadResults.map(loadRow),
        ),
      );
      for (const r of loadResults) console.log(`  ${r.calls} calls, ${r.turnDetection}: ${splitByDelay(r.samples)}`);
      const defaults = loadResults.filter((r) => r.turnDetection === 'turn_detector');
      const one = defaults.find((r) => r.calls === 1);
      const most = defaults.at(-1);
      if (one && most && most.calls > 1) {
        const marginal = (100 * (most.cpuMs / most.wallMs - one.cpuMs / one.wallMs)) / (most.calls - 1);
        console.log(`\nCPU of each call beyond the first (from 1 to ${most.calls} calls): ${marginal.toFixed(1)} % of the core`);
      }
      const ok = defaults.filter((r) => percentile(r.latenessMs, 99) < 20 && r.unanswered === 0).map((r) => r.calls);
      console.log(`most concurrent calls (defaults) with p99 lateness < 20 ms and every turn answered: ${ok.length ? Math.max(...ok) : 'none'}`);
    }
    console.log(`\ntotal ${((Date.now() - startedAt) / 1000).toFixed(0)} s`);
  };

  const overall = setTimeout(() => {
    console.error(`pipeline bench stopped after ${OVERALL_CAP_MS / 1000} s`);
    current?.kill('SIGKILL');
    report();
    process.exit(1);
  }, OVERALL_CAP_MS);

  try {
    const phrasesFile = await synthesizePhrases(dir);
    const llmUrl = `${llm.url}/v1`;
    for (const { turnDetection, minDelayS } of latencyRuns) {
      const capMs = STEP_OVERHEAD_MS + (turns + 1) * TURN_BUDGET_MS;
      latencyResults.push(await runChild<LatencyResult>({ mode: 'latency', llmUrl, phrasesFile, turnDetection, minDelayS, turns, capMs }, pin));
      console.error(`latency, ${turnDetection} at min delay ${minDelayS} s: done`);
    }
    const loadRuns = [
      ...steps.map((calls) => ({ calls, turnDetection: 'turn_detector' as const })),
      { calls: Math.max(...steps), turnDetection: 'text_turn_detector' as const },
    ];
    for (const { calls, turnDetection } of loadRuns) {
      loadResults.push(
        await runChild<LoadResult>({ mode: 'load', llmUrl, phrasesFile, turnDetection, calls, callMs, capMs: STEP_OVERHEAD_MS + callMs + 2_000 }, pin),
      );
      console.error(`load, ${calls} calls with ${turnDetection}: done`);
    }
  } finally {
    clearTimeout(overall);
    await llm.close();
    await rm(dir, { recursive: true, force: true });
  }
  report();
}

if (process.argv[2] === 'worker') {
  const { runWorker } = await import('./worker.js');
  await runWorker(JSON.parse(process.argv[3]!) as WorkerJob);
} else {
  await main();
}
