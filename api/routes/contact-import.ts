import { CsvError, parse } from 'csv-parse/sync';
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { PrismaClient } from '../../prisma/client.js';
import { ValidationFailed } from '../../lib/errors.js';
import { findUnstorableText } from '../../lib/storable-text.js';
import { commonErrors, envelope, ErrorResponse } from '../schemas/common.js';
import { ContactImportBody, IMPORT_BODY_LIMIT_BYTES, importContacts, ImportReport, MAX_IMPORT_ROWS } from '../../modules/contacts/index.js';

const CSV_TYPES = ['text/csv', 'application/csv'];
const IMPORT_BODY_LIMIT_MIB = IMPORT_BODY_LIMIT_BYTES / (1024 * 1024);

function csvInvalid(message: string, line?: number): ValidationFailed {
  return new ValidationFailed([{ loc: ['body', line ?? 0], msg: `CSV error: ${message}`, type: 'csv_invalid' }]);
}

/** A CSV file as the `{ contacts }` body the route validates: one record per data line, keyed by the header. */
export function parseCsv(text: string): { contacts: Record<string, string>[] } {
  let records: Record<string, string>[];
  try {
    records = parse(text, {
      bom: true,
      columns: (header: string[]) => {
        const names = header.map((h) => h.trim());
        const repeated = names.find((n, i) => names.indexOf(n) !== i);
        if (repeated !== undefined) throw csvInvalid(`column "${repeated}" appears twice in the header`, 1);
        if (names.some((n) => n === '')) throw csvInvalid('a header column has no name', 1);
        // Named like the header check of the import itself: `["body", "header", <column>]`.
        const unstorable = findUnstorableText(Object.fromEntries(names.map((n) => [n, ''])), ['body', 'header']);
        if (unstorable.length > 0) throw new ValidationFailed(unstorable);
        return names;
      },
      skip_empty_lines: true,
      // One row past the limit is enough to know the file is too long; the body schema then reports the limit.
      to: MAX_IMPORT_ROWS + 1,
    }) as Record<string, string>[];
  } catch (error) {
    if (error instanceof ValidationFailed) throw error;
    if (error instanceof CsvError) throw csvInvalid(error.message.replace(/^Invalid Record Length: /, ''), (error as { lines?: number }).lines);
    throw csvInvalid('unreadable file');
  }
  // Checked here rather than by the request-wide check so that `loc` names the data line and column, `["body", 0, "email"]`,
  // as the import's own row errors do, not the `contacts` array the file is turned into.
  const unstorable = findUnstorableText(records, ['body']);
  if (unstorable.length > 0) throw new ValidationFailed(unstorable);
  return { contacts: records };
}

/** Lets the routes of `app`'s plugin take a CSV file as the `{ contacts }` body of an import. */
export function acceptCsvImports(app: FastifyInstance): void {
  app.addContentTypeParser(CSV_TYPES, { parseAs: 'string', bodyLimit: IMPORT_BODY_LIMIT_BYTES }, (_request, body, done) => {
    try {
      done(null, parseCsv(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

export const contactImportRoutes: FastifyPluginAsyncZod<{ prisma: PrismaClient }> = async (app, { prisma }) => {
  // Scoped to this plugin: only the import endpoint takes CSV.
  acceptCsvImports(app);

  app.post('/contacts/import', {
    bodyLimit: IMPORT_BODY_LIMIT_BYTES,
    // The shared handler names the 1 MiB limit of every other route; this one has its own.
    errorHandler: (error, _request, reply) => {
      if ((error as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        return reply.status(413).send({ success: false, code: 'payload_too_large', message: `Import body is larger than ${IMPORT_BODY_LIMIT_MIB} MiB` });
      }
      throw error;
    },
    schema: {
      tags: ['Contacts'],
      summary: 'Import (bulk sync) contacts from JSON or CSV',
      description:
        'Creates new contacts and updates existing ones: a row whose phone, email or external_id is already known updates that ' +
        'contact (fields it gives replace stored ones, custom fields merge, nothing is cleared). A row whose identifiers belong to ' +
        `two different contacts is reported as \`conflict\`; an invalid row as \`invalid\` with its errors. At most ${MAX_IMPORT_ROWS} rows ` +
        `and ${IMPORT_BODY_LIMIT_MIB} MiB. ` +
        'Send `application/json` (`{"contacts": [...]}`) or `text/csv` (header row of field names and custom property keys).',
      body: ContactImportBody,
      response: {
        200: envelope(ImportReport),
        409: ErrorResponse.describe('The same contacts were being changed concurrently; nothing was imported, retry'),
        413: ErrorResponse.describe(`Body larger than ${IMPORT_BODY_LIMIT_MIB} MiB`),
        ...commonErrors,
      },
    },
    handler: async (request) => {
      const contentType = String(request.headers['content-type'] ?? '').toLowerCase();
      const format = CSV_TYPES.some((t) => contentType.startsWith(t)) ? 'csv' : 'json';
      const report = await importContacts(prisma, request.identity.organizationId, format, request.body.contacts);
      return { success: true as const, message: 'Contacts imported', data: report };
    },
  });
};
