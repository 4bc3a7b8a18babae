import { describe, expect } from 'vitest';
import { Contact } from '../../modules/contacts/schemas.js';
import { organizationRegion } from '../../modules/contacts/service.js';
import { recordCaller } from '../../modules/calls/lifecycle.js';
import type { Tenant } from '../helpers/api.js';
import { apiTest } from '../helpers/fixtures.js';

const it = apiTest.extend(
  'create',
  { scope: 'file' },
  async ({ api, tenant }) =>
    (body: unknown, who: Tenant = tenant) =>
      api.call(who, 'POST', '/api/contacts', body),
);

describe('contacts', () => {
  describe('create', () => {
    it('answers 201 with the envelope and the full contact record', async ({ api, tenant, create }) => {
      const res = await create({
        external_id: 'crm-1',
        first_name: '  Ada ',
        last_name: 'Lovelace',
        phone_number: '+1 650-253-0000',
        email: ' Ada.Lovelace@Example.COM ',
        timezone: 'europe/london',
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ success: true, message: 'Contact created' });
      const contact = Contact.parse(res.body.data);
      expect(contact).toMatchObject({
        organization_id: tenant.organizationId,
        external_id: 'crm-1',
        first_name: 'Ada',
        last_name: 'Lovelace',
        phone_number: '+16502530000',
        phone_extension: null,
        email: 'ada.lovelace@example.com',
        timezone: 'Europe/London',
        custom_fields: {},
        source: 'api',
        campaign_ids: [],
        last_seen_at: null,
      });
      const read = await api.call(tenant, 'GET', `/api/contacts/${contact.id}`);
      expect(read.status).toBe(200);
      expect(read.body.data).toEqual(contact);
    });

    it('needs at least one of phone_number, email or external_id', async ({ create }) => {
      const res = await create({ first_name: 'Nobody' });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([{ loc: ['body'], msg: 'At least one of phone_number, email or external_id is required', type: 'missing_identifier' }]);
    });

    it('refuses unknown fields, bad emails, unknown time zones and unparseable phones with a loc for each', async ({ create }) => {
      const res = await create({ phone_number: 'call me maybe', email: 'not-an-email', timezone: 'Mars/Olympus', nickname: 'x' });
      expect(res.status).toBe(422);
      const byLoc = Object.fromEntries(res.body.detail.map((d: { loc: string[]; type: string }) => [d.loc.join('.'), d.type]));
      expect(byLoc).toEqual({ 'body.nickname': 'extra_forbidden', 'body.email': 'value_error', 'body.timezone': 'timezone_error' });
      const phone = await create({ phone_number: 'call me maybe' });
      expect(phone.status).toBe(422);
      expect(phone.body.detail).toEqual([{ loc: ['body', 'phone_number'], msg: 'value is not a valid phone number', type: 'value_error' }]);
    });

    it('refuses a UTC offset in place of a time-zone name', async ({ create }) => {
      const res = await create({ email: 'offset@example.com', timezone: '+01:00' });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['body', 'timezone']);
    });

    it('refuses wrong JSON types without a 500', async ({ create }) => {
      for (const body of [
        { phone_number: 12 },
        { email: ['a@b.co'] },
        { custom_fields: 'x', email: 'c@d.co' },
        { custom_fields: [1], email: 'e@f.co' },
        [],
        null,
      ]) {
        const res = await create(body);
        expect(res.status, JSON.stringify(body)).toBe(422);
      }
    });
  });

  describe('phone normalisation', () => {
    const cases: [string, string, string, string | null][] = [
      ['E.164 stays', '+442079460958', '+442079460958', null],
      ['national format in the organisation region (US)', '(650) 253-0001', '+16502530001', null],
      ['spaces and dots', '650 253 00 02', '+16502530002', null],
      ['00 international prefix', '0044 20 7946 0959', '+442079460959', null],
      ['extension with "ext."', '+1 650 253 0003 ext. 42', '+16502530003', '42'],
      ['extension with "x"', '650-253-0004 x7', '+16502530004', '7'],
    ];
    for (const [name, input, e164, extension] of cases) {
      it(name, async ({ create }) => {
        const res = await create({ phone_number: input });
        expect(res.status).toBe(201);
        expect(res.body.data).toMatchObject({ phone_number: e164, phone_extension: extension });
      });
    }

    it('reads national numbers in the region the organisation set', async ({ api, create }) => {
      const uk = await api.tenant('UK org');
      const set = await api.call(uk, 'PATCH', '/api/organization/settings', { default_phone_region: 'gb' });
      expect(set.status).toBe(200);
      const res = await create({ phone_number: '020 7946 0960' }, uk);
      expect(res.status).toBe(201);
      expect(res.body.data.phone_number).toBe('+442079460960');
    });

    it('treats a number that differs only in notation as the same person (409)', async ({ create }) => {
      const res = await create({ phone_number: '+1 (650) 253-0001' });
      expect(res.status).toBe(409);
    });

    it('refuses numbers that are too short or not allocated', async ({ create }) => {
      for (const phone of ['12', '+1 111 111 1111', '+44 12']) {
        const res = await create({ phone_number: phone });
        expect(res.status, phone).toBe(422);
        expect(res.body.detail[0].loc).toEqual(['body', 'phone_number']);
      }
    });
  });

  describe('uniqueness', () => {
    let original: number;
    it.beforeAll(async ({ create }) => {
      const res = await create({ phone_number: '+1 212 200 1000', email: 'unique@example.com', external_id: 'u-1' });
      original = res.body.data.id;
    });

    for (const [field, body] of [
      ['phone_number', { phone_number: '212-200-1000' }],
      ['email', { email: 'UNIQUE@example.com' }],
      ['external_id', { external_id: 'u-1' }],
    ] as const) {
      it(`answers 409 naming ${field} and the existing contact, and creates nothing`, async ({ api, tenant, create }) => {
        const before = await api.db.prisma.contact.count({ where: { organizationId: tenant.organizationId } });
        const res = await create(body);
        expect(res.status).toBe(409);
        expect(res.body).toMatchObject({ success: false, code: 'conflict', field, existing_contact_id: original });
        expect(res.body.conflicts).toEqual([{ field, contact_id: original }]);
        expect(await api.db.prisma.contact.count({ where: { organizationId: tenant.organizationId } })).toBe(before);
      });
    }

    it('lists every clash when several identifiers belong to different contacts', async ({ create }) => {
      const other = await create({ email: 'other-owner@example.com' });
      const res = await create({ phone_number: '+12122001000', email: 'other-owner@example.com' });
      expect(res.status).toBe(409);
      expect(res.body.field).toBe('phone_number');
      expect(res.body.conflicts).toEqual([
        { field: 'phone_number', contact_id: original },
        { field: 'email', contact_id: other.body.data.id },
      ]);
    });

    it('lets racing creates of the same phone make exactly one contact', async ({ api, tenant, create }) => {
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => create({ phone_number: '+1 212 200 2000', first_name: `Racer ${i}` })));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(11);
      const winner = results.find((r) => r.status === 201)!.body.data.id;
      for (const r of results.filter((r) => r.status === 409)) expect(r.body).toMatchObject({ field: 'phone_number', existing_contact_id: winner });
      expect(await api.db.prisma.contact.count({ where: { organizationId: tenant.organizationId, phoneNumber: '+12122002000' } })).toBe(1);
    });

    it('lets another organisation hold the same phone, email and external_id', async ({ api, create }) => {
      const other = await api.tenant();
      const res = await create({ phone_number: '+12122001000', email: 'unique@example.com', external_id: 'u-1' }, other);
      expect(res.status).toBe(201);
      expect(res.body.data.id).not.toBe(original);
    });
  });

  describe('update', () => {
    let id: number;
    it.beforeAll(async ({ create }) => {
      const res = await create({ phone_number: '+12122003000', first_name: 'Grace', email: 'grace@example.com' });
      id = res.body.data.id;
    });

    it('changes the given fields, keeps the others and normalises as on create', async ({ api, tenant }) => {
      const res = await api.call(tenant, 'PATCH', `/api/contacts/${id}`, { last_name: 'Hopper', phone_number: '212 200 3001 ext 9' });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ first_name: 'Grace', last_name: 'Hopper', phone_number: '+12122003001', phone_extension: '9' });
    });

    it('clears a field with null but never the last identifier', async ({ api, tenant }) => {
      const cleared = await api.call(tenant, 'PATCH', `/api/contacts/${id}`, { email: null });
      expect(cleared.status).toBe(200);
      expect(cleared.body.data.email).toBeNull();
      const res = await api.call(tenant, 'PATCH', `/api/contacts/${id}`, { phone_number: null });
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ['body'], type: 'missing_identifier' });
    });

    it('answers 409 when the new phone belongs to another contact', async ({ api, tenant }) => {
      const res = await api.call(tenant, 'PATCH', `/api/contacts/${id}`, { phone_number: '+12122002000' });
      expect(res.status).toBe(409);
      expect(res.body.field).toBe('phone_number');
    });

    it('answers 422 for a bad id and 404 for a missing one', async ({ api, tenant }) => {
      expect((await api.call(tenant, 'PATCH', '/api/contacts/abc', { first_name: 'x' })).body.detail[0]).toMatchObject({
        loc: ['path', 'contact_id'],
        type: 'int_parsing',
      });
      expect((await api.call(tenant, 'PATCH', '/api/contacts/999999', { first_name: 'x' })).status).toBe(404);
      expect((await api.call(tenant, 'GET', '/api/contacts/99999999999')).status).toBe(422);
    });
  });

  describe('delete', () => {
    it('removes the contact and keeps its calls, unlinked', async ({ api, tenant, create }) => {
      const res = await create({ phone_number: '+12122004000' });
      const id = res.body.data.id;
      const call = await api.db.prisma.call.create({
        data: { callSid: `CA-contact-${id}`, organizationId: tenant.organizationId, contactId: id, direction: 'inbound', toNumber: '+12122004000' },
      });
      const deleted = await api.call(tenant, 'DELETE', `/api/contacts/${id}`);
      expect(deleted.status).toBe(204);
      expect((await api.call(tenant, 'GET', `/api/contacts/${id}`)).status).toBe(404);
      const kept = await api.db.prisma.call.findUnique({ where: { id: call.id } });
      expect(kept).not.toBeNull();
      expect(kept!.contactId).toBeNull();
      expect((await api.call(tenant, 'DELETE', `/api/contacts/${id}`)).status).toBe(404);
    });
  });

  describe('tenancy', () => {
    it("makes another organisation's contacts and properties indistinguishable from missing ones", async ({ api, tenant, create }) => {
      const mine = await create({ email: 'private@example.com' });
      const property = await api.call(tenant, 'POST', '/api/contact-properties', { key: 'secret_plan', label: 'Plan', type: 'text' });
      expect(property.status).toBe(201);
      const stranger = await api.tenant();
      const contactUrl = `/api/contacts/${mine.body.data.id}`;
      const propertyUrl = `/api/contact-properties/${property.body.data.id}`;
      const missingContact = await api.call(stranger, 'GET', '/api/contacts/2147483000');
      for (const [method, url, body] of [
        ['GET', contactUrl, undefined],
        ['PATCH', contactUrl, { first_name: 'x' }],
        ['DELETE', contactUrl, undefined],
        ['GET', propertyUrl, undefined],
        ['PATCH', propertyUrl, { label: 'x' }],
        ['DELETE', propertyUrl, undefined],
      ] as const) {
        const res = await api.call(stranger, method, url, body);
        expect(res.status, `${method} ${url}`).toBe(404);
        expect(res.body).toEqual({ ...missingContact.body, message: res.body.message });
      }
      const list = await api.call(stranger, 'GET', '/api/contacts?q=private');
      expect(list.body.data).toEqual([]);
      const properties = await api.call(stranger, 'GET', '/api/contact-properties');
      expect(properties.body.data).toEqual([]);
      // The stranger cannot set a value of our property either: the key is unknown to them.
      const setting = await create({ email: 'x@example.com', custom_fields: { secret_plan: 'a' } }, stranger);
      expect(setting.body.detail).toEqual([{ loc: ['body', 'custom_fields', 'secret_plan'], msg: 'No custom property has this key', type: 'extra_forbidden' }]);
      expect((await api.call(tenant, 'GET', contactUrl)).status).toBe(200);
    });

    it('requires an API key', async ({ api }) => {
      expect((await api.call(null, 'GET', '/api/contacts')).status).toBe(401);
      expect((await api.call(null, 'POST', '/api/contacts/import', { contacts: [] })).status).toBe(401);
    });
  });

  describe('odd requests', () => {
    it('never answer 500', async ({ api, tenant, create }) => {
      const property = await api.call(tenant, 'POST', '/api/contact-properties', { key: 'score', label: 'Score', type: 'number' });
      expect(property.status).toBe(201);
      const requests: [string, string, unknown][] = [
        ['POST', '/api/contacts', { email: 'odd@example.com', custom_fields: { score: { nested: [1, 2] } } }],
        ['POST', '/api/contacts', { email: 'odd2@example.com', custom_fields: { score: '1'.repeat(400) } }],
        ['POST', '/api/contacts', { email: 'a'.repeat(300) + '@example.com' }],
        ['POST', '/api/contacts', { phone_number: '+'.repeat(64) }],
        ['POST', '/api/contacts', { external_id: '\u0000' }],
        ['PATCH', '/api/contacts/1', null],
        ['POST', '/api/contacts', { email: 'nul@example.com', first_name: 'A\u0000B' }],
        ['GET', '/api/contacts?q=%00', undefined],
        ['GET', '/api/contacts?q=a%00b&q=c', undefined],
        ['POST', '/api/contact-properties', { key: 'nul_label', label: '\u0000', type: 'text' }],
        ['POST', '/api/contact-properties', { key: 'nul_options', label: 'x', type: 'select', options: ['\u0000'] }],
        ['GET', '/api/contacts?page=1&page=2', undefined],
        ['GET', '/api/contacts?cf.=1', undefined],
        ['GET', '/api/contacts?cf.score=1&cf.score=x', undefined],
        ['GET', '/api/contacts?campaign_id=99999999999', undefined],
        ['GET', `/api/contacts?${Array.from({ length: 60 }, () => 'source=api').join('&')}`, undefined],
        ['GET', '/api/contacts?last_seen_after=2026-02-30', undefined],
        ['POST', '/api/contact-properties', { key: 'x'.repeat(100), label: '', type: 'select', options: [] }],
        ['PATCH', '/api/contact-properties/1', { options: ['a'] }],
        ['POST', '/api/contacts/import', { contacts: [{ custom_fields: [] }, null, 'x'] }],
      ];
      for (const [method, url, body] of requests) {
        const res = await api.call(tenant, method as 'GET', url, body);
        expect(res.status, `${method} ${url} ${JSON.stringify(body)?.slice(0, 80)}`).toBeLessThan(500);
      }
      const nul = await create({ email: 'nul@example.com', external_id: 'a\u0000' });
      expect(nul.body.detail).toEqual([{ loc: ['body', 'external_id'], msg: 'String should not contain NUL characters', type: 'string_pattern_mismatch' }]);
      const scored = await create({ email: 'score@example.com', custom_fields: { score: '1e2' } });
      expect(scored.body.data.custom_fields).toEqual({ score: 100 });
      const both = await api.call(tenant, 'GET', '/api/contacts?cf.score=1&cf.score=x');
      expect(both.body.detail).toEqual([{ loc: ['query', 'cf.score', 1], msg: 'Input should be a valid number', type: 'float_parsing' }]);
    });
  });

  describe('inbound callers', () => {
    it('creates the contact on first contact and only marks it seen afterwards, never back in time, also when calls race', async ({ api }) => {
      const org = await api.tenant();
      const region = await organizationRegion(api.db.prisma, org.organizationId);
      const seen = new Date('2026-11-01T10:00:00Z');
      const results = await Promise.all(Array.from({ length: 5 }, () => recordCaller(api.db.prisma, org.organizationId, region, '+1 650 253 0100', seen)));
      expect(new Set(results.map((r) => r!.contactId)).size).toBe(1);
      expect(await api.db.prisma.contact.count({ where: { organizationId: org.organizationId } })).toBe(1);
      const later = await recordCaller(api.db.prisma, org.organizationId, region, '6502530100', new Date('2026-11-02T10:00:00Z'));
      expect(later).toEqual({ contactId: results[0]!.contactId, phone: '+16502530100' });
      // A call that arrived earlier but commits last leaves the later sighting in place.
      await recordCaller(api.db.prisma, org.organizationId, region, '+16502530100', seen);
      const res = await api.call(org, 'GET', `/api/contacts/${later!.contactId}`);
      expect(res.body.data).toMatchObject({ source: 'inbound_call', phone_number: '+16502530100', last_seen_at: '2026-11-02T10:00:00.000Z' });
      expect(await recordCaller(api.db.prisma, org.organizationId, region, 'anonymous')).toBeNull();
      expect(await api.db.prisma.contact.count({ where: { organizationId: org.organizationId } })).toBe(1);
    });
  });
});
