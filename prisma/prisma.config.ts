import { defineConfig } from 'prisma/config';

// The CLI is used only for `prisma generate`; migrations are committed SQL applied by prisma/migrate.ts.
export default defineConfig({ schema: 'schema.prisma' });
