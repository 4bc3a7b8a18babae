import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The import rules of docs/architecture.md, checked on every source file: a forbidden import fails here, not in a
// review. Relative specifiers are resolved to the folder they land in; packages are not checked.

const root = path.resolve(import.meta.dirname, '..');
const SPECIFIER = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

/** Every relative import of the tracked sources under `folder`: the importing file and the file it names. */
function importsOf(folder: string): { file: string; target: string }[] {
  const files = execFileSync('git', ['ls-files', `${folder}/*.ts`, `${folder}/*.mjs`], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
  const found: { file: string; target: string }[] = [];
  for (const file of files) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    for (const match of text.matchAll(SPECIFIER)) {
      found.push({ file, target: path.relative(root, path.resolve(root, path.dirname(file), match[1]!)) });
    }
  }
  return found;
}

function violations(folder: string, forbidden: (target: string) => boolean): string[] {
  return importsOf(folder)
    .filter(({ target }) => forbidden(target))
    .map(({ file, target }) => `${file} imports ${target}`);
}

const topFolder = (target: string) => target.split(path.sep)[0]!;

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
  });
});
