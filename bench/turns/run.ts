import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startFakeOpenAI } from '../../test/fakes/vendors/openai.js';
import { cachedPcmPath, engineVersion, loadRendering, readManifest } from './corpus/render.js';
import { LEAD_QUESTION_ID, OFFSETS_MS, SCRIPT, VOICES, type ItemKind, type ScriptItem, type VoiceSpec } from './corpus/script.js';
import type { CompleteSample, OverlapSample, PauseSample, RowResult, RunSpec, WorkerJob } from './worker.js';

// Turn-taking on a labelled corpus (bench/turns/corpus): how often the assistant cuts a caller off in a pause inside
// their turn, how long it waits after a finished sentence, and what a backchannel or a barge-in over its reply does.
// Each row of settings runs in its own Node process pinned to core 0 (taskset -c 0; the end-of-turn model's process
// inherits the pinning), on a session built from the assistant's settings by buildSessionOptions, with the pipeline
// benchmark's instant recogniser and voice; the instant LLM server runs here, outside the measured process.
//
// BENCH_TURNS_ROWS (default `defaults,text_turn_detector:0.3,text_turn_detector:0.6`): `defaults` is the product's
// turn_detection as shipped; `mode:seconds` sets the mode and the min endpointing delay.
// BENCH_TURNS_ITEMS (default `pauses:14x1,complete:20x1,backchannel:6x1,barge_in:4x1`): per kind, how many
// renderings and at how many of the offsets (0, 8, 13, 21 ms) each is played.
// BENCH_LOG_LEVEL for the workers' logs (default silent); BENCH_TURNS_JSON=file writes every sample there;
// BENCH_TURNS_TRACE=1 prints each backchannel and barge-in run's events.

const self = fileURLToPath(import.meta.url);

/** Three rows take about 13 minutes; past 25 the run stops and reports what it has. */
const OVERALL_CAP_MS = 25 * 60_000;
/** A run takes 3 to 10 s (a backchannel run: a question, its commit, a reply, the backchannel, the resume timeout). */
const RUN_BUDGET_MS = 15_000;
const ROW_OVERHEAD_MS = 30_000;
/**
 * The instant LLM's answer to everything: 117 characters, about 6.4 s of audio from the instant voice, so that a
 * backchannel or barge-in 1 s into it, and a reply resumed 2 s after it, all fall inside the reply.
 */
const REPLY = 'We open at nine in the morning and close at six in the evening, and on Saturdays we close a little earlier, at four.';

const ROWS_DEFAULT = 'defaults,text_turn_detector:0.3,text_turn_detector:0.6';
const ITEMS_DEFAULT = 'pauses:14x1,complete:20x1,backchannel:6x1,barge_in:4x1';

interface RowSpec {
  label: string;
  turnDetection: Record<string, unknown>;
}

function parseRows(spec: string): RowSpec[] {
  return spec.split(',').map((entry) => {
    if (entry === 'defaults') return { label: 'defaults', turnDetection: {} };
    const [mode, seconds] = entry.split(':');
    if ((mode !== 'turn_detector' && mode !== 'text_turn_detector') || !(Number(seconds) >= 0 && Number(seconds) <= 10))
      throw new Error(`BENCH_TURNS_ROWS: cannot read ${entry}`);
    return { label: `${mode} ${seconds} s`, turnDetection: { mode, min_endpointing_delay: Number(seconds) } };
  });
}

function parseItems(spec: string): Map<ItemKind, { renderings: number; offsets: number }> {
  const counts = new Map<ItemKind, { renderings: number; offsets: number }>();
  for (const entry of spec.split(',')) {
    const match = /^(pauses|complete|backchannel|barge_in):(\d+)x(\d+)$/.exec(entry);
    if (!match || Number(match[2]) > 200 || Number(match[3]) < 1 || Number(match[3]) > OFFSETS_MS.length)
      throw new Error(`BENCH_TURNS_ITEMS: cannot read ${entry}`);
    counts.set(match[1] as ItemKind, { renderings: Number(match[2]), offsets: Number(match[3]) });
  }
  return counts;
}

/**
 * Which renderings each kind plays: the kind's items in turn, each in a different voice (a stride through the voices
 * per kind, so kinds do not pair the same items with the same voices), at offsets spread over the list. Distinct
 * renderings tell more than offsets of the same one: the end-of-turn model gives the same verdict to the same audio, and
 * an offset of a few ms changed it for 1 of 10 finished sentences (BENCH_TURNS_ITEMS=complete:10x4 shows which).
 */
function select(kind: ItemKind, renderings: number, offsets: number, voices: VoiceSpec[]): Array<{ item: ScriptItem; voice: VoiceSpec; offsetMs: number }> {
  const items = SCRIPT.filter((i) => i.kind === kind);
  const stride = { pauses: 3, complete: 3, backchannel: 7, barge_in: 3 }[kind];
  const start = { pauses: 0, complete: 1, backchannel: 2, barge_in: 5 }[kind];
  const chosen = [];
  for (let j = 0; j < renderings; j++) {
    const item = items[j % items.length]!;
    // Past the first pass over the items the voices shift by one, so that no rendering is drawn twice.
    const voice = voices[(start + j * stride + Math.floor(j / items.length)) % voices.length]!;
    for (let r = 0; r < offsets; r++) {
      chosen.push({ item, voice, offsetMs: OFFSETS_MS[(j + Math.floor((r * OFFSETS_MS.length) / offsets)) % OFFSETS_MS.length]! });
    }
  }
  return chosen;
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(Math.ceil((p / 100) * sorted.length) - 1, sorted.length - 1)]!;
}

const ms = (v: number) => (Number.isFinite(v) ? `${Math.round(v).toLocaleString('en-US')} ms` : 'n/a');
const share = (n: number, of: number) => (of === 0 ? 'n/a' : `${Math.round((100 * n) / of)} % (${n}/${of})`);

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(headers), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...rows.map(line)].join('\n');
}

let current: ChildProcess | undefined;

function runChild(job: WorkerJob, pin: boolean): Promise<RowResult> {
  const args = ['--import', 'tsx', self, 'worker'];
  const child = pin
    ? spawn('taskset', ['-c', '0', process.execPath, ...args], { stdio: ['pipe', 'pipe', 'inherit'] })
    : spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  current = child;
  // The job (every run's labels) is too long for an argument: it goes through stdin.
  child.stdin!.end(JSON.stringify(job));
  return new Promise<RowResult>((resolve, reject) => {
    let result: RowResult | undefined;
    // The worker has its own cap; this one catches a worker that cannot even reach its timer.
    const timer = setTimeout(() => child.kill('SIGKILL'), job.capMs + 10_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('BENCH_RESULT ')) result = JSON.parse(line.slice('BENCH_RESULT '.length)) as RowResult;
      // The session's own log (BENCH_LOG_LEVEL) is the worker's stdout too.
      else process.stderr.write(`${line}\n`);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      current = undefined;
      if (result) resolve(result);
      else reject(new Error(`worker exited with ${code} and no result`));
    });
  });
}

interface Row {
  spec: RowSpec;
  result: RowResult;
}

function summaryRow({ spec, result: r }: Row): string[] {
  const cut = r.pauses.filter((p) => p.cut).length;
  const latencies = r.complete.flatMap((c) => c.latencyMs ?? []);
  const backchannels = r.overlaps.filter((o) => o.kind === 'backchannel' && o.valid);
  const interrupted = backchannels.filter((o) => o.interrupted);
  const bargeIns = r.overlaps.filter((o) => o.kind === 'barge_in' && o.valid);
  const stops = bargeIns.flatMap((o) => o.stopMs ?? []);
  const leaked = bargeIns.filter((o) => o.oldFramesAfterStop > 0);
  return [
    spec.label,
    `${r.minDelayMs} / ${r.maxDelayMs} ms`,
    share(cut, r.pauses.length),
    `${ms(percentile(latencies, 50))} / ${ms(percentile(latencies, 95))}`,
    `${r.complete.filter((c) => verdictOf(c) === 'unfinished').length}/${r.complete.length}`,
    `${r.commitsBeforeEnd} of ${r.commitsChecked}`,
    `${interrupted.length}/${backchannels.length}, resumed ${interrupted.filter((o) => o.resumed).length}/${interrupted.length}`,
    `${ms(percentile(stops, 50))} / ${ms(Math.max(...stops))} (${stops.length}/${bargeIns.length} stopped)`,
    `${leaked.length}/${bargeIns.length}${leaked.length ? ` (${leaked.map((o) => o.oldFramesAfterStop * 20).join(', ')} ms)` : ''}`,
  ];
}

function groupCuts(pauses: PauseSample[], key: (p: PauseSample) => string): string {
  const groups = new Map<string, PauseSample[]>();
  for (const p of pauses) groups.set(key(p), [...(groups.get(key(p)) ?? []), p]);
  return [...groups].map(([k, list]) => `${k} ${list.filter((p) => p.cut).length}/${list.length}`).join(', ');
}

const lengthBucket = (p: PauseSample) => (p.pauseMs < 750 ? '0.5-0.7 s' : p.pauseMs < 1050 ? '0.8-1.0 s' : '1.1-1.2 s');

function verdictOf(c: CompleteSample): string {
  if (c.probability === null || c.threshold === null) return 'none';
  return c.probability < c.threshold ? 'unfinished' : 'finished';
}

function details({ spec, result: r }: Row): string[] {
  const lines = [`${spec.label} (${r.mode}, min ${r.minDelayMs} ms, max ${r.maxDelayMs} ms):`];
  const cuts = r.pauses.filter((p) => p.cut);
  lines.push(
    `  false cut-offs by topic: ${groupCuts(r.pauses, (p) => p.topic)}; by pause: ${groupCuts(r.pauses, lengthBucket)}; ` +
      `${cuts.filter((p) => p.beforeResume).length} committed before the caller resumed, ${cuts.filter((p) => !p.beforeResume).length} after (not yet heard), ${cuts.filter((p) => p.repaired).length} repaired into one turn; ` +
      `commit ${ms(
        percentile(
          cuts.flatMap((p) => p.commitMs ?? []),
          50,
        ),
      )} after the pause began (p50)`,
  );
  const judged = r.pauses.filter((p) => p.probability !== null);
  if (judged.length) {
    lines.push(
      `  verdicts in pauses: ${judged.filter((p) => p.probability! < p.threshold!).length} of ${judged.length} unfinished (probability p50 ${percentile(
        judged.map((p) => p.probability!),
        50,
      ).toFixed(3)}, threshold ${judged[0]!.threshold!.toFixed(3)})`,
    );
  }
  const verdicts = r.complete.map(verdictOf);
  const byVerdict = (v: string) => r.complete.filter((c, i) => verdicts[i] === v && c.latencyMs !== null).map((c) => c.latencyMs!);
  lines.push(
    `  finished sentences: ${verdicts.filter((v) => v === 'unfinished').length} of ${r.complete.length} judged unfinished (waited the max delay), ` +
      `${r.complete.filter((c) => c.latencyMs === null).length} never committed; commit p50 ${ms(percentile(byVerdict('finished'), 50))} when judged finished, ${ms(percentile(byVerdict('unfinished'), 50))} when not`,
  );
  const engines = [...new Set(r.complete.map((c) => c.id.split('@')[1]!.split('-')[0]!))];
  const unfinishedIn = (engine: string) => {
    const list = r.complete.filter((c) => c.id.split('@')[1]!.startsWith(`${engine}-`));
    return `${engine} ${list.filter((c) => verdictOf(c) === 'unfinished').length}/${list.length}`;
  };
  const unfinished = r.complete.filter((c) => verdictOf(c) === 'unfinished');
  if (unfinished.length)
    lines.push(
      `  judged unfinished by engine: ${engines.map(unfinishedIn).join(', ')} (${unfinished.map((c) => `${c.id} at ${c.offsetMs} ms: ${c.probability!.toFixed(3)}`).join('; ')})`,
    );
  const byRendering = new Map<string, string[]>();
  r.complete.forEach((c, i) => byRendering.set(c.id, [...(byRendering.get(c.id) ?? []), `${c.offsetMs} ms ${verdicts[i]}`]));
  const flips = [...byRendering].filter(([, v]) => new Set(v.map((s) => s.split(' ').at(-1))).size > 1);
  const multi = [...byRendering].filter(([, v]) => v.length > 1).length;
  if (multi)
    lines.push(
      `  verdict changed with the offset alone: ${flips.length} of ${multi} renderings${flips.length ? ` (${flips.map(([id, v]) => `${id}: ${v.join(', ')}`).join('; ')})` : ''}`,
    );
  const probabilities = r.complete.flatMap((c) => c.probability ?? []);
  if (probabilities.length)
    lines.push(`  finished-sentence probability p50 ${percentile(probabilities, 50).toFixed(3)}, max ${Math.max(...probabilities).toFixed(3)}`);
  for (const kind of ['backchannel', 'barge_in'] as const) {
    const list = r.overlaps.filter((o) => o.kind === kind);
    const valid = list.filter((o) => o.valid);
    const fi = valid.filter((o) => o.falseInterruption !== null);
    lines.push(
      `  ${kind}: ${valid.length}/${list.length} over a playing reply; stopped ${valid.filter((o) => o.interrupted).length} ` +
        `(onset to stop p50 ${ms(
          percentile(
            valid.flatMap((o) => o.stopMs ?? []),
            50,
          ),
        )}), resumed ${valid.filter((o) => o.resumed).length}, ` +
        `old reply frames after the stop without resuming ${valid.filter((o) => !o.resumed && o.oldFramesAfterStop > 0).length}, ` +
        `committed as a user turn ${valid.filter((o) => o.committed).length}, false-interruption events ${fi.length} (resumed ${fi.filter((o) => o.falseInterruption).length})`,
    );
  }
  const settled = Object.values(r.decidedBy).reduce((a, b) => a + b, 0);
  lines.push(`  verdicts settled by the words ${r.decidedBy.transcript ?? 0}, by the audio model ${r.decidedBy.audio_model ?? 0}, of ${settled}`);
  lines.push(`  session errors ${r.errors}; caller frames pushed up to ${ms(r.maxPushLatenessMs)} late`);
  return lines;
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  const rows = parseRows(process.env.BENCH_TURNS_ROWS ?? ROWS_DEFAULT);
  const counts = parseItems(process.env.BENCH_TURNS_ITEMS ?? ITEMS_DEFAULT);
  const voices = VOICES.filter((v) => engineVersion(v.engine) !== null);
  const unavailable = VOICES.filter((v) => !voices.includes(v));
  const manifest = new Map(readManifest().items.map((l) => [l.id, l]));

  const runs: RunSpec[] = [];
  const leadItem = SCRIPT.find((i) => i.id === LEAD_QUESTION_ID)!;
  let differ = 0;
  const load = async (item: ScriptItem, voice: VoiceSpec) => {
    const { labels } = await loadRendering(item, voice);
    if (manifest.get(labels.id)?.sha256 !== labels.sha256) differ++;
    return { pcmPath: cachedPcmPath(item, voice), labels };
  };
  for (const [kind, { renderings, offsets }] of counts) {
    for (const { item, voice, offsetMs } of select(kind, renderings, offsets, voices)) {
      const rendered = await load(item, voice);
      runs.push({ kind, ...rendered, offsetMs, ...(kind === 'backchannel' || kind === 'barge_in' ? { lead: await load(leadItem, voice) } : {}) });
    }
  }
  // Interleaved, so that a disturbance on the machine (another process taking the core) spreads over the kinds.
  const order = [...runs].sort((a, b) => (runs.indexOf(a) % 7) - (runs.indexOf(b) % 7) || runs.indexOf(a) - runs.indexOf(b));

  const pin = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
  const load0 = os.loadavg();
  const llm = await startFakeOpenAI(() => ({ text: REPLY }));
  const results: Row[] = [];

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
    const kinds = [...counts].map(([kind]) => `${runs.filter((r) => r.kind === kind).length} ${kind}`).join(', ');
    console.log(
      `corpus: ${runs.length} runs per row (${kinds}), ${runs.filter((r) => r.kind === 'pauses').reduce((n, r) => n + r.labels.pauses.length, 0)} mid-turn pauses; voices ${voices.map((v) => v.id).join(', ')}`,
    );
    if (unavailable.length) console.log(`not available here: ${unavailable.map((v) => `${v.id} (${v.engine} not installed)`).join(', ')}`);
    if (differ) console.log(`${differ} renderings differ from manifest.json (another engine build): their labels were measured anew`);
    if (results.length > 0) {
      console.log("\nTurn-taking (false cut-offs: mid-turn pauses of 0.5-1.2 s at which a user turn was committed before the caller's next words)\n");
      const headers = [
        'turn detection',
        'min / max delay',
        'false cut-offs',
        'finished -> commit p50 / p95',
        'finished judged unfinished',
        'commits before end of speech',
        'backchannels interrupted, resumed',
        'barge-in onset -> stop p50 / max',
        'old reply after stop',
      ];
      console.log(table(headers, results.map(summaryRow)));
      console.log('');
      for (const row of results) for (const line of details(row)) console.log(line);
    }
    console.log(`\ntotal ${((Date.now() - startedAt) / 1000).toFixed(0)} s`);
  };

  const overall = setTimeout(() => {
    console.error(`turns bench stopped after ${OVERALL_CAP_MS / 1000} s`);
    current?.kill('SIGKILL');
    report();
    process.exit(1);
  }, OVERALL_CAP_MS);

  try {
    for (const spec of rows) {
      const capMs = ROW_OVERHEAD_MS + (order.length + 1) * RUN_BUDGET_MS;
      results.push({ spec, result: await runChild({ llmUrl: `${llm.url}/v1`, turnDetection: spec.turnDetection, runs: order, capMs }, pin) });
      console.error(`${spec.label}: done`);
    }
  } finally {
    clearTimeout(overall);
    await llm.close();
  }
  report();
  // Every sample of every row, for reading a run again without running it.
  if (process.env.BENCH_TURNS_JSON) writeFileSync(process.env.BENCH_TURNS_JSON, JSON.stringify(results, null, 1));
}

if (process.argv[2] === 'worker') {
  const { runWorker } = await import('./worker.js');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  await runWorker(JSON.parse(Buffer.concat(chunks).toString('utf8')) as WorkerJob);
} else {
  await main();
}
