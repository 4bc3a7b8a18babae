import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'dist/**', '.data/**'],
    globalSetup: ['test/helpers/global-postgres.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // One Postgres cluster serves every worker; each test file gets its own database cloned from a migrated template.
    pool: 'forks',
    // Most of the suite's time is whole calls played in real time, which wait far more than they compute: on a 2-core
    // machine three files at a time take the suite from about 12 to under 6 minutes, with the CPU still not saturated.
    maxWorkers: 3,
  },
});
