import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../test/helpers/database.js';
import { modelFromDatabase, modelFromPrismaSchema } from '../test/helpers/prisma-schema-model.js';
import { migrate, readMigrations } from './migrate.js';

const here = path.dirname(fileURLToPath(import.meta.url));

describe('committed migrations', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase({ migrated: false });
  });
  afterAll(async () => db.drop());

  it('produce exactly the tables, columns, types, nullability, defaults, indexes, uniques and foreign keys of schema.prisma', async () => {
    await migrate(db.url);
    const declared = await modelFromPrismaSchema(path.join(here, 'schema.prisma'));
    const actual = await modelFromDatabase(db.url);
    expect(Object.keys(actual.tables).sort()).toEqual(Object.keys(declared.tables).sort());
    for (const [table, expected] of Object.entries(declared.tables)) {
      expect({ table, ...actual.tables[table] }).toEqual({ table, ...expected });
    }
  });

  it('are recorded in _prisma_migrations and a second run applies nothing', async () => {
    const again = await migrate(db.url);
    expect(again).toEqual([]);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const rows = await client.query('SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" ORDER BY migration_name');
    await client.end();
    const files = await readMigrations();
    expect(rows.rows.map((r) => [r.migration_name, r.checksum])).toEqual(files.map((m) => [m.name, m.checksum]));
    expect(rows.rows.every((r) => r.finished_at instanceof Date)).toBe(true);
  });
});

describe('migrating from several processes at once', () => {
  it('applies each migration exactly once', async () => {
    const db = await createTestDatabase({ migrated: false });
    try {
      const results = await Promise.all(Array.from({ length: 4 }, () => migrate(db.url)));
      const files = await readMigrations();
      expect(results.flat().sort()).toEqual(files.map((m) => m.name).sort());
    } finally {
      await db.drop();
    }
  });
});

describe('a migration edited after it was applied', () => {
  it('stops start-up with an error naming it', async () => {
    const db = await createTestDatabase();
    try {
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      await client.query(`UPDATE "_prisma_migrations" SET checksum = 'tampered'`);
      await client.end();
      await expect(migrate(db.url)).rejects.toThrow(/edited after it was applied/);
    } finally {
      await db.drop();
    }
  });
});
