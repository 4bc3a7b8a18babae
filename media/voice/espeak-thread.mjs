// The thread the offline voice runs in (espeak.ts). espeak-ng compiled to WebAssembly (npm `espeak-ng`) speaks with no
// system package and no network, but its synthesis is synchronous CPU work (~90 ms a sentence here, more for a fresh
// instance): on the main thread it held up every call's VAD and playout for that long, and a reply's second sentence,
// started at once beside its first, doubled the wait for the first audio. Here sentences run one after another, in
// the order asked, off the calls' event loop. Plain JavaScript so that it starts the same under any loader.
//
// The build runs its program once per module instance and exits, so each synthesis needs an instance of its own. Made
// from scratch, one took ~340 ms (reading and compiling the 18 MB module, which carries the voices' data, then
// instantiating it). So the module is compiled once, and an instance for the options last used is made ahead, held
// just before its program runs (a run dependency, Emscripten's own mechanism for waiting on input): a synthesis then
// only writes its text and lets the program run.
//
// Messages in: {type: 'speak', id, text, args}, {type: 'cancel', id}.
// Out: {id, wav} (a transferred WAV buffer) or {id, error}; a cancelled request is answered {id, cancelled: true}.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';

const require = createRequire(import.meta.url);
const INPUT = '';
/** Instances kept ready, one per set of options: a handful of voices in practice, each ~20 MB. */
const MAX_READY = 4;

let factory;
let compiled;

function loadFactory() {
  factory ??= import('espeak-ng').then((m) => m.default);
  factory.catch(() => (factory = undefined));
  return factory;
}

function compiledModule() {
  compiled ??= readFile(path.join(path.dirname(require.resolve('espeak-ng')), 'espeak-ng.wasm')).then((bytes) => WebAssembly.compile(bytes));
  compiled.catch(() => (compiled = undefined));
  return compiled;
}

/** An instance whose program waits for its text; `speak` gives it the text and answers the instance once it has run. */
function makeInstance(args) {
  let held;
  const holding = new Promise((resolve) => (held = resolve));
  const ran = Promise.all([loadFactory(), compiledModule()]).then(([create, wasm]) =>
    create({
      print: () => {},
      printErr: () => {},
      arguments: args,
      // Before the program runs: hold it until the text is written.
      preRun: [
        (module) => {
          // No id: with one the build would also start a timer that keeps the thread alive while the instance waits.
          module.addRunDependency(INPUT);
          held(module);
        },
      ],
      instantiateWasm(imports, done) {
        void WebAssembly.instantiate(wasm, imports).then((instance) => done(instance, wasm));
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

const ready = new Map();

/** Makes the next instance for these options ahead of its synthesis. */
function prepare(args) {
  const key = args.join('\u0000');
  if (ready.has(key)) return;
  ready.set(key, makeInstance(args));
  if (ready.size > MAX_READY) ready.delete(ready.keys().next().value);
}

async function speak(text, args) {
  const key = args.join('\u0000');
  const instance = ready.get(key) ?? makeInstance(args);
  ready.delete(key);
  try {
    const module = await instance.speak(text);
    const wav = module.FS.readFile('/output.wav');
    // A buffer of its own, so that it can be handed over to the caller's thread without a copy.
    return wav.byteOffset === 0 && wav.byteLength === wav.buffer.byteLength ? wav : wav.slice();
  } finally {
    // The next sentence's instance is made once this one has run, not while it runs.
    prepare(args);
  }
}

const cancelled = new Set();
/** One synthesis at a time, in the order asked: a reply's first sentence is never slowed by its second. */
let queue = Promise.resolve();

parentPort.on('message', (message) => {
  if (message.type === 'cancel') {
    cancelled.add(message.id);
    return;
  }
  const { id, text, args } = message;
  queue = queue.then(async () => {
    // Messages that arrived meanwhile are read first: a synthesis can run start to end in microtasks, and a cancel
    // behind it would otherwise come too late for the sentences queued after it.
    await new Promise((resolve) => setImmediate(resolve));
    try {
      if (cancelled.has(id)) return parentPort.postMessage({ id, cancelled: true });
      const wav = await speak(text, args);
      parentPort.postMessage({ id, wav }, [wav.buffer]);
    } catch (error) {
      parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
    } finally {
      // Ids grow and are served in order: a cancel for this one or an earlier one has nothing left to stop.
      for (const old of cancelled) if (old <= id) cancelled.delete(old);
    }
  });
});
