import { describe, expect } from 'vitest';
import { ContactProperty } from '../../modules/contacts/property-schemas.js';
import { apiTest } from '../helpers/fixtures.js';

const it = apiTest
  .extend(
    'define',
    { scope: 'file' },
    async ({ api, tenant }) =>
      (body: unknown) =>
        api.call(tenant, 'POST', '/api/contact-properties', body),
  )
  .extend(
    'createContact',
    { scope: 'file' },
    async ({ api, tenant }) =>
      (body: unknown) =>
        api.call(tenant, 'POST', '/api/contacts', body),
  );

describe('custom contact properties', () => {
  const ids: Record<string, number> = {};

  it.beforeAll(async ({ define }) => {
    for (const body of [
      { key: 'age', label: 'Age', type: 'number' },
      { key: 'vip', label: 'VIP', type: 'boolean' },
      { key: 'birthday', label: 'Birthday', type: 'date' },
      { key: 'signed_up_at', label: 'Signed up', type: 'datetime' },
      { key: 'plan', label: 'Plan', type: 'select', options: ['free', 'pro', 'enterprise'] },
      { key: 'notes', label: 'Notes', type: 'text' },
    ]) {
      const res = await define(body);
      expect(res.status, body.key).toBe(201);
      ids[body.key] = ContactProperty.parse(res.body.data).id;
    }
  });

  describe('definitions', () => {
    it('are listed oldest first with their type and options', async ({ api, tenant }) => {
      const res = await api.call(tenant, 'GET', '/api/contact-properties');
      expect(res.status).toBe(200);
      expect(res.body.data.map((p: { key: string }) => p.key)).toEqual(['age', 'vip', 'birthday', 'signed_up_at', 'plan', 'notes']);
      expect(res.body.data[4]).toMatchObject({ type: 'select', options: ['free', 'pro', 'enterprise'] });
      expect(res.body.data[0].options).toBeNull();
    });

    it('are created once: a second key answers 409 with the existing id', async ({ define }) => {
      const res = await define({ key: 'age', label: 'Age again', type: 'text' });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'conflict', field: 'key', existing_property_id: ids.age });
    });

    it('refuse bad keys, reserved keys, unknown types and misplaced options', async ({ define }) => {
      const cases: [unknown, (string | number)[], string][] = [
        [{ key: 'Bad Key', label: 'x', type: 'text' }, ['body', 'key'], 'string_pattern_mismatch'],
        [{ key: 'email', label: 'x', type: 'text' }, ['body', 'key'], 'reserved_key'],
        [{ key: 'colour', label: 'x', type: 'colour' }, ['body', 'type'], 'enum'],
        [{ key: 'tier', label: 'x', type: 'select' }, ['body', 'options'], 'missing'],
        [{ key: 'tier', label: 'x', type: 'text', options: ['a'] }, ['body', 'options'], 'extra_forbidden'],
        [{ key: 'tier', label: 'x', type: 'select', options: ['a', 'a'] }, ['body', 'options'], 'unique_items'],
        [{ key: 'tier', label: 'x', type: 'text', hidden: true }, ['body', 'hidden'], 'extra_forbidden'],
      ];
      for (const [body, loc, type] of cases) {
        const res = await define(body);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body.detail[0], JSON.stringify(body)).toMatchObject({ loc, type });
      }
    });

    it('change label and options but never key or type', async ({ api, tenant }) => {
      const res = await api.call(tenant, 'PATCH', `/api/contact-properties/${ids.plan}`, {
        label: 'Plan tier',
        options: ['free', 'pro', 'enterprise', 'team'],
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ key: 'plan', label: 'Plan tier', options: ['free', 'pro', 'enterprise', 'team'] });
      const typed = await api.call(tenant, 'PATCH', `/api/contact-properties/${ids.plan}`, { type: 'text' });
      expect(typed.status).toBe(422);
      expect(typed.body.detail[0]).toMatchObject({ loc: ['body', 'type'], type: 'extra_forbidden' });
      const options = await api.call(tenant, 'PATCH', `/api/contact-properties/${ids.age}`, { options: ['1'] });
      expect(options.status).toBe(409);
      expect(options.body.code).toBe('not_a_select');
    });
  });

  describe('values', () => {
    it('are coerced to the property type', async ({ createContact }) => {
      const res = await createContact({
        email: 'typed@example.com',
        custom_fields: { age: '42', vip: 'true', birthday: '2026-01-05', signed_up_at: '2026-01-05T10:30:00+02:00', plan: 'pro', notes: 7 },
      });
      expect(res.status).toBe(201);
      expect(res.body.data.custom_fields).toEqual({
        age: 42,
        vip: true,
        birthday: '2026-01-05',
        signed_up_at: '2026-01-05T08:30:00.000Z',
        plan: 'pro',
        notes: '7',
      });
    });

    it('answer 422 with a loc naming the key for free text in a date, an unknown key or an option outside a select', async ({ api, createContact }) => {
      const res = await createContact({
        email: 'wrong@example.com',
        custom_fields: { birthday: 'next tuesday', favourite: 'blue', plan: 'platinum', age: 'forty', vip: 'maybe', signed_up_at: '2026-01-05 10:00' },
      });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([
        { loc: ['body', 'custom_fields', 'birthday'], msg: 'Input should be a valid date in the format YYYY-MM-DD', type: 'date_parsing' },
        { loc: ['body', 'custom_fields', 'favourite'], msg: 'No custom property has this key', type: 'extra_forbidden' },
        { loc: ['body', 'custom_fields', 'plan'], msg: "Input should be 'free', 'pro', 'enterprise' or 'team'", type: 'enum' },
        { loc: ['body', 'custom_fields', 'age'], msg: 'Input should be a valid number', type: 'float_parsing' },
        { loc: ['body', 'custom_fields', 'vip'], msg: 'Input should be a valid boolean', type: 'bool_parsing' },
        {
          loc: ['body', 'custom_fields', 'signed_up_at'],
          msg: 'Input should be a valid datetime in ISO 8601 with a time-zone offset',
          type: 'datetime_parsing',
        },
      ]);
      expect(await api.db.prisma.contact.count({ where: { email: 'wrong@example.com' } })).toBe(0);
    });

    it('refuse impossible calendar dates', async ({ createContact }) => {
      const res = await createContact({ email: 'feb@example.com', custom_fields: { birthday: '2026-02-30' } });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['body', 'custom_fields', 'birthday']);
    });

    it('merge key by key on update, null removing one', async ({ api, tenant, createContact }) => {
      const created = await createContact({ email: 'merge@example.com', custom_fields: { age: 30, plan: 'free' } });
      const id = created.body.data.id;
      const res = await api.call(tenant, 'PATCH', `/api/contacts/${id}`, { custom_fields: { age: '31', plan: null, vip: false } });
      expect(res.status).toBe(200);
      expect(res.body.data.custom_fields).toEqual({ age: 31, vip: false });
      const bad = await api.call(tenant, 'PATCH', `/api/contacts/${id}`, { custom_fields: { birthday: 'soon' } });
      expect(bad.body.detail[0].loc).toEqual(['body', 'custom_fields', 'birthday']);
    });

    it('keep a select option that contacts hold from being removed', async ({ api, tenant, createContact }) => {
      await createContact({ email: 'enterprise@example.com', custom_fields: { plan: 'enterprise' } });
      const res = await api.call(tenant, 'PATCH', `/api/contact-properties/${ids.plan}`, { options: ['free', 'pro'] });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'option_in_use', options_in_use: [{ option: 'enterprise', contacts: 1 }] });
    });
  });

  describe('filtering contacts by a custom field', () => {
    let gold: number;
    let silver: number;
    it.beforeAll(async ({ createContact }) => {
      gold = (await createContact({ email: 'f1@example.com', custom_fields: { age: 50, vip: true, plan: 'team' } })).body.data.id;
      silver = (await createContact({ email: 'f2@example.com', custom_fields: { age: 51, vip: false, plan: 'team' } })).body.data.id;
    });
    const ids_ = (res: { body: { data: { id: number }[] } }) => res.body.data.map((c) => c.id).sort((a, b) => a - b);

    it('reads the value as the property type', async ({ api, tenant }) => {
      expect(ids_(await api.call(tenant, 'GET', '/api/contacts?cf.age=50'))).toEqual([gold]);
      expect(ids_(await api.call(tenant, 'GET', '/api/contacts?cf.vip=true&cf.plan=team'))).toEqual([gold]);
    });

    it('widens when repeated and narrows across keys', async ({ api, tenant }) => {
      expect(ids_(await api.call(tenant, 'GET', '/api/contacts?cf.age=50&cf.age=51'))).toEqual([gold, silver]);
      expect(ids_(await api.call(tenant, 'GET', '/api/contacts?cf.age=50&cf.age=51&cf.vip=false'))).toEqual([silver]);
    });

    it('answers 422 for an unknown key or a value of the wrong type', async ({ api, tenant }) => {
      const unknown = await api.call(tenant, 'GET', '/api/contacts?cf.shoe_size=9');
      expect(unknown.status).toBe(422);
      expect(unknown.body.detail[0]).toMatchObject({ loc: ['query', 'cf.shoe_size'], type: 'extra_forbidden' });
      const wrong = await api.call(tenant, 'GET', '/api/contacts?cf.birthday=someday');
      expect(wrong.body.detail[0]).toMatchObject({ loc: ['query', 'cf.birthday'], type: 'date_parsing' });
    });
  });

  describe('deletion', () => {
    it('removes the property and its values from every contact', async ({ api, tenant, createContact }) => {
      const created = await createContact({ email: 'notes@example.com', custom_fields: { notes: 'hello', age: 1 } });
      const res = await api.call(tenant, 'DELETE', `/api/contact-properties/${ids.notes}`);
      expect(res.status).toBe(204);
      const contact = await api.call(tenant, 'GET', `/api/contacts/${created.body.data.id}`);
      expect(contact.body.data.custom_fields).toEqual({ age: 1 });
      expect((await api.call(tenant, 'GET', `/api/contact-properties/${ids.notes}`)).status).toBe(404);
      const reused = await createContact({ email: 'notes2@example.com', custom_fields: { notes: 'x' } });
      expect(reused.body.detail[0].loc).toEqual(['body', 'custom_fields', 'notes']);
    });
  });
});
