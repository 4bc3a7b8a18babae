import { AudioFrame } from '@livekit/rtc-node';
import { initializeLogger, VADEventType } from '@livekit/agents';
import { espeakSynthesize } from '../../media/voice/espeak.js';
import { loadVad } from '../../agent/turn/vad.js';
import { resampleLinear } from '../../media/pcm.js';
import {
  beepBy,
  decide,
  DEFAULT_DETECTOR,
  greetingEnd,
  type HeardBeep,
  type HeardText,
  type MachineDetectorSettings,
  type Observed,
  type SpeechSegment,
} from '../../modules/campaigns/index.js';
import { ToneDetector } from '../../media/tone-detector.js';
import { OPENINGS, type Opening } from './openings.js';

// The answering-machine detector on a labelled set of openings (openings.ts), spoken by espeak-ng with varied voices,
// speeds and pitches, after a random delay from the answer, on a line with a little hiss; machines that beep do so
// after their greeting. The call's own voice-activity detector (Silero, as a call loads it) turns each into speech
// segments, and the detector is replayed on them every 20 ms as a live call asks it.
//
// The words: a call's recogniser is a streaming vendor's (Deepgram, AssemblyAI, Soniox), whose interim results trail
// the speech by a few hundred ms and miss some words; the offline recogniser here cannot stand in for one on free
// speech (its language-model decode of these voices is mostly wrong words). So the words are the opening's own text,
// each timed at its end within the spoken audio (by its share of the letters), arriving `lag` ms later, with a share
// of words lost at random: a lost word breaks any phrase it was part of. The headline figures take 500 ms and 15%;
// a sweep shows both, and the timing-only detector is measured beside it on the same audio.
//
// Prints the confusion matrix, the time to a decision, whether a message would start after the beep, the figures on
// the openings written after the detector was chosen (held out), and sweeps of the thresholds.
//
//   npm run bench:voicemail

initializeLogger({ pretty: false, level: 'silent' });
const RATE = 16_000;
const VOICES = ['en-us', 'en-gb', 'en-gb-x-rp', 'en-gb-scotland'];

let seed = 12_345;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};

interface Sample {
  opening: Opening;
  segments: SpeechSegment[];
  /** The beeps the call's tone detector finds in the sample's audio. */
  beeps: HeardBeep[];
  /** Each word of the opening with the ms (from the answer) at which it has been spoken. */
  words: { word: string; end: number }[];
  /** ms from the answer. */
  speechStart: number;
  speechEnd: number;
  beepEnd: number | null;
  lengthMs: number;
}

const tone = (ms: number, hz: number) => Int16Array.from({ length: (RATE * ms) / 1000 }, (_, i) => Math.round(9_000 * Math.sin((2 * Math.PI * hz * i) / RATE)));

/** The synthesised speech without the silence espeak-ng puts before and after it, so that words are timed on speech. */
function trimSilence(samples: Int16Array): Int16Array {
  const loud = (x: number) => Math.abs(x) > 500;
  const first = samples.findIndex(loud);
  const last = samples.findLastIndex(loud);
  return first < 0 ? samples : samples.slice(first, last + 1);
}

async function build(opening: Opening): Promise<{ audio: Int16Array; speechStart: number; speechEnd: number; beepEnd: number | null }> {
  const spoken = await espeakSynthesize(opening.text, {
    voice: VOICES[Math.floor(random() * VOICES.length)]!,
    wordsPerMinute: 150 + Math.floor(random() * 60),
    pitch: 35 + Math.floor(random() * 30),
  });
  const speech = trimSilence(resampleLinear(spoken.samples, spoken.sampleRate, RATE));
  const lead = Math.round((200 + random() * 1_000) * 16);
  const beep = opening.kind === 'voicemail' ? tone(400 + Math.floor(random() * 400), [1000, 850, 1400][Math.floor(random() * 3)]!) : new Int16Array(0);
  const gap = Math.round((300 + random() * 500) * 16);
  // What follows: a person waits for an answer, a machine records.
  const tail = RATE * 5;
  const audio = new Int16Array(lead + speech.length + (beep.length ? gap + beep.length : 0) + tail);
  audio.set(speech, lead);
  if (beep.length) audio.set(beep, lead + speech.length + gap);
  let noise = 99;
  for (let i = 0; i < audio.length; i++) {
    noise = (noise * 1_103_515_245 + 12_345) % 2 ** 31;
    audio[i] = Math.max(-32_768, Math.min(32_767, audio[i]! + Math.round(((noise / 2 ** 31) * 2 - 1) * 150)));
  }
  const ms = (samples: number) => samples / 16;
  return { audio, speechStart: ms(lead), speechEnd: ms(lead + speech.length), beepEnd: beep.length ? ms(lead + speech.length + gap + beep.length) : null };
}

/** The speech segments the call's VAD reports on `audio`, in ms from its start. */
async function segmentsOf(audio: Int16Array): Promise<SpeechSegment[]> {
  const vad = await loadVad(300);
  const stream = vad.stream();
  const segments: SpeechSegment[] = [];
  const pushing = (async () => {
    for (let at = 0; at + 320 <= audio.length; at += 320) {
      stream.pushFrame(new AudioFrame(audio.slice(at, at + 320), RATE, 1, 320));
      if ((at / 320) % 10 === 0) await new Promise((r) => setImmediate(r));
    }
  })();
  // Done once the model has looked at the last window of the audio.
  for await (const ev of stream) {
    const now = ev.samplesIndex / 16;
    if (ev.type === VADEventType.START_OF_SPEECH) segments.push({ start: Math.max(0, now - ev.speechDuration) });
    if (ev.type === VADEventType.END_OF_SPEECH && segments.length) segments.at(-1)!.end = now - ev.silenceDuration;
    if (ev.type === VADEventType.INFERENCE_DONE && ev.samplesIndex >= audio.length - 1_024) break;
  }
  await pushing;
  stream.close();
  return segments;
}

/** Words spread over the spoken span by their share of its letters, so each is timed at its own end. */
function timeWords(text: string, speechStart: number, speechEnd: number): { word: string; end: number }[] {
  const words = text.split(/\s+/).filter(Boolean);
  const letters = words.reduce((n, w) => n + w.length + 1, 0);
  let sofar = 0;
  return words.map((word) => {
    sofar += word.length + 1;
    return { word, end: speechStart + ((speechEnd - speechStart) * sofar) / letters };
  });
}

export interface Recogniser {
  lagMs: number;
  /** The share of words it misses. */
  loss: number;
}

/** A seeded generator of [0, 1) whose draws are independent enough for per-word losses (32-bit integer arithmetic). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** What a streaming recogniser reports of a sample: after each word it catches, the text so far, `lag` ms later. */
function heardOf(sample: Sample, recogniser: Recogniser | null, sampleIndex: number): HeardText[] {
  if (!recogniser) return [];
  const draw = mulberry32(7_919 * (sampleIndex + 1));
  const kept: string[] = [];
  const heard: HeardText[] = [];
  for (const { word, end } of sample.words) {
    if (draw() < recogniser.loss) continue;
    kept.push(word);
    heard.push({ at: end + recogniser.lagMs, text: kept.join(' ') });
  }
  // A streaming recogniser's last report on the greeting is final.
  if (heard.length > 0) heard[heard.length - 1]!.final = true;
  return heard;
}

/** What the call had observed by `t`: speech segments as the VAD had reported them, words, and beeps once known. */
function observedAt(sample: Sample, t: number, heard: HeardText[], beeps: boolean): Observed {
  const segments = sample.segments.filter((s) => s.start <= t).map((s) => (s.end !== undefined && s.end <= t ? s : { start: s.start }));
  // A beep's end is known once the detector has seen the frames after it.
  const known = beeps ? sample.beeps.filter((b) => b.at <= t).map((b) => (b.end !== undefined && b.end + 40 <= t ? b : { at: b.at })) : [];
  return { segments, heard, beeps: known };
}

/**
 * The detector replayed as a live call asks it: every 20 ms, on what had been observed by then. As in a live call, a
 * `human` or `unknown` verdict turns into `machine` on a beep heard later (`reversed`).
 */
function replay(sample: Sample, settings: MachineDetectorSettings, heard: HeardText[], beeps: boolean) {
  for (let t = 0; t <= sample.lengthMs; t += 20) {
    const decision = decide(observedAt(sample, t, heard, beeps), t, settings);
    if (!decision) continue;
    let verdict = decision.verdict;
    let at = t;
    let reversed = false;
    if (verdict !== 'machine') {
      for (let u = t; u <= sample.lengthMs && verdict !== 'machine'; u += 20) {
        if (beepBy(observedAt(sample, u, heard, beeps), u)) [verdict, at, reversed] = ['machine', u, true];
      }
    }
    let messageAt: number | null = null;
    for (let u = at; verdict === 'machine' && u <= sample.lengthMs && messageAt === null; u += 20) {
      messageAt = greetingEnd(observedAt(sample, u, heard, beeps), u, settings)?.at ?? null;
    }
    return { verdict, at, messageAt, reversed };
  }
  return { verdict: 'unknown' as const, at: sample.lengthMs, messageAt: null, reversed: false };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

const HEADLINE_RECOGNISER: Recogniser = { lagMs: 500, loss: 0.15 };

function evaluate(samples: Sample[], settings: MachineDetectorSettings, recogniser: Recogniser | null = HEADLINE_RECOGNISER, beeps = true) {
  const words = settings.useWords ? recogniser : null;
  const rows = samples.map((sample, i) => ({ sample, ...replay(sample, settings, heardOf(sample, words, i), beeps) }));
  const humans = rows.filter((r) => r.sample.opening.kind === 'human');
  const machines = rows.filter((r) => r.sample.opening.kind !== 'human');
  // `unknown` is talked to as a person.
  const humanRight = humans.filter((r) => r.verdict !== 'machine').length;
  const machineRight = machines.filter((r) => r.verdict === 'machine').length;
  const beeped = machines.filter((r) => r.sample.beepEnd !== null && r.messageAt !== null);
  const afterBeep = beeped.filter((r) => r.messageAt! >= r.sample.beepEnd!).length;
  return { rows, humans, machines, humanRight, machineRight, beeped, afterBeep, times: rows.map((r) => r.at) };
}

const samples: Sample[] = [];
const startedAt = performance.now();
for (const opening of OPENINGS) {
  const built = await build(opening);
  const tones = new ToneDetector(RATE);
  tones.push(built.audio);
  samples.push({
    opening,
    segments: await segmentsOf(built.audio),
    beeps: tones.tones.map((t) => ({ at: t.confirmedAt, end: t.end })),
    words: timeWords(opening.text, built.speechStart, built.speechEnd),
    speechStart: built.speechStart,
    speechEnd: built.speechEnd,
    beepEnd: built.beepEnd,
    lengthMs: built.audio.length / 16,
  });
}

const pct = (a: number, b: number) => `${((100 * a) / b).toFixed(1)}%`;
const kinds = ['human', 'voicemail', 'voicemail_no_beep', 'ivr', 'unavailable'] as const;
const summary = (r: ReturnType<typeof evaluate>) =>
  `humans ${r.humanRight}/${r.humans.length} (${pct(r.humanRight, r.humans.length)}), machines ${r.machineRight}/${r.machines.length} (${pct(r.machineRight, r.machines.length)}), decision p50 ${percentile(r.times, 50)} ms, p95 ${percentile(r.times, 95)} ms`;

function report(title: string, settings: MachineDetectorSettings, recogniser: Recogniser | null, beeps: boolean) {
  const chosen = evaluate(samples, settings, recogniser, beeps);
  console.log(`\n== ${title}`);
  console.log('confusion (rows: what answered; columns: verdict)');
  console.log(`  ${'kind'.padEnd(18)} ${'n'.padStart(3)} ${'human'.padStart(6)} ${'machine'.padStart(8)} ${'unknown'.padStart(8)}   decision p50 / p95 ms`);
  for (const kind of kinds) {
    const rows = chosen.rows.filter((r) => r.sample.opening.kind === kind);
    const count = (v: string) => rows.filter((r) => r.verdict === v).length;
    const at = rows.map((r) => r.at);
    console.log(
      `  ${kind.padEnd(18)} ${String(rows.length).padStart(3)} ${String(count('human')).padStart(6)} ${String(count('machine')).padStart(8)} ${String(count('unknown')).padStart(8)}   ${percentile(at, 50)} / ${percentile(at, 95)}`,
    );
  }
  console.log(`all:      ${summary(chosen)}`);
  console.log(
    `held out: ${summary(
      evaluate(
        samples.filter((x) => x.opening.heldOut),
        settings,
        recogniser,
        beeps,
      ),
    )}`,
  );
  console.log(
    `shaped on: ${summary(
      evaluate(
        samples.filter((x) => !x.opening.heldOut),
        settings,
        recogniser,
        beeps,
      ),
    )}`,
  );
  console.log(
    `turned into machine by a later beep: ${chosen.rows.filter((r) => r.reversed).length} (people among them: ${chosen.rows.filter((r) => r.reversed && r.sample.opening.kind === 'human').length})`,
  );
  console.log(`message started after the beep: ${chosen.afterBeep}/${chosen.beeped.length} voicemails that beep`);
  for (const wrong of chosen.rows.filter((r) => (r.sample.opening.kind === 'human') === (r.verdict === 'machine'))) {
    console.log(
      `  wrong: ${wrong.sample.opening.kind} -> ${wrong.verdict} at ${wrong.at} ms${wrong.sample.opening.heldOut ? ' (held out)' : ''}: "${wrong.sample.opening.text}"`,
    );
  }
}

console.log(
  `answering-machine detector on ${samples.length} openings, ${samples.filter((x) => x.opening.heldOut).length} of them held out (${((performance.now() - startedAt) / 1000).toFixed(1)} s to build and run)`,
);
console.log(`settings: ${JSON.stringify(DEFAULT_DETECTOR)}; targets: humans >= 98%, machines >= 95%, decision p50 < 3000 ms`);
console.log(
  `beeps found in the audio: ${samples.filter((x) => x.beeps.length > 0 && x.beepEnd !== null).length}/${samples.filter((x) => x.beepEnd !== null).length} greetings that beep, ${samples.filter((x) => x.beeps.length > 0 && x.beepEnd === null).length}/${samples.filter((x) => x.beepEnd === null).length} openings that do not`,
);
report(
  `timing, words and beep (recogniser ${HEADLINE_RECOGNISER.lagMs} ms behind, ${HEADLINE_RECOGNISER.loss * 100}% of words lost)`,
  DEFAULT_DETECTOR,
  HEADLINE_RECOGNISER,
  true,
);
report('timing and words, no beep', DEFAULT_DETECTOR, HEADLINE_RECOGNISER, false);
report('timing alone (as before words and beeps)', { ...DEFAULT_DETECTOR, useWords: false, pauseMs: 900 }, null, false);

console.log('\nsweep of the recogniser: lag x words lost');
for (const lagMs of [300, 500, 800]) {
  const cells = [0, 0.15, 0.3].map(
    (loss) => `${loss * 100}% lost: ${summary(evaluate(samples, DEFAULT_DETECTOR, { lagMs, loss })).replace(/, p95 \d+ ms/, '')}`,
  );
  console.log(`  lag ${lagMs} ms: ${cells.join('   ')}`);
}

console.log('\nsweep of longSpeechMs x (pauseMs + wordWaitMs) (with words): humans right, machines right, decision p50');
for (const longSpeechMs of [3_400, 3_800, 4_200, 4_600, 5_000]) {
  const cells = [
    [600, 600],
    [700, 500],
    [900, 300],
    [900, 600],
  ].map(([pauseMs, wordWaitMs]) => {
    const r = evaluate(samples, { ...DEFAULT_DETECTOR, longSpeechMs, pauseMs: pauseMs!, wordWaitMs: wordWaitMs! });
    return `${pauseMs}+${wordWaitMs}: ${pct(r.humanRight, r.humans.length)} / ${pct(r.machineRight, r.machines.length)} / ${percentile(r.times, 50)} ms`;
  });
  console.log(`  long ${longSpeechMs}: ${cells.join('   ')}`);
}

console.log('\nsweep of machineSpeechMs x pauseMs (timing alone): humans right, machines right, decision p50');
for (const machineSpeechMs of [1_800, 2_200, 2_600, 3_000, 3_500]) {
  const cells = [600, 900, 1_200].map((pauseMs) => {
    const r = evaluate(samples, { ...DEFAULT_DETECTOR, useWords: false, machineSpeechMs, pauseMs }, null, false);
    return `pause ${pauseMs}: ${pct(r.humanRight, r.humans.length)} / ${pct(r.machineRight, r.machines.length)} / ${percentile(r.times, 50)} ms`;
  });
  console.log(`  speech ${machineSpeechMs}: ${cells.join('   ')}`);
}

console.log('\nsweep of greetingEndMs: messages started after the beep, and the wait from the end of the beep (p50)');
for (const greetingEndMs of [1_200, 1_600, 2_000, 2_400]) {
  const r = evaluate(samples, { ...DEFAULT_DETECTOR, greetingEndMs });
  const waits = r.beeped.map((row) => row.messageAt! - row.sample.beepEnd!);
  console.log(`  ${greetingEndMs} ms: ${r.afterBeep}/${r.beeped.length} after the beep, ${percentile(waits, 50)} ms after its end`);
}
