import { describe, expect, it } from 'vitest';
import type { CallPeaks } from '../../../media/recording/peaks.js';
import { callWaveform, clock, columnsOf, DRAW_COLUMNS, overlapsOf, silencesOf, turnLabel, type WaveformTurn } from './call-waveform.js';

/** Two minutes at 100 ms: the caller loud in the first half, the assistant in the second. */
function twoMinutes(): CallPeaks {
  const user = new Uint8Array(1_200);
  const assistant = new Uint8Array(1_200);
  user.fill(200, 0, 600);
  assistant.fill(150, 600);
  return { bucketMs: 100, durationMs: 120_000, tracks: { user, assistant } };
}

const TURNS: WaveformTurn[] = [
  { role: 'user', text: 'Hi, can I book a <b>table</b> & "a view"?', start_ms: 0, end_ms: 4_000 },
  { role: 'assistant', text: 'Of course.', start_ms: 30_000, end_ms: 33_000 },
  { role: 'user', text: 'Friday.', start_ms: 32_500, end_ms: 34_000 },
  { role: 'assistant', text: '', start_ms: 90_000, end_ms: 119_000 },
];

/** Each marker's link, label and place: what a reader (and a screen reader) is given for it. */
function markersIn(svg: string): { href: string; label: string; x: string; number: string | undefined }[] {
  return [...svg.matchAll(/<a href="#([^"]+)" class="marker [a-z]+" data-ms="\d+" aria-label="([^"]+)">(.*?)<\/a>/g)].map((m) => ({
    href: m[1]!,
    label: m[2]!,
    x: /class="stem" x1="([^"]+)"/.exec(m[3]!)![1]!,
    number: /<text class="number[^"]*"[^>]*>(\d+)<\/text>/.exec(m[3]!)?.[1],
  }));
}

describe("a call's waveforms", () => {
  it('marks each turn where it starts on the time axis, linked to its row of the transcript and named by number, side and time', () => {
    const svg = String(callWaveform(twoMinutes(), TURNS, { audioId: 'call-audio' }));
    expect(markersIn(svg)).toEqual([
      { href: 'turn-1', label: 'Turn 1, caller, 0:00', x: '0.00%', number: '1' },
      { href: 'turn-2', label: 'Turn 2, assistant, 0:30', x: '25.00%', number: '2' },
      { href: 'turn-3', label: 'Turn 3, caller, 0:32', x: '27.08%', number: '3' },
      { href: 'turn-4', label: 'Turn 4, assistant, 1:30', x: '75.00%', number: '4' },
    ]);
    // The caller's markers cross the caller's lane, the assistant's the assistant's.
    expect(svg).toContain('<line class="stem" x1="25.00%" x2="25.00%" y1="72" y2="128"/>');
    expect(svg).toContain('<line class="stem" x1="27.08%" x2="27.08%" y1="16" y2="72"/>');
    expect(svg).toContain('data-audio="call-audio" data-duration-ms="120000"');
  });

  it('escapes what a turn said in its marker’s tooltip', () => {
    const svg = String(callWaveform(twoMinutes(), TURNS, { audioId: 'call-audio' }));
    expect(svg).toContain('<title>Turn 1, caller, 0:00: Hi, can I book a &lt;b&gt;table&lt;/b&gt; &amp; &quot;a view&quot;?</title>');
    expect(svg).not.toContain('<b>table');
    // A turn with nothing said (tool calls alone) is named all the same.
    expect(svg).toContain('<title>Turn 4, assistant, 1:30</title>');
  });

  it('draws each side as a waveform mirrored about its lane’s centre, loud where its peaks are and flat where they are silent', () => {
    const svg = String(callWaveform(twoMinutes(), TURNS, { audioId: 'call-audio' }));
    // 1,200 buckets fold into 480 columns: the caller's first 240 at (200/255)² of the half height (30 of 48), then
    // flat; the assistant's last 240 at (150/255)², 17.
    expect(svg).toContain(
      'viewBox="0 0 480 100" preserveAspectRatio="none" aria-hidden="true"><path class="wave user" d="M0 50V20h240V50h240V50h-240V80h-240Z"/>',
    );
    expect(svg).toContain('<path class="wave assistant" d="M0 50V50h240V33h240V67h-240V50h-240Z"/>');
    expect(svg).toMatch(/<title id="waveform-title">The call’s audio over 2:00, with a marker for each of its 4 turns<\/title>/);
  });

  it('shades where both talked at once and where no one talked for 3 s or more, and says so in words', () => {
    expect(overlapsOf(TURNS, 120_000)).toEqual([[32_500, 33_000]]);
    expect(silencesOf(TURNS, 120_000)).toEqual([
      [4_000, 30_000],
      [34_000, 90_000],
    ]);
    const svg = String(callWaveform(twoMinutes(), TURNS, { audioId: 'call-audio' }));
    expect(svg).toContain('<rect class="overlap" x="27.08%" y="16" width="0.42%" height="112"/>');
    expect(svg).toContain('<rect class="silence" x="3.33%" y="16" width="21.67%" height="112"/>');
    expect(svg).toContain('Both talked at once 1 time, 0.5 s in all. 2 silences of 3.0 s or more, the longest 56.0 s at 0:34.');
  });

  it('draws a side no track holds as not recorded, and nothing at all without peaks to draw', () => {
    const peaks = twoMinutes();
    delete peaks.tracks.user;
    const svg = String(callWaveform(peaks, TURNS, { audioId: 'call-audio' }));
    expect(svg).toContain('Caller: not recorded');
    expect(svg).not.toContain('class="wave user"');
    expect(svg).toContain('class="wave assistant"');
    expect(callWaveform({ bucketMs: 100, durationMs: 0, tracks: {} }, TURNS, { audioId: 'call-audio' })).toBe('');
  });

  it('keeps a 60-minute call light: its peaks folded into at most 480 columns a side, and turn numbers that would collide left out', () => {
    const levels = Uint8Array.from({ length: 6_000 }, (_, i) => (i * 37) % 256);
    expect(columnsOf(levels)).toHaveLength(DRAW_COLUMNS);
    expect(columnsOf(levels)[0]).toBe(Math.max(...levels.subarray(0, 12)));
    const turns = Array.from({ length: 360 }, (_, i): WaveformTurn => ({
      role: i % 2 ? 'assistant' : 'user',
      text: 'Yes.',
      start_ms: i * 10_000,
      end_ms: i * 10_000 + 4_000,
    }));
    const svg = String(callWaveform({ bucketMs: 600, durationMs: 3_600_000, tracks: { user: levels, assistant: levels } }, turns, { audioId: 'a' }));
    expect(markersIn(svg)).toHaveLength(360);
    const numbers = markersIn(svg).filter((m) => m.number !== undefined);
    // A side's markers are 20 s (0.56 %) apart: every fourth number shows on a desktop (2.2 % apart), every sixteenth
    // on a phone (7 %).
    expect(numbers.length).toBe(2 * Math.ceil(180 / 4));
    expect((svg.match(/class="number"/g) ?? []).length).toBe(2 * Math.ceil(180 / 16));
    const paths = [...svg.matchAll(/<path [^>]*>/g)].map((m) => m[0]).join('');
    expect(paths.length).toBeLessThan(16 * 1024);
  });

  it('tells times as a clock and names turns the way the transcript numbers them', () => {
    expect(clock(42_400)).toBe('0:42');
    expect(clock(725_000)).toBe('12:05');
    expect(clock(3_723_000)).toBe('1:02:03');
    expect(turnLabel(3, { role: 'user', start_ms: 42_000 })).toBe('Turn 3, caller, 0:42');
  });
});
