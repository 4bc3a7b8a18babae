import { initializeLogger } from '@livekit/agents';
import { readFileSync } from 'node:fs';
import { secondsToMs } from '../../agent/call/session-config.js';
import { loadVad } from '../../agent/turn/vad.js';
import { benchSettings } from '../pipeline/bench-call.js';
import { CALLER_RATE, clipOf, type Clip } from './caller.js';
import { TurnsCall, type Commit, type Prediction } from './call.js';
import type { Labels } from './corpus/render.js';

// One row of the turn-taking benchmark in its own process (run.ts starts it pinned to one core): every run of the row,
// each in a call of its own so that no run inherits another's state, after one warm-up run. Prints one line,
// `BENCH_RESULT {json}`, and exits.

export interface RunSpec {
  kind: Labels['kind'];
  pcmPath: string;
  labels: Labels;
  offsetMs: number;
  /** Backchannels and barge-ins: the question asked first, in the same voice, so that the assistant is replying. */
  lead?: { pcmPath: string; labels: Labels };
}

export interface WorkerJob {
  llmUrl: string;
  /** The assistant's `stt_settings.turn_detection`; empty for the product's defaults. */
  turnDetection: Record<string, unknown>;
  runs: RunSpec[];
  capMs: number;
}

export interface PauseSample {
  id: string;
  topic: string;
  offsetMs: number;
  pauseMs: number;
  /** A user turn was committed on the words before the pause: the assistant answered an unfinished turn. */
  cut: boolean;
  /** That commit, ms after the pause began. */
  commitMs: number | null;
  /** It came before the caller's first voiced sample after the pause (otherwise while they had already resumed). */
  beforeResume: boolean | null;
  /** After that commit, the whole turn was committed as one message (the cut-off repaired): null when not cut. */
  repaired: boolean | null;
  /** The end-of-turn verdict given in the pause, if any. */
  probability: number | null;
  threshold: number | null;
}

export interface CompleteSample {
  id: string;
  item: string;
  offsetMs: number;
  /** Labelled end of speech to the commit, ms; null when no turn was committed in time. */
  latencyMs: number | null;
  beforeEnd: boolean;
  probability: number | null;
  threshold: number | null;
}

export interface OverlapSample {
  id: string;
  kind: 'backchannel' | 'barge_in';
  offsetMs: number;
  /** The reply was playing when the caller started (false: the run says nothing). */
  valid: boolean;
  /** The reply's audio stopped (paused or cleared) after the caller's speech onset. */
  interrupted: boolean;
  /** Onset (labelled) to that stop, ms. */
  stopMs: number | null;
  /** Frames of the same reply played after the stop: it resumed, or (a frame or two) leaked before being cleared. */
  oldFramesAfterStop: number;
  /** The same reply went on after the stop for at least RESUMED_MS: the caller heard it resume. */
  resumed: boolean;
  /** The caller's words were committed as a user turn (the assistant answered them). */
  committed: boolean;
  /** The session reported a false interruption, and whether it resumed the reply. */
  falseInterruption: boolean | null;
}

export interface RowResult {
  minDelayMs: number;
  maxDelayMs: number;
  falseInterruptionMs: number;
  mode: string;
  pauses: PauseSample[];
  complete: CompleteSample[];
  overlaps: OverlapSample[];
  /** Commits before the labelled end of the speech they answered: finished sentences and the questions before overlaps. */
  commitsBeforeEnd: number;
  commitsChecked: number;
  errors: number;
  maxPushLatenessMs: number;
  /** End-of-turn verdicts by what settled them (`transcript`, `audio_model`): how often the model ran. */
  decidedBy: Record<string, number>;
}

/** Silence before the first clip of a call: the VAD and the session settle on the line first. */
const LEAD_MS = 500;
/** After its last phrase a pauses run has shown everything it measures; this lets a late commit land first. */
const PAUSES_TAIL_MS = 200;
/** Beyond the max endpointing delay: a commit later than this is not coming. */
const COMMIT_GRACE_MS = 1_500;
/** Backchannels and barge-ins start this far into the reply, as a caller reacts to its first words. */
const OVERLAP_AFTER_REPLY_MS = 1_000;
/** After the false-interruption timeout, time for a paused reply to resume and be heard resuming. */
const RESUME_GRACE_MS = 1_500;
const CLOSE_TIMEOUT_MS = 5_000;
/**
 * A reply that plays on for this long after stopping has resumed; less is a frame or two let out between a resume and
 * the clear that follows it, which the caller hears as a blip, not as the reply going on.
 */
export const RESUMED_MS = 100;

/** The instant voice's frames. */
const FRAME_MS = 20;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function readClip(pcmPath: string, labels: Labels, offsetMs: number): Clip {
  const bytes = readFileSync(pcmPath);
  return clipOf(new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2), labels, offsetMs);
}

/** Wall-clock time of a labelled sample of a clip played from `startAt` with `offsetMs` of leading silence. */
const atSample = (startAt: number, offsetMs: number, sample: number) => startAt + offsetMs + (sample * 1000) / CALLER_RATE;

const normalized = (text: string) => text.toLowerCase().replace(/\s+/g, ' ').trim();

/** The last verdict given in [from, to). */
function verdictIn(predictions: Prediction[], from: number, to: number): Prediction | undefined {
  return predictions.filter((p) => p.at >= from && p.at < to).at(-1);
}

/** BENCH_TURNS_TRACE=1: a run's events on stderr, ms from the caller's onset, for reading why a run went as it did. */
function trace(id: string, origin: number, call: TurnsCall): void {
  const rel = (at: number) => Math.round(at - origin);
  const segments = new Map<number, Array<{ at: number; seq: number }>>();
  for (const f of call.output.played) segments.set(f.segment, [...(segments.get(f.segment) ?? []), f]);
  // [time, order within the output's own events, text]
  const events: Array<[number, number, string]> = [
    ...call.commits.map((c): [number, number, string] => [c.at, -1, `commit "${c.text}"`]),
    ...call.predictions.map((p): [number, number, string] => [p.at, -1, `verdict ${p.probability.toFixed(3)} (threshold ${p.threshold.toFixed(3)})`]),
    ...call.falseInterruptions.map((f): [number, number, string] => [f.at, -1, `false interruption, resumed ${f.resumed}`]),
    ...call.output.stops.map((s): [number, number, string] => [s.at, s.seq, `output ${s.how}`]),
    ...call.output.resumes.map((r): [number, number, string] => [r.at, r.seq, 'output resume']),
    ...[...segments].flatMap(([segment, frames]) => {
      // Runs of frames played without a gap longer than two frames, so that a pause and a resume show.
      const runs: Array<[number, number, string]> = [];
      let from = frames[0]!;
      frames.forEach((f, i) => {
        const next = frames[i + 1];
        if (next && next.at - f.at <= 2 * FRAME_MS) return;
        runs.push([from.at, from.seq, `segment ${segment} plays until ${rel(f.at)} (${frames.indexOf(f) - frames.indexOf(from) + 1} frames)`]);
        if (next) from = next;
      });
      return runs;
    }),
  ];
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  process.stderr.write(`${id}\n${events.map(([at, , text]) => `  ${rel(at)} ${text}`).join('\n')}\n`);
}

class Row {
  readonly result: RowResult;

  constructor(
    readonly job: WorkerJob,
    base: Pick<RowResult, 'minDelayMs' | 'maxDelayMs' | 'falseInterruptionMs' | 'mode'>,
  ) {
    const { minDelayMs, maxDelayMs, falseInterruptionMs, mode } = base;
    this.result = {
      minDelayMs,
      maxDelayMs,
      falseInterruptionMs,
      mode,
      pauses: [],
      complete: [],
      overlaps: [],
      commitsBeforeEnd: 0,
      commitsChecked: 0,
      errors: 0,
      maxPushLatenessMs: 0,
      decidedBy: {},
    };
  }

  #finish(call: TurnsCall): Promise<void> {
    this.result.errors += call.errors;
    for (const by of call.decidedBy) this.result.decidedBy[by] = (this.result.decidedBy[by] ?? 0) + 1;
    this.result.maxPushLatenessMs = Math.max(this.result.maxPushLatenessMs, call.caller.maxPushLatenessMs);
    return call.close(CLOSE_TIMEOUT_MS);
  }

  /** Plays a finished utterance and waits for its commit; notes a commit that came before its end of speech. */
  async #ask(call: TurnsCall, pcmPath: string, labels: Labels, offsetMs: number): Promise<{ end: number; commit: Commit | undefined }> {
    const startAt = call.caller.play(readClip(pcmPath, labels, offsetMs), Date.now() + LEAD_MS);
    const end = atSample(startAt, offsetMs, labels.speechEndSample);
    await call.until(() => call.commits.some((c) => c.at >= startAt), end + this.result.maxDelayMs + COMMIT_GRACE_MS);
    const commit = call.commits.find((c) => c.at >= startAt);
    this.result.commitsChecked++;
    if (commit && commit.at < end) this.result.commitsBeforeEnd++;
    return { end, commit };
  }

  async pauses(call: TurnsCall, run: RunSpec): Promise<PauseSample[]> {
    const { labels, offsetMs } = run;
    const startAt = call.caller.play(readClip(run.pcmPath, labels, offsetMs), Date.now() + LEAD_MS);
    const at = (sample: number) => atSample(startAt, offsetMs, sample);
    await sleep(at(labels.speechEndSample) + PAUSES_TAIL_MS - Date.now());
    // A turn cut in a pause is repaired when the whole of it is committed as one message once the caller is done: that
    // commit comes up to the max delay after the end of speech.
    const whole = normalized(labels.phrases.map((phrase) => phrase.text).join(' '));
    const cutAt = call.commits.find((c) => c.at >= startAt && normalized(c.text) !== whole);
    if (cutAt)
      await call.until(
        () => call.commits.some((c) => c.at > cutAt.at && normalized(c.text) === whole),
        at(labels.speechEndSample) + this.result.maxDelayMs + COMMIT_GRACE_MS,
      );
    return labels.pauses.map((pause, k) => {
      const began = at(labels.phrases[k]!.endSample);
      const resumed = at(labels.phrases[k + 1]!.startSample);
      // A commit that ends on this phrase's words answered the caller in this pause, whenever it came (the next
      // phrase's words reach the session only when that phrase ends, and a busy core delays frames further).
      const words = normalized(labels.phrases[k]!.text);
      const commit = call.commits.find((c) => c.at >= began && normalized(c.text).endsWith(words));
      const verdict = verdictIn(call.predictions, began, resumed + 200);
      return {
        id: labels.id,
        topic: labels.topic ?? labels.item,
        offsetMs,
        pauseMs: ((pause.endSample - pause.startSample) * 1000) / CALLER_RATE,
        cut: commit !== undefined,
        commitMs: commit ? commit.at - began : null,
        beforeResume: commit ? commit.at < resumed : null,
        repaired: commit ? call.commits.some((c) => c.at > commit.at && normalized(c.text) === whole) : null,
        probability: verdict?.probability ?? null,
        threshold: verdict?.threshold ?? null,
      };
    });
  }

  async complete(call: TurnsCall, run: RunSpec): Promise<CompleteSample> {
    const { end, commit } = await this.#ask(call, run.pcmPath, run.labels, run.offsetMs);
    const verdict = commit ? verdictIn(call.predictions, end - 1_000, commit.at + 1) : undefined;
    return {
      id: run.labels.id,
      item: run.labels.item,
      offsetMs: run.offsetMs,
      latencyMs: commit ? commit.at - end : null,
      beforeEnd: commit !== undefined && commit.at < end,
      probability: verdict?.probability ?? null,
      threshold: verdict?.threshold ?? null,
    };
  }

  async overlap(call: TurnsCall, run: RunSpec): Promise<OverlapSample> {
    const { labels, offsetMs, lead } = run;
    const kind = labels.kind as OverlapSample['kind'];
    const invalid = {
      id: labels.id,
      kind,
      offsetMs,
      valid: false,
      interrupted: false,
      stopMs: null,
      oldFramesAfterStop: 0,
      resumed: false,
      committed: false,
      falseInterruption: null,
    };
    const question = await this.#ask(call, lead!.pcmPath, lead!.labels, 0);
    if (!question.commit) return invalid;
    const committedAt = question.commit.at;
    const replyStarted = await call.until(() => call.output.played.some((f) => f.at >= committedAt), Date.now() + COMMIT_GRACE_MS);
    if (!replyStarted) return invalid;
    const first = call.output.played.find((f) => f.at >= committedAt)!;
    const startAt = call.caller.play(readClip(run.pcmPath, labels, offsetMs), first.at + OVERLAP_AFTER_REPLY_MS);
    const onset = atSample(startAt, offsetMs, labels.speechStartSample);
    const end = atSample(startAt, offsetMs, labels.speechEndSample);
    // Long enough for a paused reply to resume, and for the caller's words to be committed as a turn of their own.
    await sleep(end + Math.max(this.result.falseInterruptionMs, this.result.maxDelayMs) + RESUME_GRACE_MS - Date.now());

    const reply = call.output.played.filter((f) => f.segment === first.segment);
    if (process.env.BENCH_TURNS_TRACE) trace(labels.id, onset, call);
    // The reply must still have been playing when the caller began, or there was nothing to interrupt.
    const valid = reply.some((f) => f.at >= onset) || call.output.stops.some((s) => s.at >= onset);
    const stop = call.output.stops.find((s) => s.at >= onset);
    const fi = call.falseInterruptions.find((f) => f.at >= onset);
    const after = stop ? reply.filter((f) => f.seq > stop.seq) : [];
    return {
      id: labels.id,
      kind,
      offsetMs,
      valid,
      interrupted: stop !== undefined,
      stopMs: stop ? stop.at - onset : null,
      oldFramesAfterStop: after.length,
      resumed: after.length * FRAME_MS >= RESUMED_MS,
      committed: call.commits.some((c) => c.at >= onset),
      falseInterruption: fi ? fi.resumed : null,
    };
  }

  async run(run: RunSpec, settings: ReturnType<typeof benchSettings>, vad: Awaited<ReturnType<typeof loadVad>>): Promise<void> {
    const call = await TurnsCall.start(settings, vad);
    try {
      if (run.kind === 'pauses') this.result.pauses.push(...(await this.pauses(call, run)));
      else if (run.kind === 'complete') this.result.complete.push(await this.complete(call, run));
      else this.result.overlaps.push(await this.overlap(call, run));
    } finally {
      await this.#finish(call);
    }
  }
}

export async function runWorker(job: WorkerJob): Promise<void> {
  initializeLogger({ pretty: false, level: process.env.BENCH_LOG_LEVEL ?? 'silent' });
  // The worker's own cap, inside run.ts's overall one: a wedged session must not keep the process alive.
  const cap = setTimeout(() => {
    process.stderr.write(`turns bench worker exceeded ${job.capMs} ms\n`);
    process.exit(2);
  }, job.capMs);
  cap.unref();
  const settings = benchSettings(job.llmUrl, job.turnDetection);
  const turn = settings.stt_settings.turn_detection;
  const minDelayMs = secondsToMs(turn.min_endpointing_delay);
  // The VAD the runtime picks for these settings (agent/call/run-call.ts).
  const vad = await loadVad(minDelayMs, turn.mode);
  const base = {
    minDelayMs,
    maxDelayMs: secondsToMs(turn.max_endpointing_delay),
    falseInterruptionMs: secondsToMs(settings.interruption_settings.false_interruption_timeout),
    mode: turn.mode,
  };
  const row = new Row(job, base);
  // A first run warms the JIT, the end-of-turn model's process and the LLM client; it is not counted.
  const warmup = job.runs.find((r) => r.kind === 'complete');
  if (warmup) await new Row(job, row.result).run(warmup, settings, vad);
  for (const [i, run] of job.runs.entries()) {
    await row.run(run, settings, vad);
    if ((i + 1) % 10 === 0) process.stderr.write(`  ${i + 1}/${job.runs.length} runs\n`);
  }
  process.stdout.write(`BENCH_RESULT ${JSON.stringify(row.result)}\n`);
  process.exit(0);
}
