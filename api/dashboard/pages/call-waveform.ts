import type { CallPeaks, PeaksDirection } from '../../../media/recording/peaks.js';
import { html, type Html } from '../html.js';

// Both sides of a call as waveforms on one time axis, drawn from the peaks stored beside its recording
// (media/recording/peaks.ts): the caller above, the assistant below, a marker where each turn of the transcript
// starts, and the stretches where both talked at once or no one talked for long shaded across both. It is SVG written
// here, as the dashboard's charts are: a waveform library would bring a script to draw in the browser what the server
// can send already drawn, and the picture must show without script. Places on the time axis are percentages of the
// SVG's width, so it stretches to any screen while its text and lines keep their size; each waveform is a nested SVG
// stretched to its lane. The page's script (assets/call-waveform.js) makes a marker or a click seek the player and
// moves a playhead; without it a marker leads to its turn in the transcript.

/**
 * The most columns a waveform is drawn with, each the loudest of the buckets it covers: about 2 px each on a desktop.
 * A 60-minute call's 6,000 buckets a side fold into them, so its two paths stay near 10 KB.
 */
export const DRAW_COLUMNS = 480;
/** Both talking for less than this is the turn-taking's own slack, not someone talking over someone. */
export const OVERLAP_MIN_MS = 300;
/** No one talking for this long is shaded as a silence: on the phone, three seconds of dead air is felt. */
export const LONG_SILENCE_MS = 3_000;

/** Labels closer than this (percent of the width) to the one before are left out: 2.2 % is ~22 px on a desktop. */
const LABEL_GAP = 2.2;
/** The same on a phone, where 7 % of the ~330 px drawn is ~23 px: these labels alone show below 760 px. */
const LABEL_GAP_NARROW = 7;

/** Rows, top to bottom (px): the caller's turn numbers, the caller's lane, the assistant's, its numbers, the time axis. */
const LANE_HEIGHT = 56;
const LANE_Y: Record<PeaksDirection, number> = { user: 16, assistant: 16 + LANE_HEIGHT };
const LANES_END = 16 + 2 * LANE_HEIGHT;
const NUMBER_Y: Record<PeaksDirection, number> = { user: 12, assistant: LANES_END + 12 };
const AXIS_Y = LANES_END + 30;
export const WAVEFORM_HEIGHT = AXIS_Y + 6;
/** A column's height in the nested SVG's units at full scale: a lane is 100 tall, its centre line at 50. */
const HALF = 48;

const WHO: Record<PeaksDirection, string> = { user: 'caller', assistant: 'assistant' };
const DIRECTIONS: PeaksDirection[] = ['user', 'assistant'];

export interface WaveformTurn {
  role: PeaksDirection;
  text: string;
  start_ms: number;
  end_ms: number;
}

/** A moment of the call as a clock: 0:42, 12:05, 1:02:03. */
export function clock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const [h, m, s] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  const two = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

/** The id of the transcript's row for turn `n` (counted from 1), which its marker links to. */
export function turnAnchor(n: number): string {
  return `turn-${n}`;
}

/** How a turn's marker is named: "Turn 3, caller, 0:42". */
export function turnLabel(n: number, turn: Pick<WaveformTurn, 'role' | 'start_ms'>): string {
  return `Turn ${n}, ${WHO[turn.role]}, ${clock(turn.start_ms)}`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The levels folded into at most DRAW_COLUMNS columns, each the loudest of its buckets. */
export function columnsOf(levels: Uint8Array): number[] {
  const count = Math.min(levels.length, DRAW_COLUMNS);
  return Array.from({ length: count }, (_, j) => {
    let loudest = 0;
    for (let b = Math.floor((j * levels.length) / count), end = Math.floor(((j + 1) * levels.length) / count); b < end; b++)
      loudest = Math.max(loudest, levels[b]!);
    return loudest;
  });
}

/**
 * The waveform as one closed path, mirrored about the lane's centre line; runs of equal columns are one step. A column
 * is as tall as the square of its level: levels are decibels, on which all speech sits in the top third, and squared
 * they set loud words apart from soft ones while a line's hiss stays on the centre line.
 */
function wavePath(columns: number[]): string {
  const runs: [height: number, width: number][] = [];
  for (const level of columns) {
    const height = level === 0 ? 0 : Math.max(1, Math.round((level / 255) ** 2 * HALF));
    const last = runs.at(-1);
    if (last && last[0] === height) last[1] += 1;
    else runs.push([height, 1]);
  }
  const top = runs.map(([h, w]) => `V${50 - h}h${w}`).join('');
  const bottom = runs
    .toReversed()
    .map(([h, w]) => `V${50 + h}h-${w}`)
    .join('');
  return `M0 50${top}${bottom}Z`;
}

type Span = [start: number, end: number];

/** The turns of `role` (or all) as spans within the call, sorted, touching ones joined. */
function spansOf(turns: WaveformTurn[], durationMs: number, role?: PeaksDirection): Span[] {
  const spans = turns
    .filter((t) => !role || t.role === role)
    .map((t): Span => [Math.max(0, t.start_ms), Math.min(durationMs, t.end_ms)])
    .filter(([s, e]) => e > s)
    .sort((a, b) => a[0] - b[0]);
  const joined: Span[] = [];
  for (const span of spans) {
    const last = joined.at(-1);
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else joined.push([...span]);
  }
  return joined;
}

/** Where a caller's turn and an assistant's turn ran at once, for at least OVERLAP_MIN_MS. */
export function overlapsOf(turns: WaveformTurn[], durationMs: number): Span[] {
  const caller = spansOf(turns, durationMs, 'user');
  const assistant = spansOf(turns, durationMs, 'assistant');
  const overlaps: Span[] = [];
  for (const [cs, ce] of caller) {
    for (const [as, ae] of assistant) {
      const [s, e] = [Math.max(cs, as), Math.min(ce, ae)];
      if (e - s >= OVERLAP_MIN_MS) overlaps.push([s, e]);
    }
  }
  return overlaps.sort((a, b) => a[0] - b[0]);
}

/** Where no turn ran for at least LONG_SILENCE_MS, from the start of the recording to its end. */
export function silencesOf(turns: WaveformTurn[], durationMs: number): Span[] {
  const silences: Span[] = [];
  let from = 0;
  for (const [s, e] of [...spansOf(turns, durationMs), [durationMs, durationMs] as Span]) {
    if (s - from >= LONG_SILENCE_MS) silences.push([from, s]);
    from = Math.max(from, e);
  }
  return silences;
}

/** Time-axis ticks: the shortest step that gives at most seven, from 0. */
function ticksOf(durationMs: number): number[] {
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1_800, 3_600, 7_200].map((s) => s * 1000);
  const step = steps.find((s) => durationMs / s <= 6) ?? Math.ceil(durationMs / 6 / 3_600_000) * 3_600_000;
  return Array.from({ length: Math.floor(durationMs / step) + 1 }, (_, i) => i * step);
}

/** The markers whose numbers fit: each at least `gap` percent after the last one shown, from `among` only. */
function spaced(xs: Map<number, number>, gap: number, among?: Set<number>): Set<number> {
  const shown = new Set<number>();
  let last = Number.NEGATIVE_INFINITY;
  for (const [n, x] of xs) {
    if ((among && !among.has(n)) || x - last < gap) continue;
    shown.add(n);
    last = x;
  }
  return shown;
}

/** Text at `x` percent, kept inside the picture at either end. */
function anchorAt(x: number): string {
  return x < 1.5 ? 'start' : x > 98.5 ? 'end' : 'middle';
}

/** What a turn said, short enough for a tooltip. */
function snippet(text: string): string {
  const words = text.trim().replace(/\s+/g, ' ');
  return words.length <= 48 ? words : `${words.slice(0, 47)}…`;
}

export interface WaveformOptions {
  /** The id of the page's audio player, which the script seeks. */
  audioId: string;
}

/**
 * The call's waveforms with a marker per turn, numbered as the transcript is (from 1, in its order). Empty when the
 * peaks say nothing to draw.
 */
export function callWaveform(peaks: CallPeaks, turns: WaveformTurn[], options: WaveformOptions): Html | string {
  const { durationMs, bucketMs } = peaks;
  if (durationMs <= 0 || DIRECTIONS.every((d) => !peaks.tracks[d])) return '';
  const x = (ms: number) => Math.min(100, Math.max(0, (ms / durationMs) * 100));
  const pct = (ms: number) => `${x(ms).toFixed(2)}%`;
  // A band never drawn narrower than a line, so a half-second overlap in an hour's call still shows.
  const band = ([s, e]: Span, className: string) =>
    html`<rect class="${className}" x="${pct(s)}" y="${LANE_Y.user}" width="${Math.max(x(e) - x(s), 0.25).toFixed(2)}%" height="${LANES_END - LANE_Y.user}"/>`;

  const lanes = DIRECTIONS.map((direction) => {
    const y = LANE_Y[direction];
    const levels = peaks.tracks[direction];
    const name = direction === 'user' ? 'Caller' : 'Assistant';
    if (!levels || levels.length === 0) {
      return html`<rect class="lane" x="0" y="${y}" width="100%" height="${LANE_HEIGHT}"/><text class="lane-note" x="50%" y="${y + LANE_HEIGHT / 2 + 4}" text-anchor="middle">${name}: not recorded</text>`;
    }
    const columns = columnsOf(levels);
    // The buckets may run past the end by part of one; the drawing runs past with them and is cut at the edge.
    const width = ((levels.length * bucketMs) / durationMs) * 100;
    return html`<rect class="lane" x="0" y="${y}" width="100%" height="${LANE_HEIGHT}"/><line class="baseline" x1="0" x2="100%" y1="${y + LANE_HEIGHT / 2}" y2="${y + LANE_HEIGHT / 2}"/><svg x="0" y="${y}" width="${width.toFixed(2)}%" height="${LANE_HEIGHT}" viewBox="0 0 ${columns.length} 100" preserveAspectRatio="none" aria-hidden="true"><path class="wave ${direction}" d="${wavePath(columns)}"/></svg>`;
  });

  const overlaps = overlapsOf(turns, durationMs);
  const silences = silencesOf(turns, durationMs);
  const ticks = ticksOf(durationMs);

  const numbered = turns.map((t, i) => ({ ...t, n: i + 1 }));
  const labels = new Map<number, 'all' | 'wide'>();
  for (const direction of DIRECTIONS) {
    const xs = new Map(numbered.filter((t) => t.role === direction).map((t) => [t.n, x(t.start_ms)]));
    const wide = spaced(xs, LABEL_GAP);
    const narrow = spaced(xs, LABEL_GAP_NARROW, wide);
    for (const n of wide) labels.set(n, narrow.has(n) ? 'all' : 'wide');
  }
  const markers = numbered.map((t) => {
    const at = pct(t.start_ms);
    const [y1, y2] = [LANE_Y[t.role], LANE_Y[t.role] + LANE_HEIGHT];
    const label = turnLabel(t.n, t);
    const said = snippet(t.text);
    const shown = labels.get(t.n);
    // The hit line is wider than the drawn one, so a marker is easy to click or tap; both share the number's link.
    return html`<a href="#${turnAnchor(t.n)}" class="marker ${t.role}" data-ms="${Math.max(0, t.start_ms)}" aria-label="${label}"><title>${said ? `${label}: ${said}` : label}</title><line class="hit" x1="${at}" x2="${at}" y1="${t.role === 'user' ? 0 : y1}" y2="${t.role === 'user' ? y2 : y2 + 16}"/><line class="stem" x1="${at}" x2="${at}" y1="${y1}" y2="${y2}"/>${
      shown
        ? html`<text class="number${shown === 'wide' ? ' wide-only' : ''}" x="${at}" y="${NUMBER_Y[t.role]}" text-anchor="${anchorAt(x(t.start_ms))}">${t.n}</text>`
        : ''
    }</a>`;
  });

  const overlapText =
    overlaps.length === 0
      ? 'The caller and the assistant never talked at once'
      : `Both talked at once ${overlaps.length} ${overlaps.length === 1 ? 'time' : 'times'}, ${seconds(overlaps.reduce((a, [s, e]) => a + e - s, 0))} in all`;
  const longest = silences.reduce<Span | undefined>((a, s) => (!a || s[1] - s[0] > a[1] - a[0] ? s : a), undefined);
  const silenceText = longest
    ? `${silences.length} ${silences.length === 1 ? 'silence' : 'silences'} of ${seconds(LONG_SILENCE_MS)} or more, the longest ${seconds(longest[1] - longest[0])} at ${clock(longest[0])}`
    : `No silence of ${seconds(LONG_SILENCE_MS)} or more`;

  // The legend says which lane is whose above the picture, where a label inside a lane would sit on a turn's marker.
  return html`<figure class="waveform" data-waveform data-audio="${options.audioId}" data-duration-ms="${durationMs}">
<figcaption><span class="key user">Caller, above</span> <span class="key assistant">Assistant, below</span> <span class="key overlap">Both talking</span> <span class="key silence">Silence</span></figcaption>
<svg class="waveform-svg" width="100%" height="${WAVEFORM_HEIGHT}" role="group" aria-labelledby="waveform-title" aria-describedby="waveform-desc">
<title id="waveform-title">The call’s audio over ${clock(durationMs)}, with a marker for each of its ${turns.length} ${turns.length === 1 ? 'turn' : 'turns'}</title>
<desc id="waveform-desc">The caller’s audio above, the assistant’s below. ${overlapText}. ${silenceText}.</desc>
${lanes}
${silences.map((s) => band(s, 'silence'))}${overlaps.map((s) => band(s, 'overlap'))}
${ticks.map((t) => html`<line class="grid" x1="${pct(t)}" x2="${pct(t)}" y1="${LANE_Y.user}" y2="${LANES_END}"/><text class="tick" x="${pct(t)}" y="${AXIS_Y}" text-anchor="${anchorAt(x(t))}">${clock(t)}</text>`)}
${markers}
<line class="playhead" x1="0%" x2="0%" y1="${LANE_Y.user}" y2="${LANES_END}"/>
</svg>
<p class="summary">${overlapText}. ${silenceText}.</p>
</figure>`;
}
