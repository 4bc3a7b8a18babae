import { writeFileSync } from 'node:fs';
import {
  CORPUS_RATE,
  GENERATOR_VERSION,
  MANIFEST_PATH,
  VOICED_LEVEL,
  engineVersion,
  loadRendering,
  readManifest,
  type Labels,
  type Manifest,
} from './render.js';
import { OFFSETS_MS, SCRIPT, VOICES, type Engine } from './script.js';

// Renders every script item in every voice this machine has (into the gitignored cache) and writes the labels to
// manifest.json. `--check` writes nothing and compares the renderings with the committed manifest instead: the same
// engines give the same audio, sample for sample.
//
//   npx tsx bench/turns/corpus/generate.ts [--check]

const check = process.argv.includes('--check');
const items: Labels[] = [];
const missing: Manifest['missing'] = [];
const engines: Partial<Record<Engine, string>> = {};

for (const voice of VOICES) {
  const version = engineVersion(voice.engine);
  if (version === null) {
    missing.push({ voice: voice.id, reason: `${voice.engine} is not installed (Debian package ${voice.engine})` });
    continue;
  }
  engines[voice.engine] = version;
  for (const item of SCRIPT) items.push((await loadRendering(item, voice)).labels);
  process.stderr.write(`${voice.id}: ${SCRIPT.length} items\n`);
}

if (check) {
  const committed = new Map(readManifest().items.map((l) => [l.id, l]));
  let differ = 0;
  for (const labels of items) {
    const before = committed.get(labels.id);
    if (!before) console.log(`${labels.id}: not in the manifest`);
    else if (before.sha256 !== labels.sha256) {
      differ++;
      const endShiftMs = ((labels.speechEndSample - before.speechEndSample) * 1000) / CORPUS_RATE;
      console.log(`${labels.id}: audio differs from the manifest's (end of speech ${endShiftMs >= 0 ? '+' : ''}${endShiftMs.toFixed(1)} ms)`);
    }
  }
  console.log(
    `${items.length} renderings, ${differ} differ from the manifest${missing.length ? `; not rendered: ${missing.map((m) => m.voice).join(', ')}` : ''}`,
  );
  process.exit(differ === 0 ? 0 : 1);
}

const manifest: Manifest = {
  generator: GENERATOR_VERSION,
  sampleRate: CORPUS_RATE,
  voicedLevel: VOICED_LEVEL,
  offsetsMs: OFFSETS_MS,
  engines,
  voices: VOICES,
  missing,
  items,
};
// One rendering per line: a changed label shows as one changed line.
const lines = JSON.stringify({ ...manifest, items: [] }, null, 2).replace(
  '"items": []',
  `"items": [\n${items.map((l) => `    ${JSON.stringify(l)}`).join(',\n')}\n  ]`,
);
writeFileSync(MANIFEST_PATH, `${lines}\n`);
const counts = new Map<string, number>();
for (const l of items) counts.set(l.kind, (counts.get(l.kind) ?? 0) + 1);
const byKind = [...counts].map(([kind, n]) => `${n} ${kind}`);
console.log(`${items.length} renderings (${byKind.join(', ')}) in ${VOICES.length - missing.length} voices written to ${MANIFEST_PATH}`);
for (const m of missing) console.log(`not rendered: ${m.voice}: ${m.reason}`);
