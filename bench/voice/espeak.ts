import { espeakSynthesize, warmLocalVoice, type EspeakOptions } from '../../media/voice/espeak.js';

// The offline voice's time to a sentence's audio, which is the first audio of every reply and of the welcome: a fresh
// module per sentence on the calls' thread (read, compiled and instantiated from its 18 MB, as the voice first did)
// against the voice as it is (compiled once, an instance made ahead, in a thread of its own), and a sentence it has
// kept. Alternated sentence by sentence in one run, 300 ms apart as a reply's sentences are; every sentence is new
// (numbered) except the kept ones. Beside each, the longest stall of this thread's event loop while the sentence was
// made: what a call's VAD and playout would have waited. BENCH_SENTENCES (default 20) sentences each.

const OPTIONS: EspeakOptions = { voice: 'en-us', wordsPerMinute: 175, pitch: 50 };
const SENTENCES = [
  'Hello and welcome to the clinic, how can I help you today?',
  'We open at nine in the morning.',
  'Your appointment is booked for Tuesday at ten thirty.',
  'Is there anything else I can help you with?',
];
const count = Number(process.env.BENCH_SENTENCES ?? 20);

type Factory = (options: Record<string, unknown>) => Promise<{ FS: { readFile(p: string): Uint8Array; writeFile(p: string, d: string): void } }>;
const specifier = 'espeak-ng';
const create = ((await import(specifier)) as { default: Factory }).default;

/** The voice as it was: a module made for each sentence. */
async function fresh(text: string): Promise<void> {
  const module = await create({
    print: () => {},
    printErr: () => {},
    preRun: [(m: { FS: { writeFile(p: string, d: string): void } }) => m.FS.writeFile('/input.txt', text)],
    arguments: ['-w', '/output.wav', '-v', OPTIONS.voice, '-s', String(OPTIONS.wordsPerMinute), '-p', String(OPTIONS.pitch), '-f', '/input.txt'],
  });
  module.FS.readFile('/output.wav');
}

/** How long `run` took, and the longest gap between ticks of a 1 ms timer meanwhile (the event loop's longest stall). */
async function timed(run: () => Promise<unknown>, stalls?: number[]): Promise<number> {
  let last = performance.now();
  let longest = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  const started = performance.now();
  await run();
  const took = performance.now() - started;
  clearInterval(ticker);
  longest = Math.max(longest, performance.now() - last);
  stalls?.push(longest);
  return took;
}

const pct = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)]!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const coldFresh = await timed(() => fresh(SENTENCES[0]!));
const coldWarmed = await timed(() => warmLocalVoice(OPTIONS));
await sleep(300);
const before: number[] = [];
const now: number[] = [];
const kept: number[] = [];
const stalls = { before: [] as number[], now: [] as number[], kept: [] as number[] };
for (let i = 0; i < count; i++) {
  const text = `${SENTENCES[i % SENTENCES.length]!} Number ${i + 1}.`;
  before.push(await timed(() => fresh(text), stalls.before));
  await sleep(300);
  now.push(await timed(() => espeakSynthesize(text, OPTIONS), stalls.now));
  await sleep(300);
  kept.push(await timed(() => espeakSynthesize(text, OPTIONS), stalls.kept));
  await sleep(300);
}
const fmt = (v: number[]) => `p50 ${Math.round(pct(v, 50))} ms, p95 ${Math.round(pct(v, 95))} ms`;
console.log(
  `first sentence of the process: fresh module ${Math.round(coldFresh)} ms; warming the voice at start-up ${Math.round(coldWarmed)} ms (off the call's path)`,
);
console.log(`a sentence, fresh module per sentence: ${fmt(before)}; the calls' event loop stalled ${fmt(stalls.before)}`);
console.log(`a sentence, the voice as it is:        ${fmt(now)}; the calls' event loop stalled ${fmt(stalls.now)}`);
console.log(`a sentence the voice has kept:         ${fmt(kept)}; the calls' event loop stalled ${fmt(stalls.kept)}`);
