import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS from 'openapi-typescript';
import { openApiDocument } from '../../api/openapi-document.js';

// Writes the client's generated file from the service's routes: `src/schema.ts`, the OpenAPI document's types by
// openapi-typescript (the document itself is served by every API process at /api/openapi.json). `npm run client:generate` runs it;
// test/client/typed-client.test.ts fails while it is out of date.

const here = path.dirname(fileURLToPath(import.meta.url));

/** The generated files, by path inside packages/client/, as they should read now. */
export async function generatedFiles(): Promise<Record<string, string>> {
  const document = await openApiDocument();
  // Sorted: the order of components follows the order the schemas' modules were loaded in, which a test run changes.
  const types = await openapiTS(document as never, { exportType: false, alphabetize: true });
  return {
    'src/schema.ts': types,
  };
}

/** The files as they are in the repository. */
export async function committedFiles(names: string[]): Promise<Record<string, string | null>> {
  const read = (name: string) => readFile(path.join(here, name), 'utf8').catch(() => null);
  return Object.fromEntries(await Promise.all(names.map(async (name) => [name, await read(name)] as const)));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = await generatedFiles();
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(here, name), text);
  console.log(`wrote ${Object.keys(files).join(', ')} in packages/client/`);
}
