import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import SuiteSequencer from './test/sequencer.js';

const EXCLUDE = ['node_modules/**', 'dist/**', '.data/**'];
// The files that convert documents or run the embedding model (see the second project below); the knowledge module's
// pure tests (chunking, scoring, links) run in the shared workers like any other, without a process each.
const OWN_PROCESS = ['test/knowledge/**/*.test.ts', 'modules/knowledge/parse/index.test.ts', 'modules/knowledge/parse/conversion-threads.test.ts'];

export default defineConfig({
  // The typed client's examples import it by its package name, as its users do (tsconfig.json maps it the same way).
  resolve: { alias: { '@voice-platform/client': fileURLToPath(new URL('./packages/client/src/index.ts', import.meta.url)) } },
  test: {
    exclude: EXCLUDE,
    globalSetup: ['test/helpers/global-postgres.ts'],
    // Caps for a test that hangs, never budgets a passing test must meet: tests wait for the events they need, and on a
    // 2-core machine kept busy by other work the same test takes several times as long (a file's fixtures, such as
    // documents embedded by the offline model, count towards its first test).
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // One Postgres cluster serves every worker; each test file gets its own database cloned from a migrated template.
    pool: 'forks',
    // The files a worker runs share its module graph instead of each loading the API, Prisma and the speech framework
    // anew: a fresh clone's suite spent 792 s importing (4.3 s a file) and used 24 CPU-minutes, against 70 s and 11
    // CPU-minutes this way. Test files therefore keep no state in shared modules: fixtures are per file (a helper's cache
    // is keyed by the file's database) and `apiTest.override` is never used at a file's top level (test/README.md).
    isolate: false,
    // Many files wait far more than they compute (calls paced by their audio, pages loading in Chromium): on a 2-core
    // machine four files at a time keep both cores busy (test/sequencer.ts has the figures); more only queue for them.
    maxWorkers: 4,
    // One file that keeps a core busy at a time, beside files that mostly wait (test/sequencer.ts).
    sequence: { sequencer: SuiteSequencer },
    projects: [
      { extends: true, test: { name: 'shared', include: ['**/*.test.ts'], exclude: [...EXCLUDE, ...OWN_PROCESS] } },
      // Knowledge converts documents in threads it ends after each (modules/knowledge/parse/) and runs the offline
      // embedding model in threads, with WebAssembly and JIT code coming and going: a process that lived through many
      // such files once died of a V8 fault ("Check failed: jit_page.has_value()", a known V8 crash under thread and
      // WebAssembly churn). These files each get a process of their own again, as every file did before.
      { extends: true, test: { name: 'own-process', include: OWN_PROCESS, isolate: true } },
    ],
  },
});
