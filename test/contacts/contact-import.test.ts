import pg from 'pg';
import { describe, expect } from 'vitest';
import { ImportReport } from '../../modules/contacts/schemas.js';
import type { Tenant } from '../helpers/api.js';
import { apiTest } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';

/** A valid US number per index: 212-2xx-xxxx is an allocated New York range. */
const phoneOf = (i: number) => `+1212${2_000_000 + i}`;

const it = apiTest
  .extend(
    'importJson',
    { scope: 'file' },
    async ({ api, tenant }) =>
      (contacts: unknown[], who: Tenant = tenant) =>
        api.call(who, 'POST', '/api/contacts/import', { contacts }),
  )
  .extend('importCsv', { scope: 'file' }, async ({ api, tenant }) => async (csv: string, who: Tenant = tenant) => {
    const res = await api.app.inject({
      method: 'POST',
      url: '/api/contacts/import',
      headers: { authorization: `Bearer ${who.key}`, 'content-type': 'text/csv; charset=utf-8' },
      payload: csv,
    });
    return { status: res.statusCode, body: JSON.parse(res.body) };
  });

describe('importing contacts', () => {
  it.beforeAll(async ({ api, tenant }) => {
    for (const body of [
      { key: 'age', label: 'Age', type: 'number' },
      { key: 'birthday', label: 'Birthday', type: 'date' },
      { key: 'plan', label: 'Plan', type: 'select', options: ['free', 'pro'] },
    ]) {
      expect((await api.call(tenant, 'POST', '/api/contact-properties', body)).status).toBe(201);
    }
  });

  describe('JSON', () => {
    it('creates new people and adds details to known ones instead of answering a conflict', async ({ api, tenant, importJson }) => {
      const known = await api.call(tenant, 'POST', '/api/contacts', { phone_number: '+16502530301', email: 'known@example.com', custom_fields: { age: 20 } });
      const knownId = known.body.data.id;
      const res = await importJson([
        { phone_number: '(650) 253-0301', first_name: 'Known', last_name: 'Person', custom_fields: { plan: 'pro' } },
        { email: 'new@example.com', first_name: 'New', custom_fields: { age: '33' } },
        { external_id: 'ext-9', phone_number: 'not a phone' },
        { email: 'NEW@example.com', last_name: 'Later' },
        { first_name: 'No identifier' },
        { email: 'bday@example.com', custom_fields: { birthday: 'someday' } },
      ]);
      expect(res.status).toBe(200);
      const report = ImportReport.parse(res.body.data);
      expect(report).toMatchObject({ total: 6, created: 1, updated: 2, invalid: 3, conflict: 0 });
      const newId = report.rows[1]!.contact_id;
      expect(report.rows).toEqual([
        { index: 0, status: 'updated', contact_id: knownId },
        { index: 1, status: 'created', contact_id: newId },
        {
          index: 2,
          status: 'invalid',
          contact_id: null,
          errors: [{ loc: ['body', 'contacts', 2, 'phone_number'], msg: 'value is not a valid phone number', type: 'value_error' }],
        },
        // A second row for the same person in one file updates the contact the first row created.
        { index: 3, status: 'updated', contact_id: newId },
        {
          index: 4,
          status: 'invalid',
          contact_id: null,
          errors: [{ loc: ['body', 'contacts', 4], msg: 'At least one of phone_number, email or external_id is required', type: 'missing_identifier' }],
        },
        {
          index: 5,
          status: 'invalid',
          contact_id: null,
          errors: [
            { loc: ['body', 'contacts', 5, 'custom_fields', 'birthday'], msg: 'Input should be a valid date in the format YYYY-MM-DD', type: 'date_parsing' },
          ],
        },
      ]);
      const updated = (await api.call(tenant, 'GET', `/api/contacts/${knownId}`)).body.data;
      // The name is added; the email it already had stays; custom fields merge; the contact keeps its origin.
      expect(updated).toMatchObject({
        first_name: 'Known',
        last_name: 'Person',
        email: 'known@example.com',
        custom_fields: { age: 20, plan: 'pro' },
        source: 'api',
      });
      const created = (await api.call(tenant, 'GET', `/api/contacts/${newId}`)).body.data;
      expect(created).toMatchObject({ email: 'new@example.com', first_name: 'New', last_name: 'Later', custom_fields: { age: 33 }, source: 'import' });
    });

    it('reports a row whose identifiers belong to two different contacts as a conflict and changes neither', async ({ api, tenant, importJson }) => {
      const a = (await api.call(tenant, 'POST', '/api/contacts', { phone_number: '+16502530302' })).body.data.id;
      const b = (await api.call(tenant, 'POST', '/api/contacts', { email: 'b@example.com' })).body.data.id;
      const res = await importJson([{ phone_number: '+16502530302', email: 'b@example.com', first_name: 'Merged?' }]);
      expect(res.body.data.rows).toEqual([
        {
          index: 0,
          status: 'conflict',
          contact_id: null,
          conflicts: [
            { field: 'phone_number', contact_id: a },
            { field: 'email', contact_id: b },
          ],
        },
      ]);
      expect((await api.call(tenant, 'GET', `/api/contacts/${a}`)).body.data.first_name).toBeNull();
      expect((await api.call(tenant, 'GET', `/api/contacts/${b}`)).body.data.first_name).toBeNull();
    });

    it('matches only within the organisation', async ({ api, importJson }) => {
      const other = await api.tenant();
      const res = await importJson([{ phone_number: '+16502530301', first_name: 'Elsewhere' }], other);
      expect(res.body.data.rows[0].status).toBe('created');
      expect(res.body.data.rows[0].contact_id).not.toBe(undefined);
    });

    it('refuses an empty list, too many rows and a malformed body with 422', async ({ api, tenant, importJson }) => {
      expect((await importJson([])).body.detail[0]).toMatchObject({ loc: ['body', 'contacts'], type: 'too_short' });
      const tooMany = await importJson(Array.from({ length: 25_001 }, () => ({})));
      expect(tooMany.status).toBe(422);
      expect(tooMany.body.detail[0]).toMatchObject({ loc: ['body', 'contacts'], type: 'too_long' });
      expect((await api.call(tenant, 'POST', '/api/contacts/import', { rows: [] })).body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([
        ['body', 'contacts'],
        ['body', 'rows'],
      ]);
      expect((await importJson([42])).body.detail[0]).toMatchObject({ loc: ['body', 'contacts', 0], type: 'dict_type' });
    });

    it('takes bodies above the 1 MiB limit of other routes, up to its own 8 MiB', async ({ api, importJson, importCsv }) => {
      const org = await api.tenant();
      const rows = Array.from({ length: 6_000 }, (_, i) => ({ external_id: `big-${i}`, first_name: 'N'.repeat(190) }));
      expect(JSON.stringify({ contacts: rows }).length).toBeGreaterThan(1024 * 1024);
      const res = await importJson(rows, org);
      expect(res.status).toBe(200);
      expect(res.body.data.created).toBe(6_000);
      const tooBig = await importCsv(`external_id\n${'x'.repeat(9 * 1024 * 1024)}\n`, org);
      expect(tooBig.status).toBe(413);
      expect(tooBig.body).toEqual({ success: false, code: 'payload_too_large', message: 'Import body is larger than 8 MiB' });
    });

    it('updates instead of failing when a single create of the same person commits mid-import', async ({ api, importJson }) => {
      const org = await api.tenant();
      const writer = new pg.Client({ connectionString: api.db.url });
      await writer.connect();
      try {
        await writer.query('BEGIN');
        const inserted = await writer.query<{ id: number }>(
          `INSERT INTO contacts (organization_id, phone_number, updated_at) VALUES ($1, '+16502530399', now()) RETURNING id`,
          [org.organizationId],
        );
        const pending = importJson([{ phone_number: '650 253 0399', first_name: 'Late' }, { email: 'bystander@example.com' }], org);
        // The import's insert waits on the uncommitted row with the same phone; let it, then commit that row.
        await until(
          async () => {
            const waiting = await api.db.prisma.$queryRaw<{ n: bigint }[]>`
              SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
            return Number(waiting[0]!.n) > 0;
          },
          { intervalMs: 10 },
        );
        await writer.query('COMMIT');
        const res = await pending;
        expect(res.status).toBe(200);
        expect(res.body.data.rows[0]).toEqual({ index: 0, status: 'updated', contact_id: inserted.rows[0]!.id });
        expect(res.body.data.rows[1].status).toBe('created');
        expect(await api.db.prisma.contact.count({ where: { organizationId: org.organizationId } })).toBe(2);
      } finally {
        await writer.end();
      }
    });

    it('lets two identical imports race without duplicating anyone', async ({ api, tenant, importJson }) => {
      const rows = Array.from({ length: 500 }, (_, i) => ({ phone_number: phoneOf(900_000 + i), first_name: `R${i}` }));
      const [a, b] = await Promise.all([importJson(rows), importJson(rows)]);
      expect([a.status, b.status]).toEqual([200, 200]);
      const counts = [a.body.data.created, b.body.data.created].sort();
      expect(counts).toEqual([0, 500]);
      const stored = await api.db.prisma.contact.count({ where: { organizationId: tenant.organizationId, firstName: { startsWith: 'R' } } });
      expect(stored).toBe(500);
    });
  });

  describe('CSV', () => {
    it('reads a header of field names and property keys, empty cells meaning "not given"', async ({ api, tenant, importCsv }) => {
      const csv = [
        'first_name,last_name,phone_number,email,timezone,age,plan',
        'Ann,"Smith, Jr.",650 253 0310,ann@example.com,America/New_York,42,free',
        'Ben,,+44 20 7946 0310,,,,',
        'Cy,Bad,,cy@example.com,,forty,',
        'Dee,,,,,,pro',
      ].join('\r\n');
      const res = await importCsv(csv);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ total: 4, created: 2, updated: 0, invalid: 2 });
      const [ann, ben, cy, dee] = res.body.data.rows;
      expect(ann.status).toBe('created');
      expect(ben.status).toBe('created');
      expect(cy).toEqual({
        index: 2,
        status: 'invalid',
        contact_id: null,
        errors: [{ loc: ['body', 2, 'age'], msg: 'Input should be a valid number', type: 'float_parsing' }],
      });
      expect(dee.errors[0]).toMatchObject({ loc: ['body', 3], type: 'missing_identifier' });
      const stored = (await api.call(tenant, 'GET', `/api/contacts/${ann.contact_id}`)).body.data;
      expect(stored).toMatchObject({
        first_name: 'Ann',
        last_name: 'Smith, Jr.',
        phone_number: '+16502530310',
        timezone: 'America/New_York',
        custom_fields: { age: 42, plan: 'free' },
        source: 'import',
      });
      expect((await api.call(tenant, 'GET', `/api/contacts/${ben.contact_id}`)).body.data).toMatchObject({ last_name: null, email: null });
    });

    it('refuses unknown and repeated columns and malformed files with 422 before importing anything', async ({ api, importCsv }) => {
      const unknown = await importCsv('email,shoe_size\nz@example.com,9\n');
      expect(unknown.status).toBe(422);
      expect(unknown.body.detail).toEqual([
        { loc: ['body', 'header', 'shoe_size'], msg: 'Column is neither a contact field nor a custom property key', type: 'extra_forbidden' },
      ]);
      expect(await api.db.prisma.contact.count({ where: { email: 'z@example.com' } })).toBe(0);
      const repeated = await importCsv('email,email\na@example.com,b@example.com\n');
      expect(repeated.body.detail[0]).toMatchObject({ loc: ['body', 1], type: 'csv_invalid' });
      const ragged = await importCsv('email,first_name\na@example.com,A,extra\n');
      expect(ragged.status).toBe(422);
      expect(ragged.body.detail[0].type).toBe('csv_invalid');
      const unclosed = await importCsv('email\n"a@example.com\n');
      expect(unclosed.body.detail[0].type).toBe('csv_invalid');
    });

    it('is taken only by the import endpoint', async ({ api, tenant }) => {
      const res = await api.app.inject({
        method: 'POST',
        url: '/api/contacts',
        headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'text/csv' },
        payload: 'email\na@example.com\n',
      });
      expect(res.statusCode).toBe(415);
    });
  });

  describe('at scale', () => {
    it('syncs 10,000 rows (5,000 known, 5,000 new) in one request within seconds, losing and duplicating nothing', async ({ api, importJson, importCsv }) => {
      const org = await api.tenant();
      // 5,000 people already known, by phone for half and by external id for the other half.
      const seed = Array.from({ length: 5_000 }, (_, i) => (i % 2 === 0 ? { phone_number: phoneOf(i) } : { external_id: `crm-${i}` }));
      const seeded = await importJson(seed, org);
      expect(seeded.body.data.created).toBe(5_000);

      const header = 'external_id,first_name,phone_number,email';
      const lines = Array.from({ length: 10_000 }, (_, i) => `crm-${i},Person ${i},${phoneOf(i)},person${i}@example.com`);
      const started = performance.now();
      const res = await importCsv([header, ...lines].join('\n'), org);
      const elapsedMs = performance.now() - started;
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ total: 10_000, created: 5_000, updated: 5_000, invalid: 0, conflict: 0 });
      // Generous for a slow two-core machine; it takes about a second here.
      expect(elapsedMs).toBeLessThan(15_000);

      const rows = res.body.data.rows as { index: number; status: string; contact_id: number }[];
      expect(rows.map((r) => r.index)).toEqual(Array.from({ length: 10_000 }, (_, i) => i));
      expect(new Set(rows.map((r) => r.contact_id)).size).toBe(10_000);
      expect(rows.slice(0, 5_000).every((r) => r.status === 'updated')).toBe(true);
      expect(rows.slice(5_000).every((r) => r.status === 'created')).toBe(true);

      const stored = await api.db.prisma.contact.findMany({
        where: { organizationId: org.organizationId },
        select: { id: true, externalId: true, phoneNumber: true, email: true, firstName: true },
      });
      expect(stored).toHaveLength(10_000);
      const byId = new Map(stored.map((c) => [c.id, c]));
      rows.forEach((r, i) => {
        expect(byId.get(r.contact_id)).toEqual({
          id: r.contact_id,
          externalId: `crm-${i}`,
          phoneNumber: phoneOf(i),
          email: `person${i}@example.com`,
          firstName: `Person ${i}`,
        });
      });
    });
  });
});
