import { describe, expect } from 'vitest';
import { ContactList } from '../../modules/contacts/schemas.js';
import { apiTest } from '../helpers/fixtures.js';

const it = apiTest
  .extend('list', { scope: 'file' }, async ({ api, tenant }) => async (query: string) => {
    const res = await api.call(tenant, 'GET', `/api/contacts${query}`);
    expect(res.status, `${query}: ${JSON.stringify(res.body)}`).toBe(200);
    return ContactList.parse(res.body);
  })
  .extend(
    'names',
    { scope: 'file' },
    async ({ list }) =>
      async (query: string) =>
        (await list(query)).data.map((x) => x.first_name).sort(),
  );

describe('listing contacts', () => {
  const c: Record<string, number> = {};

  it.beforeAll(async ({ api, tenant }) => {
    const people = [
      { first_name: 'Alice', last_name: 'Archer', phone_number: '+16502530201', email: 'alice@alpha.com' },
      { first_name: 'Bob', last_name: 'Baker', phone_number: '+16502530202' },
      { first_name: 'Carol', last_name: 'Archer', email: 'carol@beta.org' },
      { first_name: 'Dave', last_name: 'Dunn', external_id: 'd-1' },
      { first_name: 'Erin', last_name: 'Evans', phone_number: '+442079460201', email: 'erin@alpha.com' },
    ];
    for (const body of people) {
      const res = await api.call(tenant, 'POST', '/api/contacts', body);
      expect(res.status).toBe(201);
      c[body.first_name] = res.body.data.id;
    }
    const prisma = api.db.prisma;
    // Other sources and call history come from the call runtime and imports; written directly here.
    await prisma.contact.update({ where: { id: c.Bob }, data: { source: 'inbound_call', lastSeenAt: new Date('2026-10-01T12:00:00Z') } });
    await prisma.contact.update({ where: { id: c.Carol }, data: { source: 'import', lastSeenAt: new Date('2026-11-01T12:00:00Z') } });
    await prisma.contact.update({ where: { id: c.Erin }, data: { lastSeenAt: new Date('2026-11-10T12:00:00Z') } });
    // Campaigns 7 and 8 of the organisation, written directly: only their membership matters here.
    const { organizationId } = tenant;
    const settings = { fromNumbers: [], schedule: {}, pacing: {}, retry: {}, voicemail: {}, circuitBreaker: {} };
    for (const id of [7, 8]) await prisma.campaign.create({ data: { id, organizationId, name: `Campaign ${id}`, ...settings } });
    await prisma.campaignContact.createMany({
      data: [
        { campaignId: 7, contactId: c.Alice! },
        { campaignId: 7, contactId: c.Bob! },
        { campaignId: 8, contactId: c.Carol! },
        { campaignId: 8, contactId: c.Alice! },
      ],
    });
    // Another organisation's contacts never appear.
    const other = await api.tenant();
    await api.call(other, 'POST', '/api/contacts', { first_name: 'Alice', email: 'alice@alpha.com' });
  });

  it('returns the envelope with page, page_size, total and total_pages, newest first', async ({ list }) => {
    const res = await list('');
    expect(res.pagination).toEqual({ page: 1, page_size: 20, total: 5, total_pages: 1 });
    expect(res.data.map((x) => x.first_name)).toEqual(['Erin', 'Dave', 'Carol', 'Bob', 'Alice']);
    expect(res.data.find((x) => x.first_name === 'Alice')!.campaign_ids).toEqual([7, 8]);
  });

  it('pages with page and page_size', async ({ list }) => {
    const second = await list('?page=2&page_size=2');
    expect(second.pagination).toEqual({ page: 2, page_size: 2, total: 5, total_pages: 3 });
    expect(second.data.map((x) => x.first_name)).toEqual(['Carol', 'Bob']);
    expect((await list('?page=9&page_size=2')).data).toEqual([]);
  });

  it('ignores per_page: the default page size applies', async ({ list }) => {
    const res = await list('?per_page=2');
    expect(res.pagination.page_size).toBe(20);
    expect(res.data).toHaveLength(5);
    expect((await list('?per_page=nonsense')).pagination.page_size).toBe(20);
    expect((await list('?per_page=1&page_size=3')).pagination.page_size).toBe(3);
  });

  it('enforces the page_size maximum and integer parameters', async ({ api, tenant, list }) => {
    const big = await api.call(tenant, 'GET', '/api/contacts?page_size=101');
    expect(big.status).toBe(422);
    expect(big.body.detail[0]).toMatchObject({ loc: ['query', 'page_size'], type: 'less_than_equal' });
    expect((await api.call(tenant, 'GET', '/api/contacts?page=0')).body.detail[0]).toMatchObject({ loc: ['query', 'page'], type: 'greater_than_equal' });
    expect((await api.call(tenant, 'GET', '/api/contacts?page_size=ten')).body.detail[0]).toMatchObject({ loc: ['query', 'page_size'], type: 'int_parsing' });
    expect((await list('?page_size=100')).pagination.page_size).toBe(100);
  });

  it('filters by source, widening when repeated', async ({ api, tenant, names }) => {
    expect(await names('?source=import')).toEqual(['Carol']);
    expect(await names('?source=import&source=inbound_call')).toEqual(['Bob', 'Carol']);
    const bad = await api.call(tenant, 'GET', '/api/contacts?source=fax');
    expect(bad.body.detail[0]).toMatchObject({ loc: ['query', 'source'], type: 'enum' });
    const second = await api.call(tenant, 'GET', '/api/contacts?source=api&source=fax');
    expect(second.body.detail).toEqual([{ loc: ['query', 'source', 1], msg: "Input should be 'api', 'import' or 'inbound_call'", type: 'enum' }]);
  });

  it('filters by campaign, widening when repeated', async ({ names }) => {
    expect(await names('?campaign_id=7')).toEqual(['Alice', 'Bob']);
    expect(await names('?campaign_id=7&campaign_id=8')).toEqual(['Alice', 'Bob', 'Carol']);
    expect(await names('?campaign_id=9')).toEqual([]);
  });

  it('filters by having an email or a phone', async ({ api, tenant, names }) => {
    expect(await names('?has_email=true')).toEqual(['Alice', 'Carol', 'Erin']);
    expect(await names('?has_email=false')).toEqual(['Bob', 'Dave']);
    expect(await names('?has_phone=1')).toEqual(['Alice', 'Bob', 'Erin']);
    expect(await names('?has_phone=true&has_phone=false')).toHaveLength(5);
    expect((await api.call(tenant, 'GET', '/api/contacts?has_email=yes-please')).status).toBe(422);
  });

  it('filters by last seen: after is inclusive, before exclusive, dates are midnight UTC', async ({ api, tenant, names }) => {
    expect(await names('?last_seen_after=2026-11-01T12:00:00Z')).toEqual(['Carol', 'Erin']);
    expect(await names('?last_seen_before=2026-11-01T12:00:00Z')).toEqual(['Bob']);
    expect(await names('?last_seen_after=2026-10-15&last_seen_before=2026-11-05')).toEqual(['Carol']);
    const bad = await api.call(tenant, 'GET', '/api/contacts?last_seen_after=yesterday');
    expect(bad.body.detail[0]).toMatchObject({ loc: ['query', 'last_seen_after'], type: 'datetime_parsing' });
  });

  it('searches name, phone and email as free text', async ({ api, tenant, names }) => {
    expect(await names('?q=archer')).toEqual(['Alice', 'Carol']);
    expect(await names('?q=alice%20archer')).toEqual(['Alice']);
    expect(await names('?q=alpha.com')).toEqual(['Alice', 'Erin']);
    expect(await names('?q=%2B44%2020%207946')).toEqual(['Erin']);
    expect(await names('?q=(650)%20253-0202')).toEqual(['Bob']);
    expect(await names('?q=zzz')).toEqual([]);
    expect(await names('?q=%25')).toEqual([]);
    expect(await names('?q=')).toHaveLength(5);
    expect((await api.call(tenant, 'GET', `/api/contacts?q=${'a'.repeat(201)}`)).body.detail[0]).toMatchObject({
      loc: ['query', 'q'],
      type: 'string_too_long',
    });
  });

  it('widens a repeated search and narrows across different filters', async ({ names }) => {
    expect(await names('?q=bob&q=dave')).toEqual(['Bob', 'Dave']);
    // source=api AND (has_email) AND (campaign 7 or 8)
    expect(await names('?source=api&has_email=true&campaign_id=7&campaign_id=8')).toEqual(['Alice']);
    expect(await names('?q=archer&has_phone=false')).toEqual(['Carol']);
  });
});
