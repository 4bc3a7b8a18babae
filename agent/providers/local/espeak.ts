import { decodeWav, type PcmAudio } from '../../../media/wav.js';

// espeak-ng compiled to WebAssembly (npm `espeak-ng`): speaks with no system package and no network. Each synthesis
// runs a fresh module instance (the build exits after one utterance); that costs ~200 ms per sentence on one core,
// which is acceptable for a development and test voice.

type EspeakModule = { FS: { readFile(path: string): Uint8Array; writeFile(path: string, data: string): void } };
type EspeakFactory = (options: Record<string, unknown>) => Promise<EspeakModule>;

let factory: Promise<EspeakFactory> | undefined;

function loadFactory(): Promise<EspeakFactory> {
  // The package ships no type declarations; the specifier is a variable so the compiler does not look for them.
  const specifier = 'espeak-ng';
  factory ??= import(specifier).then((m) => (m as unknown as { default: EspeakFactory }).default);
  return factory;
}

export interface EspeakOptions {
  voice: string;
  /** Words per minute; espeak-ng's own default is 175. */
  wordsPerMinute: number;
  /** 0-99, espeak-ng's default is 50. */
  pitch: number;
}

/** Synthesises one utterance to 22.05 kHz mono PCM. The text goes through a file so nothing in it is read as an option. */
export async function espeakSynthesize(text: string, options: EspeakOptions): Promise<PcmAudio> {
  const create = await loadFactory();
  const module = await create({
    print: () => {},
    printErr: () => {},
    preRun: [(m: EspeakModule) => m.FS.writeFile('/input.txt', text)],
    arguments: ['-w', '/output.wav', '-v', options.voice, '-s', String(options.wordsPerMinute), '-p', String(options.pitch), '-f', '/input.txt'],
  });
  return decodeWav(module.FS.readFile('/output.wav'));
}
