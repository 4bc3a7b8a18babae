import { test } from 'vitest';
import type { AppOptions } from '../../api/app.js';
import { createApiContext } from './api.js';
import { createTestDatabase } from './database.js';
import { startFakeCallModel } from '../fakes/vendors/call-model.js';

// File-scoped: built once per test file on first use and dropped when the file ends, so tests share one database or
// one API as they did with a `beforeAll`. A test-scoped API would clone a database and build the app for each of the
// ~500 tests, about a second each.

/** `db`: a private database of the migrated schema. */
export const dbTest = test.extend('db', { scope: 'file' }, async ({}, { onCleanup }) => {
  const db = await createTestDatabase();
  onCleanup(() => db.drop());
  return db;
});

/**
 * `api`: the API on its own database, built from `apiOptions`; `tenant`: an organisation with a user and a key in it.
 * A file whose API needs options says so once at its top level: `const it = apiTestWith({ ... })`. Where two describes
 * need differently configured APIs, each gets a test of its own, made at the file's top level (vitest refuses
 * file-scoped fixtures defined inside a describe), and `const it = cachingTest;` in the describe. Never
 * `apiTest.override(...)` at a file's top level: vitest applies it to `apiTest` itself, and test files that share a
 * worker share this module, so the next file would get the options too.
 */
export const apiTest = test
  .extend('apiOptions', { scope: 'file' }, {} as Partial<AppOptions>)
  .extend('api', { scope: 'file' }, async ({ apiOptions }, { onCleanup }) => {
    const api = await createApiContext(apiOptions);
    onCleanup(() => api.close());
    return api;
  })
  .extend('tenant', { scope: 'file' }, async ({ api }) => api.tenant());

/** `apiTest` whose API is built with `options`, for one file. */
export function apiTestWith(options: Partial<AppOptions>) {
  return apiTest.extend('apiOptions', { scope: 'file' }, options);
}

/**
 * `db` and `llm`: a fake chat model for whole calls (fakes/vendors/call-model.ts), answering the post-call analysis
 * with `summary` and every other request with `reply`.
 */
export const callModelTest = (summary: string, reply: Parameters<typeof startFakeCallModel>[1]) =>
  dbTest.extend('llm', { scope: 'file' }, async ({}, { onCleanup }) => {
    const llm = await startFakeCallModel(summary, reply);
    onCleanup(() => llm.close());
    return llm;
  });
