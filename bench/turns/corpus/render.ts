import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, renameSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { espeakSynthesize } from '../../../media/voice/espeak.js';
import { resampleLinear } from '../../../media/pcm.js';
import { decodeWav } from '../../../media/wav.js';
import type { Engine, ItemKind, ScriptItem, VoiceSpec } from './script.js';

// Renders the corpus: each phrase by its voice, resampled to the caller's 16 kHz, cut to its voiced part, and joined
// with the script's silences written as zeros. Labels are sample positions in the joined audio. Audio is cached under
// .data/turns-corpus (gitignored); the labels of every rendering are committed in manifest.json.

export const CORPUS_RATE = 16_000;
/**
 * A sample at or above this magnitude is voiced: about -50 dBFS, below every engine's quietest phoneme here and above
 * the dither and resampling residue of their silences (the pipeline benchmark trims at the same level).
 */
export const VOICED_LEVEL = 100;
/** Bumped when rendering or labelling changes, so that a stale cache is not read as the current corpus. */
export const GENERATOR_VERSION = 1;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const DEFAULT_CACHE_DIR = path.join(root, '.data', 'turns-corpus');
export const MANIFEST_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), 'manifest.json');

export interface PhraseLabel {
  text: string;
  /** First voiced sample. */
  startSample: number;
  /** One past the last voiced sample. */
  endSample: number;
}

export interface Labels {
  /** `<item>@<voice>` */
  id: string;
  item: string;
  voice: string;
  kind: ItemKind;
  topic?: string;
  /** Length of the rendered audio: the last phrase keeps its voice's own fade and trailing silence. */
  samples: number;
  phrases: PhraseLabel[];
  /** The inserted silences, [start, end): exactly zero, between the voiced ends of two phrases. */
  pauses: Array<{ startSample: number; endSample: number }>;
  /** The first voiced sample of the item (0: leading silence is cut; the player adds an offset). */
  speechStartSample: number;
  /** One past the last voiced sample of the item: the labelled end of speech. */
  speechEndSample: number;
  sha256: string;
}

export interface Rendering {
  labels: Labels;
  samples: Int16Array;
}

export interface Manifest {
  generator: number;
  sampleRate: number;
  voicedLevel: number;
  offsetsMs: number[];
  engines: Partial<Record<Engine, string>>;
  voices: VoiceSpec[];
  /** Voices that could not be rendered where the manifest was written, and why. */
  missing: Array<{ voice: string; reason: string }>;
  items: Labels[];
}

const onPath = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;

let engineVersions: Partial<Record<Engine, string | null>> | undefined;

/** What renders each engine here, or null when it cannot be had (flite needs Debian's `flite`). */
export function engineVersion(engine: Engine): string | null {
  engineVersions ??= {
    // espeak-ng's Debian binary when installed; otherwise the same engine compiled to WebAssembly (npm `espeak-ng`),
    // slower but always there.
    espeak: onPath('espeak-ng')
      ? spawnSync('espeak-ng', ['--version'], { encoding: 'utf8' }).stdout.split('Data at')[0]!.trim()
      : 'espeak-ng (WebAssembly, npm)',
    flite: onPath('flite') ? (spawnSync('flite', ['--version'], { encoding: 'utf8' }).stdout.match(/version: (\S+)/)?.[1] ?? 'flite') : null,
  };
  return engineVersions[engine] ?? null;
}

function runTool(command: string, args: string[]): void {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 30_000 });
  if (result.status !== 0) throw new Error(`${command} failed (${result.status ?? result.signal}): ${result.stderr}`);
}

/** One phrase in one voice, mono 16 kHz, as the engine wrote it (leading and trailing silence included). */
export async function renderPhrase(text: string, voice: VoiceSpec): Promise<Int16Array> {
  if (voice.engine === 'espeak' && !onPath('espeak-ng')) {
    const audio = await espeakSynthesize(text, { voice: voice.voice, wordsPerMinute: voice.wordsPerMinute ?? 175, pitch: voice.pitch ?? 50 });
    return resampleLinear(audio.samples, audio.sampleRate, CORPUS_RATE);
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'turns-corpus-'));
  try {
    // Text goes through a file, so nothing in it is read as an option.
    const input = path.join(dir, 'input.txt');
    const output = path.join(dir, 'output.wav');
    writeFileSync(input, text);
    if (voice.engine === 'espeak') {
      runTool('espeak-ng', ['-v', voice.voice, '-s', String(voice.wordsPerMinute ?? 175), '-p', String(voice.pitch ?? 50), '-w', output, '-f', input]);
    } else {
      runTool('flite', ['-voice', voice.voice, '-f', input, '-o', output]);
    }
    const audio = decodeWav(readFileSync(output));
    if (audio.channels !== 1) throw new Error(`${voice.id} wrote ${audio.channels} channels`);
    return resampleLinear(audio.samples, audio.sampleRate, CORPUS_RATE);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** [first voiced sample, one past the last), or null when nothing is voiced. */
export function voicedBounds(samples: Int16Array, level = VOICED_LEVEL): { start: number; end: number } | null {
  let start = 0;
  while (start < samples.length && Math.abs(samples[start]!) < level) start++;
  if (start === samples.length) return null;
  let end = samples.length;
  while (end > start && Math.abs(samples[end - 1]!) < level) end--;
  return { start, end };
}

/** Renders a script item in a voice and labels it from the audio. */
export async function renderItem(item: ScriptItem, voice: VoiceSpec): Promise<Rendering> {
  if (item.pausesMs.length !== item.phrases.length - 1) throw new Error(`${item.id}: one pause between each two phrases`);
  const pieces: Int16Array[] = [];
  const phrases: PhraseLabel[] = [];
  const pauses: Labels['pauses'] = [];
  let at = 0;
  for (const [k, phrase] of item.phrases.entries()) {
    const audio = await renderPhrase(phrase.spoken?.[voice.engine] ?? phrase.text, voice);
    const bounds = voicedBounds(audio);
    if (!bounds) throw new Error(`${item.id}@${voice.id}: phrase ${k} rendered silent`);
    const last = k === item.phrases.length - 1;
    // Inner phrases are cut at their voiced ends, so each inserted pause is the whole silence between two phrases;
    // the last keeps the engine's tail, and its end of speech is measured within it.
    const piece = audio.subarray(bounds.start, last ? audio.length : bounds.end);
    pieces.push(piece);
    phrases.push({ text: phrase.text, startSample: at, endSample: at + bounds.end - bounds.start });
    at += piece.length;
    if (!last) {
      const silence = Math.round((item.pausesMs[k]! * CORPUS_RATE) / 1000);
      pieces.push(new Int16Array(silence));
      pauses.push({ startSample: at, endSample: at + silence });
      at += silence;
    }
  }
  const samples = new Int16Array(at);
  let offset = 0;
  for (const piece of pieces) {
    samples.set(piece, offset);
    offset += piece.length;
  }
  const labels: Labels = {
    id: `${item.id}@${voice.id}`,
    item: item.id,
    voice: voice.id,
    kind: item.kind,
    ...(item.topic ? { topic: item.topic } : {}),
    samples: samples.length,
    phrases,
    pauses,
    speechStartSample: phrases[0]!.startSample,
    speechEndSample: phrases.at(-1)!.endSample,
    sha256: createHash('sha256')
      .update(Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength))
      .digest('hex'),
  };
  return { labels, samples };
}

/** What makes a rendering what it is: the cache is keyed on it, so a changed script, voice or engine renders anew. */
function cacheKey(item: ScriptItem, voice: VoiceSpec): string {
  const spec = { generator: GENERATOR_VERSION, engine: engineVersion(voice.engine), voice, phrases: item.phrases, pausesMs: item.pausesMs };
  return createHash('sha256').update(JSON.stringify(spec)).digest('hex').slice(0, 12);
}

/** The rendering from the cache, or rendered and cached now. Throws when the voice's engine is not installed. */
export async function loadRendering(item: ScriptItem, voice: VoiceSpec, cacheDir = DEFAULT_CACHE_DIR): Promise<Rendering> {
  if (engineVersion(voice.engine) === null) throw new Error(`${voice.engine} is not installed`);
  const base = path.join(cacheDir, `${item.id}@${voice.id}.${cacheKey(item, voice)}`);
  if (existsSync(`${base}.json`) && existsSync(`${base}.pcm`)) {
    const labels = JSON.parse(readFileSync(`${base}.json`, 'utf8')) as Labels;
    const bytes = readFileSync(`${base}.pcm`);
    const samples = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2).slice();
    if (samples.length === labels.samples) return { labels, samples };
  }
  const rendering = await renderItem(item, voice);
  mkdirSync(cacheDir, { recursive: true });
  // Written under temporary names and renamed, so a reader never finds half a file.
  const { samples } = rendering;
  writeFileSync(`${base}.pcm.tmp`, Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength));
  writeFileSync(`${base}.json.tmp`, JSON.stringify(rendering.labels));
  renameSync(`${base}.pcm.tmp`, `${base}.pcm`);
  renameSync(`${base}.json.tmp`, `${base}.json`);
  return rendering;
}

/** Where a rendering's audio lies in the cache (the benchmark's workers read it from there). */
export function cachedPcmPath(item: ScriptItem, voice: VoiceSpec, cacheDir = DEFAULT_CACHE_DIR): string {
  return path.join(cacheDir, `${item.id}@${voice.id}.${cacheKey(item, voice)}.pcm`);
}

export function readManifest(): Manifest {
  return JSON.parse(readFileSync(MANIFEST_PATH, 'utf8')) as Manifest;
}
