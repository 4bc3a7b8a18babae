import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../prisma/embedded-postgres.js';
import { migrate } from '../../prisma/migrate.js';

export const TEMPLATE_DATABASE = 'test_template';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

/** Starts one embedded Postgres for the whole run and migrates a template database that tests clone. */
export default async function setup(project: TestProject) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'voice-test-pg-'));
  // mkdtemp makes a 0700 directory; Postgres runs as its own user when we are root and must reach inside.
  await fs.chmod(dir, 0o755);
  const cluster = await startEmbeddedPostgres(dir, { persistent: false });
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${TEMPLATE_DATABASE}"`);
  await admin.end();
  const templateUrl = new URL(cluster.url);
  templateUrl.pathname = `/${TEMPLATE_DATABASE}`;
  await migrate(templateUrl.toString());
  project.provide('postgresUrl', cluster.url);
  return async () => {
    await cluster.stop();
    await fs.rm(dir, { recursive: true, force: true });
  };
}
