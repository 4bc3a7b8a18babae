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
  },
});
