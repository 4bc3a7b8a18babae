import fs from 'node:fs/promises';
import internals from '@prisma/internals';
import pg from 'pg';

// Two descriptions of the same database, made comparable: what schema.prisma declares (read through Prisma's own
// parser) and what a migrated Postgres actually has (read from its catalogs).

export interface Column {
  type: string;
  nullable: boolean;
  hasDefault: boolean;
}
export interface Index {
  columns: string[];
  unique: boolean;
  primary: boolean;
}
export interface ForeignKey {
  columns: string[];
  references: string;
  referencedColumns: string[];
  onDelete: string;
}
export interface SchemaModel {
  tables: Record<string, { columns: Record<string, Column>; indexes: Record<string, Index>; foreignKeys: Record<string, ForeignKey> }>;
}

const SCALAR_TYPES: Record<string, string> = {
  Int: 'integer',
  BigInt: 'bigint',
  String: 'text',
  Boolean: 'boolean',
  DateTime: 'timestamp(3) without time zone',
  Json: 'jsonb',
  Float: 'double precision',
  Decimal: 'numeric(65,30)',
  Bytes: 'bytea',
};

const NATIVE_TYPES: Record<string, (args: string[]) => string> = {
  Timestamptz: (a) => `timestamp(${a[0] ?? '6'}) with time zone`,
  Timestamp: (a) => `timestamp(${a[0] ?? '6'}) without time zone`,
  VarChar: (a) => (a[0] ? `character varying(${a[0]})` : 'character varying'),
  Char: (a) => `character(${a[0] ?? '1'})`,
  Uuid: () => 'uuid',
  Text: () => 'text',
  SmallInt: () => 'smallint',
  Integer: () => 'integer',
  BigInt: () => 'bigint',
  Real: () => 'real',
  DoublePrecision: () => 'double precision',
  Date: () => 'date',
  JsonB: () => 'jsonb',
  Inet: () => 'inet',
  Decimal: (a) => `numeric(${a.join(',')})`,
};

const ON_DELETE: Record<string, string> = {
  Cascade: 'CASCADE',
  Restrict: 'RESTRICT',
  SetNull: 'SET NULL',
  NoAction: 'NO ACTION',
  SetDefault: 'SET DEFAULT',
};

/**
 * Prisma's DMMF leaves out `Unsupported("…")` fields, so they are read from the schema's text: `model`, field, column
 * and type. This schema declares such columns only for values Postgres generates (a tsvector), hence `hasDefault`.
 */
function unsupportedFields(schema: string): Array<{ model: string; field: string; column: string; type: string; nullable: boolean }> {
  const found = [];
  for (const block of schema.matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm)) {
    for (const line of block[2]!.matchAll(/^\s*(\w+)\s+Unsupported\("([^"]+)"\)(\?)?(.*)$/gm)) {
      const mapped = /@map\("([^"]+)"\)/.exec(line[4]!);
      found.push({ model: block[1]!, field: line[1]!, column: mapped?.[1] ?? line[1]!, type: line[2]!, nullable: line[3] === '?' });
    }
  }
  return found;
}

export async function modelFromPrismaSchema(schemaPath: string): Promise<SchemaModel> {
  const text = await fs.readFile(schemaPath, 'utf8');
  const dmmf = await internals.getDMMF({ datamodel: text });
  const unsupported = unsupportedFields(text);
  const model: SchemaModel = { tables: {} };
  const tableOf = new Map<string, string>();
  const columnOf = new Map<string, Map<string, string>>();
  for (const m of dmmf.datamodel.models) {
    tableOf.set(m.name, m.dbName ?? m.name);
    columnOf.set(m.name, new Map(m.fields.map((f) => [f.name, f.dbName ?? f.name])));
  }
  for (const u of unsupported) columnOf.get(u.model)?.set(u.field, u.column);
  const enums = new Set(dmmf.datamodel.enums.map((e) => e.name));
  for (const m of dmmf.datamodel.models) {
    const table = tableOf.get(m.name)!;
    const cols = columnOf.get(m.name)!;
    const t: SchemaModel['tables'][string] = { columns: {}, indexes: {}, foreignKeys: {} };
    model.tables[table] = t;
    for (const f of m.fields) {
      if (f.kind === 'object') {
        if (f.relationFromFields && f.relationFromFields.length > 0) {
          const columns = f.relationFromFields.map((c) => cols.get(c)!);
          t.foreignKeys[`${table}_${columns.join('_')}_fkey`] = {
            columns,
            references: tableOf.get(f.type)!,
            referencedColumns: (f.relationToFields ?? []).map((c) => columnOf.get(f.type)!.get(c)!),
            onDelete: ON_DELETE[f.relationOnDelete ?? (f.isRequired ? 'Restrict' : 'SetNull')]!,
          };
        }
        continue;
      }
      const native = f.nativeType as [string, string[]] | null | undefined;
      let type = native ? NATIVE_TYPES[native[0]]!(native[1]) : enums.has(f.type) ? f.type : SCALAR_TYPES[f.type]!;
      if (f.isList) type = `${type}[]`;
      t.columns[cols.get(f.name)!] = { type, nullable: !f.isRequired, hasDefault: f.hasDefaultValue };
    }
    for (const u of unsupported.filter((u) => u.model === m.name)) t.columns[u.column] = { type: u.type, nullable: u.nullable, hasDefault: true };
  }
  for (const index of dmmf.datamodel.indexes) {
    const table = tableOf.get(index.model)!;
    const columns = index.fields.map((f) => columnOf.get(index.model)!.get(f.name)!);
    const suffix = index.type === 'id' ? 'pkey' : index.type === 'unique' ? 'key' : 'idx';
    const name = index.dbName ?? (index.type === 'id' ? `${table}_pkey` : `${table}_${columns.join('_')}_${suffix}`);
    model.tables[table]!.indexes[name] = { columns, unique: index.type !== 'normal', primary: index.type === 'id' };
  }
  return model;
}

const DELETE_RULES: Record<string, string> = { a: 'NO ACTION', r: 'RESTRICT', c: 'CASCADE', n: 'SET NULL', d: 'SET DEFAULT' };

export async function modelFromDatabase(url: string, ignoreTables: string[] = ['_prisma_migrations']): Promise<SchemaModel> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const model: SchemaModel = { tables: {} };
    const columns = await client.query<{ table: string; column: string; type: string; not_null: boolean; has_default: boolean }>(`
      SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type,
             a.attnotnull AS not_null, a.atthasdef AS has_default
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped`);
    for (const row of columns.rows) {
      if (ignoreTables.includes(row.table)) continue;
      const t = (model.tables[row.table] ??= { columns: {}, indexes: {}, foreignKeys: {} });
      t.columns[row.column] = { type: row.type, nullable: !row.not_null, hasDefault: row.has_default };
    }
    const indexes = await client.query<{ table: string; name: string; columns: string[]; unique: boolean; primary: boolean }>(`
      SELECT t.relname AS table, i.relname AS name, ix.indisunique AS unique, ix.indisprimary AS primary,
             array(SELECT a.attname FROM unnest(ix.indkey) WITH ORDINALITY k(attnum, ord)
                   JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.ord)::text[] AS columns
      FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid JOIN pg_class t ON t.oid = ix.indrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = 'public'`);
    for (const row of indexes.rows) {
      if (ignoreTables.includes(row.table)) continue;
      model.tables[row.table]!.indexes[row.name] = { columns: row.columns, unique: row.unique, primary: row.primary };
    }
    const fks = await client.query<{ table: string; name: string; columns: string[]; references: string; referenced: string[]; on_delete: string }>(`
      SELECT t.relname AS table, con.conname AS name, r.relname AS references, con.confdeltype AS on_delete,
             array(SELECT a.attname FROM unnest(con.conkey) WITH ORDINALITY k(attnum, ord)
                   JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum ORDER BY k.ord)::text[] AS columns,
             array(SELECT a.attname FROM unnest(con.confkey) WITH ORDINALITY k(attnum, ord)
                   JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum ORDER BY k.ord)::text[] AS referenced
      FROM pg_constraint con JOIN pg_class t ON t.oid = con.conrelid JOIN pg_class r ON r.oid = con.confrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace WHERE con.contype = 'f' AND n.nspname = 'public'`);
    for (const row of fks.rows) {
      if (ignoreTables.includes(row.table)) continue;
      model.tables[row.table]!.foreignKeys[row.name] = {
        columns: row.columns,
        references: row.references,
        referencedColumns: row.referenced,
        onDelete: DELETE_RULES[row.on_delete]!,
      };
    }
    return model;
  } finally {
    await client.end();
  }
}
