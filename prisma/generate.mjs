// Runs `prisma generate` offline. The CLI insists on locating a schema engine binary even though generating the
// client never runs it, and the binary cannot be downloaded here; pointing it at any existing file satisfies the check.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const env = { ...process.env };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= fileURLToPath(import.meta.url);
const cli = path.join(here, '..', 'node_modules', 'prisma', 'build', 'index.js');
const result = spawnSync(process.execPath, [cli, 'generate', '--config', path.join(here, 'prisma.config.ts')], {
  env,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
