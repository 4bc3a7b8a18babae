import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The import rules of docs/architecture.md, checked on every source file: a forbidden import fails here, not in a
// review. Relative specifiers are resolved to the file they name; packages are checked by name where a rule names
// them. Every import counts, `import type` included: a type imported is a dependency all the same, and a circle of
// type imports is a circle of modules that cannot be understood, or changed, apart.

const root = path.resolve(import.meta.dirname, '..');
const SPECIFIER = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;
/** A package: any specifier that is not relative (`zod`, `node:fs`, `@livekit/agents`). */
const PACKAGE = /(?:from|import)\s*\(?\s*['"]([^'"./][^'"]*)['"]/g;

/** An import: the importing file, and the file (from the repository's root, with `/`) or package it names. */
interface Import {
  file: string;
  target: string;
}

/** The tracked sources under each path: a folder, or a single file such as `main.ts`. */
function sourcesOf(paths: string[]): string[] {
  const specs = paths.flatMap((p) => (/\.(ts|mjs)$/.test(p) ? [p] : [`${p}/*.ts`, `${p}/*.mjs`]));
  return execFileSync('git', ['ls-files', ...specs], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
}

/** The relative imports in the text of `file`, each resolved to the file it names. */
function relativeImportsIn(file: string, text: string): Import[] {
  return [...text.matchAll(SPECIFIER)].map((match) => ({
    file,
    target: path
      .relative(root, path.resolve(root, path.dirname(file), match[1]!))
      .split(path.sep)
      .join('/'),
  }));
}

/** The package imports in the text of `file`. */
function packageImportsIn(file: string, text: string): Import[] {
  return [...text.matchAll(PACKAGE)].map((match) => ({ file, target: match[1]! }));
}

/** Every relative import of the tracked sources under `paths`: the importing file and the file it names. */
function importsOf(...paths: string[]): Import[] {
  return sourcesOf(paths).flatMap((file) => relativeImportsIn(file, fs.readFileSync(path.join(root, file), 'utf8')));
}

/** Every package import of the tracked sources under `paths`: the importing file and the package it names. */
function packageImportsOf(...paths: string[]): Import[] {
  return sourcesOf(paths).flatMap((file) => packageImportsIn(file, fs.readFileSync(path.join(root, file), 'utf8')));
}

function violations(folder: string, forbidden: (target: string) => boolean): string[] {
  return (
    importsOf(folder)
      // A test beside its file may wait with the suite's own helpers (test/helpers/until.ts): tests ship with nothing.
      .filter(({ file, target }) => !(file.endsWith('.test.ts') && target.startsWith('test/helpers/')))
      .filter(({ target }) => forbidden(target))
      .map(({ file, target }) => `${file} imports ${target}`)
  );
}

const topFolder = (target: string) => target.split('/')[0]!;

// Each capability module is used from outside only through its public face, `modules/<name>/index.ts`: its other files
// can then change without a search through both processes, and what one module asks of another is written in one
// place. The checks below are plain functions of a list of imports, so each is also run on a list made to break it.

/** The module a path lies in (`calls` for `modules/calls/lifecycle.ts`), or undefined outside modules/. */
const moduleOf = (p: string): string | undefined => /^modules\/([^/]+)\//.exec(p)?.[1];
/** Tests may reach into a module to test its parts; the code that ships is held to the public faces. */
const isTest = (file: string) => file.startsWith('test/') || file.endsWith('.test.ts');
const isPublicFace = (target: string, name: string) => target === `modules/${name}/index.js` || target === `modules/${name}/index.ts`;

/** Imports from outside a module that name one of its files other than its public face. */
function deepImports(imports: Import[]): string[] {
  return imports
    .filter(({ file, target }) => {
      const into = moduleOf(target);
      return into !== undefined && !isTest(file) && moduleOf(file) !== into && !isPublicFace(target, into);
    })
    .map(({ file, target }) => `${file} imports ${target}`);
}

/** Files of a module that import its own public face: the module would load through itself, half initialised. */
function ownFaceImports(imports: Import[]): string[] {
  return imports
    .filter(({ file, target }) => {
      const own = moduleOf(file);
      return own !== undefined && !isTest(file) && !isPublicFace(file, own) && isPublicFace(target, own);
    })
    .map(({ file, target }) => `${file} imports ${target}`);
}

/** Which modules each module imports: any import from a file of one to a file of another, tests aside. */
function moduleGraph(imports: Import[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const { file, target } of imports) {
    const from = moduleOf(file);
    const to = moduleOf(target);
    if (from === undefined || to === undefined || from === to || isTest(file)) continue;
    graph.set(from, (graph.get(from) ?? new Set()).add(to));
  }
  return graph;
}

/**
 * Every group of modules that import one another in a circle, as its modules and one circle through them
 * (`analytics, calls: analytics → calls → analytics`). A circle between modules is what loads an index before the
 * files it re-exports are initialised ("Cannot access X before initialization").
 */
function moduleCycles(imports: Import[]): string[] {
  const graph = moduleGraph(imports);
  const reach = (start: string): Set<string> => {
    const seen = new Set<string>();
    const stack = [...(graph.get(start) ?? [])];
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...(graph.get(next) ?? []));
    }
    return seen;
  };
  const reachable = new Map([...graph.keys()].map((m) => [m, reach(m)]));
  const cycles: string[] = [];
  for (const start of [...graph.keys()].sort()) {
    // The modules on a circle with `start`: those it reaches that reach it back. Each group is reported once, by its first module.
    const group = [...reachable.get(start)!].filter((m) => reachable.get(m)?.has(start)).sort();
    if (group.length === 0 || group[0]! < start) continue;
    // The shortest circle from `start` back to itself, through the group only.
    const cameFrom = new Map<string, string>();
    const queue = [start];
    while (queue.length > 0 && !cameFrom.has(start)) {
      const at = queue.shift()!;
      for (const next of [...(graph.get(at) ?? [])].sort()) {
        if (!group.includes(next) || cameFrom.has(next)) continue;
        cameFrom.set(next, at);
        queue.push(next);
      }
    }
    const circle = [start];
    for (let at = cameFrom.get(start)!; at !== start; at = cameFrom.get(at)!) circle.unshift(at);
    circle.unshift(start);
    cycles.push(`${group.join(', ')}: ${circle.join(' → ')}`);
  }
  return cycles;
}

/** The frameworks of the two processes: Fastify and its plugins (the API's), LiveKit Agents and its plugins and RTC (the call runtime's). */
const PROCESS_FRAMEWORK = /^(fastify|@fastify\/|@livekit\/agents|@livekit\/rtc-node)/;

/** Module files that import either process's framework: a capability holds rules both processes apply, so it loads neither. */
function frameworkImports(imports: Import[]): string[] {
  return imports
    .filter(({ file, target }) => moduleOf(file) !== undefined && PROCESS_FRAMEWORK.test(target))
    .map(({ file, target }) => `${file} imports ${target}`);
}

describe('import rules', () => {
  it('keeps lib/ free of every capability and process: it imports only lib/ and packages', () => {
    expect(violations('lib', (target) => topFolder(target) !== 'lib')).toEqual([]);
  });

  it('keeps capabilities free of both processes and of HTTP: modules/ imports only modules/, lib/, prisma/, media/ and packages', () => {
    expect(violations('modules', (target) => !['modules', 'lib', 'prisma', 'media'].includes(topFolder(target)))).toEqual([]);
  });

  it('keeps the call runtime free of the HTTP layer: agent/ never imports api/', () => {
    expect(violations('agent', (target) => topFolder(target) === 'api')).toEqual([]);
  });

  it('keeps the API process from loading the call runtime', () => {
    expect(violations('api', (target) => topFolder(target) === 'agent')).toEqual([]);
  });

  it('keeps audio handling free of both processes', () => {
    expect(violations('media', (target) => ['api', 'agent'].includes(topFolder(target)))).toEqual([]);
  });

  it('sees the imports it checks', () => {
    // A rule over no imports would pass whatever the code did.
    expect(importsOf('api').length).toBeGreaterThan(100);
    expect(importsOf('lib').some(({ target }) => target.startsWith('lib'))).toBe(true);
    expect(importsOf('modules').some(({ target }) => target.startsWith('lib'))).toBe(true);
    expect(importsOf('main.ts').length).toBeGreaterThan(0);
    expect(importsOf(...SHIPPED).filter(({ target }) => target.endsWith('/index.js') && moduleOf(target) !== undefined).length).toBeGreaterThan(100);
    expect(moduleGraph(importsOf('modules')).size).toBeGreaterThan(5);
    expect(packageImportsOf('modules').some(({ target }) => target === 'zod')).toBe(true);
  });
});

/** Where the code that ships lives, held to the public faces: every module, both processes, the benchmarks, the entry. */
const SHIPPED = ['modules', 'api', 'agent', 'bench', 'main.ts'];

describe('public faces of modules', () => {
  it('gives every module a public face, modules/<name>/index.ts, that re-exports by name', () => {
    const modules = fs
      .readdirSync(path.join(root, 'modules'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    expect(modules.length).toBeGreaterThan(5);
    const tracked = new Set(sourcesOf(['modules']));
    expect(modules.filter((name) => !tracked.has(`modules/${name}/index.ts`))).toEqual([]);
    // `export *` would hand out whatever a file happens to export, which is what the face is there to stop.
    expect(modules.filter((name) => /^export \*/m.test(fs.readFileSync(path.join(root, 'modules', name, 'index.ts'), 'utf8')))).toEqual([]);
  });

  it('reports an import that names a file of a module past its public face, from another module or from a process', () => {
    const imports: Import[] = [
      { file: 'api/routes/calls.ts', target: 'modules/calls/read.js' },
      { file: 'modules/telephony/dialler.ts', target: 'modules/calls/statuses.js' },
      { file: 'bench/api/run.ts', target: 'modules/knowledge/search/lexical.js' },
      { file: 'agent/call/run-call.ts', target: 'modules/calls/index.js' },
      { file: 'modules/calls/read.ts', target: 'modules/calls/schemas.js' },
      { file: 'test/calls/read.test.ts', target: 'modules/calls/read.js' },
      { file: 'agent/call/finalize.test.ts', target: 'modules/calls/lifecycle.js' },
    ];
    expect(deepImports(imports)).toEqual([
      'api/routes/calls.ts imports modules/calls/read.js',
      'modules/telephony/dialler.ts imports modules/calls/statuses.js',
      'bench/api/run.ts imports modules/knowledge/search/lexical.js',
    ]);
  });

  it('has the modules, both processes, the benchmarks and main.ts use each module only through its public face', () => {
    expect(deepImports(importsOf(...SHIPPED))).toEqual([]);
  });

  it('reports a file of a module that imports its own public face', () => {
    const imports: Import[] = [
      { file: 'modules/calls/lifecycle.ts', target: 'modules/calls/index.js' },
      { file: 'modules/calls/index.ts', target: 'modules/calls/lifecycle.js' },
      { file: 'modules/telephony/dialler.ts', target: 'modules/calls/index.js' },
    ];
    expect(ownFaceImports(imports)).toEqual(['modules/calls/lifecycle.ts imports modules/calls/index.js']);
  });

  it('has the files of a module import one another directly, never their own public face', () => {
    expect(ownFaceImports(importsOf('modules'))).toEqual([]);
  });

  it('reports modules that import one another in a circle, naming them, type imports included', () => {
    const imports: Import[] = [
      ...relativeImportsIn('modules/calls/lifecycle.ts', "import { priceUsage } from '../analytics/index.js';"),
      // A type import closes the circle as much as any other.
      ...relativeImportsIn('modules/analytics/query.ts', "import type { CallRow } from '../calls/index.js';"),
      { file: 'modules/tools/service.ts', target: 'modules/calls/index.js' },
      { file: 'modules/playbooks/call-playbooks.ts', target: 'modules/tools/index.js' },
      { file: 'modules/webhooks/events.ts', target: 'modules/playbooks/index.js' },
      { file: 'modules/playbooks/service.ts', target: 'modules/webhooks/index.js' },
      // Tests and the processes are no part of the graph between modules.
      { file: 'modules/contacts/service.test.ts', target: 'modules/campaigns/index.js' },
      { file: 'modules/campaigns/service.ts', target: 'modules/contacts/index.js' },
      { file: 'api/routes/calls.ts', target: 'modules/calls/index.js' },
    ];
    expect(moduleCycles(imports)).toEqual(['analytics, calls: analytics → calls → analytics', 'playbooks, webhooks: playbooks → webhooks → playbooks']);
  });

  it('keeps the modules free of circles: the modules and the imports between them form a layering', () => {
    expect(moduleCycles(importsOf('modules'))).toEqual([]);
  });

  it('reports a module file that imports the HTTP framework or the speech framework', () => {
    const imports: Import[] = [
      ...packageImportsIn('modules/telephony/dialler.ts', "import type { FastifyBaseLogger } from 'fastify';"),
      { file: 'modules/assistants/schemas.ts', target: 'fastify-type-provider-zod' },
      { file: 'modules/calls/store.ts', target: '@livekit/agents' },
      { file: 'modules/calls/store.ts', target: '@livekit/agents-plugin-openai' },
      { file: 'modules/telephony/livekit.ts', target: '@livekit/rtc-node' },
      { file: 'modules/telephony/livekit.ts', target: 'livekit-server-sdk' },
      { file: 'modules/webhooks/delivery-worker.ts', target: 'pino' },
      { file: 'api/app.ts', target: 'fastify' },
      { file: 'agent/worker.ts', target: '@livekit/agents' },
    ];
    expect(frameworkImports(imports)).toEqual([
      'modules/telephony/dialler.ts imports fastify',
      'modules/assistants/schemas.ts imports fastify-type-provider-zod',
      'modules/calls/store.ts imports @livekit/agents',
      'modules/calls/store.ts imports @livekit/agents-plugin-openai',
      'modules/telephony/livekit.ts imports @livekit/rtc-node',
    ]);
  });

  it('keeps the modules free of Fastify and of the speech framework: fastify and its plugins, @livekit/agents and its plugins, @livekit/rtc-node', () => {
    expect(frameworkImports(packageImportsOf('modules'))).toEqual([]);
  });
});
