import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { decodeWav, type PcmAudio } from '../../../media/wav.js';

// espeak-ng compiled to WebAssembly (npm `espeak-ng`): speaks with no system package and no network. The build runs
// its program once per module instance and exits, so each synthesis needs an instance of its own. Made from scratch,
// one took ~340 ms whatever the sentence's length (reading and compiling the 18 MB module, which carries the voices'
// data, then instantiating it), and that was the first audio of every reply and of the welcome. So the module is
// compiled once per process, and an instance for the options last used is made ahead, held just before its program
// runs (a run dependency, Emscripten's own mechanism for waiting on input): a synthesis then only writes its text and
// lets the program run (~110 ms for a sentence here). docs/benchmarks.md has the figures. The price is memory: the
// compiled module and a waiting instance take ~75 MB of a process's RSS, so only the built-in runner (the embedded
// default, whose first call speaks with this voice) warms it at start; LiveKit job processes make it on first use.

type EspeakModule = {
  FS: { readFile(path: string): Uint8Array; writeFile(path: string, data: string): void };
  addRunDependency(id: string): void;
  removeRunDependency(id: string): void;
};
type EspeakFactory = (options: Record<string, unknown>) => Promise<EspeakModule>;
/** WebAssembly as Node has it (this project's compiler settings carry no DOM types). */
type CompiledModule = object;
const wasmApi = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<CompiledModule>; instantiate(module: CompiledModule, imports: object): Promise<object> } }).WebAssembly;

export interface EspeakOptions {
  voice: string;
  /** Words per minute; espeak-ng's own default is 175. */
  wordsPerMinute: number;
  /** 0-99, espeak-ng's default is 50. */
  pitch: number;
}

const require = createRequire(import.meta.url);
const INPUT = '';
/** Instances kept ready, one per set of options: a handful of voices in practice, each ~20 MB. */
const MAX_READY = 4;

let factory: Promise<EspeakFactory> | undefined;
let compiled: Promise<CompiledModule> | undefined;

function loadFactory(): Promise<EspeakFactory> {
  // The package ships no type declarations; the specifier is a variable so the compiler does not look for them.
  const specifier = 'espeak-ng';
  factory ??= import(specifier).then((m) => (m as unknown as { default: EspeakFactory }).default);
  factory.catch(() => (factory = undefined));
  return factory;
}

function compiledModule(): Promise<CompiledModule> {
  compiled ??= readFile(path.join(path.dirname(require.resolve('espeak-ng')), 'espeak-ng.wasm')).then((bytes) => wasmApi.compile(bytes));
  compiled.catch(() => (compiled = undefined));
  return compiled;
}

/** An instance whose program waits for its text; `speak` gives it the text and answers the instance once it has run. */
interface ReadyInstance {
  speak(text: string): Promise<EspeakModule>;
}

function makeInstance(args: string[]): ReadyInstance {
  let held: (module: EspeakModule) => void;
  const holding = new Promise<EspeakModule>((resolve) => (held = resolve));
  const ran = Promise.all([loadFactory(), compiledModule()]).then(([create, wasm]) =>
    create({
      print: () => {},
      printErr: () => {},
      arguments: args,
      // Before the program runs: hold it until the text is written.
      preRun: [
        (module: EspeakModule) => {
          // No id: with one the build would also start a timer that keeps the process alive while the instance waits.
          module.addRunDependency(INPUT);
          held(module);
        },
      ],
      instantiateWasm(imports: object, done: (instance: object, module: CompiledModule) => void) {
        void wasmApi.instantiate(wasm, imports).then((instance) => done(instance, wasm));
        return {};
      },
    }),
  );
  // An instance made ahead and never used fails quietly; one in use fails its synthesis.
  ran.catch(() => {});
  return {
    async speak(text) {
      const module = await Promise.race([holding, ran]);
      // The text goes through a file so nothing in it is read as an option.
      module.FS.writeFile('/input.txt', text);
      module.removeRunDependency(INPUT);
      return ran;
    },
  };
}

const ready = new Map<string, ReadyInstance>();

function argumentsOf(options: EspeakOptions): string[] {
  return ['-w', '/output.wav', '-v', options.voice, '-s', String(options.wordsPerMinute), '-p', String(options.pitch), '-f', '/input.txt'];
}

/** Makes the next instance for these options ahead of its synthesis. */
function prepare(args: string[]): void {
  const key = args.join('\u0000');
  if (ready.has(key)) return;
  ready.set(key, makeInstance(args));
  if (ready.size > MAX_READY) ready.delete(ready.keys().next().value!);
}

/** Synthesises one utterance to 22.05 kHz mono PCM. */
export async function espeakSynthesize(text: string, options: EspeakOptions): Promise<PcmAudio> {
  const args = argumentsOf(options);
  const key = args.join('\u0000');
  const instance = ready.get(key) ?? makeInstance(args);
  ready.delete(key);
  try {
    const module = await instance.speak(text);
    return decodeWav(module.FS.readFile('/output.wav'));
  } finally {
    // The next sentence's instance is made once this one has run, not while it runs.
    prepare(args);
  }
}

/**
 * Compiles the voice and makes its first instance, so that a process's first call does not wait for them (a worker
 * calls this as it starts).
 */
export function warmLocalVoice(options: EspeakOptions = { voice: 'en-us', wordsPerMinute: 175, pitch: 50 }): Promise<void> {
  prepare(argumentsOf(options));
  return compiledModule().then(
    () => undefined,
    () => undefined,
  );
}
