import { espeakSynthesize, warmLocalVoice, type EspeakOptions } from '../../agent/providers/local/espeak.js';

// The offline voice's time to a sentence's audio, which is the first audio of every reply and of the welcome: a fresh
// module per sentence (read, compiled and instantiated from its 18 MB, as the voice did before) against the voice as it
// is (compiled once, an instance made ahead). Alternated sentence by sentence in one run, 300 ms apart as a reply's
// sentences are. BENCH_SENTENCES (default 20) sentences each.

const OPTIONS: EspeakOptions = { voice: 'en-us', wordsPerMinute: 175, pitch: 50 };
const SENTENCES = ['Hello and welcome to the clinic, how can I help you today?', 'We open at nine in the morning.', 'Your appointment is booked for Tuesday at ten thirty.', 'Is there anything else I can help you with?'];
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

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

const pct = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)]!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const coldFresh = await timed(() => fresh(SENTENCES[0]!));
const coldWarmed = await timed(() => warmLocalVoice(OPTIONS));
await sleep(300);
const before: number[] = [];
const now: number[] = [];
for (let i = 0; i < count; i++) {
  const text = SENTENCES[i % SENTENCES.length]!;
  before.push(await timed(() => fresh(text)));
  await sleep(300);
  now.push(await timed(() => espeakSynthesize(text, OPTIONS)));
  await sleep(300);
}
const fmt = (v: number[]) => `p50 ${Math.round(pct(v, 50))} ms, p95 ${Math.round(pct(v, 95))} ms`;
console.log(`first sentence of the process: fresh module ${Math.round(coldFresh)} ms; warming the voice at start-up ${Math.round(coldWarmed)} ms (off the call's path)`);
console.log(`a sentence, fresh module per sentence: ${fmt(before)}`);
console.log(`a sentence, the voice as it is:        ${fmt(now)}`);
