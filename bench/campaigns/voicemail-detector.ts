import { AudioFrame } from '@livekit/rtc-node';
import { initializeLogger, VADEventType } from '@livekit/agents';
import { espeakSynthesize } from '../../agent/providers/local/espeak.js';
import { loadVad } from '../../agent/turn/vad.js';
import { resampleLinear } from '../../media/pcm.js';
import { decide, DEFAULT_DETECTOR, greetingEnd, type MachineDetectorSettings, type SpeechSegment } from '../../modules/campaigns/machine-detector.js';
import { OPENINGS, type Opening } from './openings.js';

// The answering-machine detector on a labelled set of openings (openings.ts), spoken by espeak-ng with varied voices,
// speeds and pitches, after a random delay from the answer, on a line with a little hiss; machines that beep do so
// after their greeting. The call's own voice-activity detector (Silero, as a call loads it) turns each into speech
// segments, and the detector is replayed on them every 20 ms as a live call asks it. Prints the confusion matrix, the
// time to a decision, whether a message would start after the beep, and a sweep of the thresholds.
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
  /** ms from the answer. */
  speechStart: number;
  speechEnd: number;
  beepEnd: number | null;
  lengthMs: number;
}

const tone = (ms: number, hz: number) => Int16Array.from({ length: (RATE * ms) / 1000 }, (_, i) => Math.round(9_000 * Math.sin((2 * Math.PI * hz * i) / RATE)));

async function build(opening: Opening): Promise<{ audio: Int16Array; speechStart: number; speechEnd: number; beepEnd: number | null }> {
  const spoken = await espeakSynthesize(opening.text, { voice: VOICES[Math.floor(random() * VOICES.length)]!, wordsPerMinute: 150 + Math.floor(random() * 60), pitch: 35 + Math.floor(random() * 30) });
  const speech = resampleLinear(spoken.samples, spoken.sampleRate, RATE);
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

/** The detector replayed as a live call asks it: every 20 ms, on what the VAD had reported by then. */
function replay(sample: Sample, settings: MachineDetectorSettings) {
  for (let t = 0; t <= sample.lengthMs; t += 20) {
    const known = sample.segments.filter((s) => s.start <= t).map((s) => (s.end !== undefined && s.end <= t ? s : { start: s.start }));
    const decision = decide(known, t, settings);
    if (decision) {
      let messageAt: number | null = null;
      if (decision.verdict === 'machine') {
        for (let u = t; u <= sample.lengthMs && messageAt === null; u += 20) {
          const seen = sample.segments.filter((s) => s.start <= u).map((s) => (s.end !== undefined && s.end <= u ? s : { start: s.start }));
          messageAt = greetingEnd(seen, u, settings);
        }
      }
      return { verdict: decision.verdict, at: t, messageAt };
    }
  }
  return { verdict: 'unknown' as const, at: sample.lengthMs, messageAt: null };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

function evaluate(samples: Sample[], settings: MachineDetectorSettings) {
  const rows = samples.map((sample) => ({ sample, ...replay(sample, settings) }));
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
  samples.push({ opening, segments: await segmentsOf(built.audio), speechStart: built.speechStart, speechEnd: built.speechEnd, beepEnd: built.beepEnd, lengthMs: built.audio.length / 16 });
}

const chosen = evaluate(samples, DEFAULT_DETECTOR);
const kinds = ['human', 'voicemail', 'voicemail_no_beep', 'ivr', 'unavailable'] as const;
console.log(`answering-machine detector on ${samples.length} openings (${((performance.now() - startedAt) / 1000).toFixed(1)} s to build and run)`);
console.log(`settings: ${JSON.stringify(DEFAULT_DETECTOR)}`);
console.log('\nconfusion (rows: what answered; columns: verdict)');
console.log(`  ${'kind'.padEnd(18)} ${'n'.padStart(3)} ${'human'.padStart(6)} ${'machine'.padStart(8)} ${'unknown'.padStart(8)}   decision p50 / p95 ms`);
for (const kind of kinds) {
  const rows = chosen.rows.filter((r) => r.sample.opening.kind === kind);
  const count = (v: string) => rows.filter((r) => r.verdict === v).length;
  const at = rows.map((r) => r.at);
  console.log(`  ${kind.padEnd(18)} ${String(rows.length).padStart(3)} ${String(count('human')).padStart(6)} ${String(count('machine')).padStart(8)} ${String(count('unknown')).padStart(8)}   ${percentile(at, 50)} / ${percentile(at, 95)}`);
}
const pct = (a: number, b: number) => `${((100 * a) / b).toFixed(1)}%`;
console.log(`\nhumans right: ${chosen.humanRight}/${chosen.humans.length} (${pct(chosen.humanRight, chosen.humans.length)}), target >= 98%`);
console.log(`machines right: ${chosen.machineRight}/${chosen.machines.length} (${pct(chosen.machineRight, chosen.machines.length)}), target >= 95%`);
console.log(`decision p50 ${percentile(chosen.times, 50)} ms, p95 ${percentile(chosen.times, 95)} ms (from the answer), target p50 < 3000 ms`);
console.log(`message started after the beep: ${chosen.afterBeep}/${chosen.beeped.length} voicemails that beep`);
for (const wrong of chosen.rows.filter((r) => (r.sample.opening.kind === 'human') === (r.verdict === 'machine'))) {
  console.log(`  wrong: ${wrong.sample.opening.kind} -> ${wrong.verdict} at ${wrong.at} ms: "${wrong.sample.opening.text}"`);
}

console.log('\nsweep of machineSpeechMs x pauseMs: humans right, machines right, decision p50');
for (const machineSpeechMs of [1_800, 2_200, 2_600, 3_000, 3_500]) {
  const cells = [600, 900, 1_200].map((pauseMs) => {
    const r = evaluate(samples, { ...DEFAULT_DETECTOR, machineSpeechMs, pauseMs });
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
