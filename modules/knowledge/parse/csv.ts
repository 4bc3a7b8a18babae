import { parse } from 'csv-parse/sync';
import { DocumentParseError } from './errors.js';
import { decodeUtf8 } from './text.js';

// A long file becomes one table per 25 rows, each under the header again: the document is cut into chunks of ~2,000
// characters for retrieval, and a row found without its column names would not say what its values mean.
export const CSV_ROWS_PER_TABLE = 25;
// A cell longer than this is cut (with "…"): a table row is read as one line, and one huge cell would fill a chunk.
export const CSV_MAX_CELL_CHARS = 500;
// Beyond this many columns a row is no longer a readable table line: each row is written as a list of "column: value".
export const CSV_MAX_TABLE_COLUMNS = 12;

function cell(value: string): string {
  let text = value.trim().replace(/\r\n?|\n/g, ' ');
  if (text.length > CSV_MAX_CELL_CHARS) text = `${text.slice(0, CSV_MAX_CELL_CHARS)}…`;
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|');
}

function row(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}

/**
 * A CSV file as Markdown tables: its first row is the header. Rows shorter or longer than the header are padded with
 * empty cells (and unnamed columns named "Column N").
 */
export function csvToMarkdown(bytes: Buffer): string {
  const text = decodeUtf8(bytes, 'CSV file');
  let records: string[][];
  try {
    records = parse(text, { relax_column_count: true, relax_quotes: true, skip_empty_lines: true });
  } catch (error) {
    const line = (error as { lines?: number }).lines;
    throw new DocumentParseError('unreadable_document', `This CSV file cannot be read${line ? ` (line ${line})` : ''}: check its quotes and separators.`);
  }
  if (records.length === 0) throw new DocumentParseError('empty_document', 'This CSV file is empty.');
  const width = Math.max(...records.map((record) => record.length));
  const header = Array.from({ length: width }, (_, i) => cell(records[0]![i] ?? '') || `Column ${i + 1}`);
  const body = records.slice(1).map((record) => Array.from({ length: width }, (_, i) => cell(record[i] ?? '')));

  if (width > CSV_MAX_TABLE_COLUMNS) {
    // One section per row: each keeps every column name beside its value.
    return body.map((values, index) => [`## Row ${index + 1}`, '', ...values.map((value, i) => `- **${header[i]}**: ${value}`)].join('\n')).join('\n\n');
  }
  const head = [row(header), row(header.map(() => '---'))];
  if (body.length === 0) return head.join('\n');
  const tables: string[] = [];
  for (let start = 0; start < body.length; start += CSV_ROWS_PER_TABLE) {
    tables.push([...head, ...body.slice(start, start + CSV_ROWS_PER_TABLE).map(row)].join('\n'));
  }
  return tables.join('\n\n');
}
