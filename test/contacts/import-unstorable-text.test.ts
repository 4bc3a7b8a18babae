import { describe, expect } from 'vitest';
import { importContacts } from '../../modules/contacts/import.js';
import { apiTest as it } from '../helpers/fixtures.js';

// Requests carrying such text are refused whole before the import runs (test/api/request-errors.test.ts); rows given to
// the import by other code are checked one by one, in the import's own per-row report.
describe('an import row with text Postgres cannot store', () => {
  it.beforeAll(async ({ api, tenant }) => {
    const property = await api.call(tenant, 'POST', '/api/contact-properties', { key: 'note', label: 'Note', type: 'text' });
    expect(property.status).toBe(201);
  });

  it('is reported invalid at its field while the other rows import', async ({ api, tenant }) => {
    const report = await importContacts(api.db.prisma, tenant.organizationId, 'json', [
      { email: 'fine@example.com', custom_fields: { note: 'ok' } },
      { email: 'lone@example.com', custom_fields: { note: 'a\ud800' } },
    ]);
    expect(report).toMatchObject({ total: 2, created: 1, invalid: 1 });
    expect(report.rows[1]).toEqual({
      index: 1,
      status: 'invalid',
      contact_id: null,
      errors: [
        {
          loc: ['body', 'contacts', 1, 'custom_fields', 'note'],
          msg: 'String should not contain unpaired surrogate characters',
          type: 'string_pattern_mismatch',
        },
      ],
    });
  });

  it('names the data line and column of a CSV row', async ({ api, tenant }) => {
    const report = await importContacts(api.db.prisma, tenant.organizationId, 'csv', [{ email: 'csv@example.com', note: 'x\u0000' }]);
    expect(report.rows[0]).toMatchObject({
      status: 'invalid',
      errors: [{ loc: ['body', 0, 'note'], msg: 'String should not contain NUL characters', type: 'string_pattern_mismatch' }],
    });
  });
});
