import { stringify } from 'csv-stringify';
import { pipeline, Readable } from 'node:stream';
import type { Db } from '../../prisma/client.js';
import type { CallFilters } from './schemas.js';
import { callRecord, callWhere } from './read.js';

// Exports a filtered set of calls as CSV or JSON Lines, streamed: rows are read in batches by id (keyset, so each batch
// is an index range, not an ever-growing offset) and written as the client reads, so the export of 100,000 calls holds
// one batch in memory at a time.

const BATCH = 1000;

type ExportRecord = Omit<ReturnType<typeof callRecord>, 'recordings'>;

export const CSV_COLUMNS = [
  'call_sid',
  'status',
  'direction',
  'transport',
  'from_number',
  'to_number',
  'assistant_id',
  'contact_id',
  'phone_number_id',
  'campaign_id',
  'widget_key_id',
  'provider_call_sid',
  'created_at',
  'started_at',
  'ended_at',
  'duration_seconds',
  'end_reason',
  'summary',
  'outcomes',
  'analysis_error',
] as const;

async function* records(db: Db, organizationId: number, filters: CallFilters): AsyncGenerator<ExportRecord> {
  const where = callWhere(organizationId, filters);
  let before: number | undefined;
  for (;;) {
    const rows = await db.call.findMany({
      where: before === undefined ? where : { AND: [where, { id: { lt: before } }] },
      orderBy: { id: 'desc' },
      take: BATCH,
    });
    for (const row of rows) {
      const { recordings: _r, ...record } = callRecord(row);
      yield record;
    }
    if (rows.length < BATCH) return;
    before = rows[rows.length - 1]!.id;
  }
}

/**
 * A cell a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, carriage return first) is prefixed with a
 * quote, as OWASP recommends for CSV exports. Numbers such as `+14155550123` or `-3` are left as they are.
 */
export function neutralizeFormula(value: string): string {
  if (/^[=+\-@\t\r]/.test(value) && !/^[+-]?\d[\d.]*$/.test(value)) return `'${value}`;
  return value;
}

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return neutralizeFormula(JSON.stringify(value));
  return neutralizeFormula(String(value));
}

export function exportCalls(db: Db, organizationId: number, filters: CallFilters, format: 'csv' | 'jsonl'): Readable {
  const source = records(db, organizationId, filters);
  if (format === 'jsonl') {
    return Readable.from(
      (async function* () {
        for await (const record of source) yield `${JSON.stringify(record)}\n`;
      })(),
    );
  }
  const rows = Readable.from(
    (async function* () {
      for await (const record of source) yield CSV_COLUMNS.map((c) => csvCell(record[c]));
    })(),
  );
  const csv = stringify({ header: true, columns: [...CSV_COLUMNS] });
  // A failure mid-export (the database went away) destroys the response stream: the client sees a cut transfer, not
  // a file that merely looks complete.
  pipeline(rows, csv, () => {});
  return csv;
}
