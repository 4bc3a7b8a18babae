import { describe, expect } from 'vitest';
import { ValidationFailed } from '../../lib/errors.js';
import { answerTickedNumbers, checkTickedNumbers, tickedNumbers } from '../../api/dashboard/pages/assistant-builder/answered-numbers.js';
import { apiTest as it } from '../helpers/fixtures.js';

// The builder's "Answers calls to": the numbers ticked become the assistant's, and a number of another organisation
// is refused before anything is saved.

describe('the numbers an assistant answers, as the builder sets them', () => {
  it('reads the ticked ids, and nothing when the form carried no picker', () => {
    expect(tickedNumbers({ phone_numbers: ['', '12', '12', '7'] })).toEqual([12, 7]);
    expect(tickedNumbers({ phone_numbers: '' })).toEqual([]);
    expect(tickedNumbers({})).toBeUndefined();
    expect(tickedNumbers({ phone_numbers: ['x'] })).toEqual([NaN]);
  });

  it('refuses a number of another organisation, or no number at all, and moves only its own', async ({ api, tenant }) => {
    const other = await api.tenant('Elsewhere');
    const connectionOf = async (t: typeof tenant) =>
      (await api.call(t, 'POST', '/api/phone-connections', { name: 'Trunk', sip_address: 'sip.example.com' })).body.data.id as number;
    const theirs = (await api.call(other, 'POST', '/api/phone-numbers', { number: '+14155550177', phone_connection_id: await connectionOf(other) })).body.data
      .id as number;
    const mineConnection = await connectionOf(tenant);
    const mine = (await api.call(tenant, 'POST', '/api/phone-numbers', { number: '+14155550178', phone_connection_id: mineConnection })).body.data.id as number;
    const assistant = (await api.call(tenant, 'POST', '/api/assistants', { name: 'Desk' })).body.id as number;

    for (const ticked of [[theirs], [mine, theirs], [NaN]]) {
      const refused = await checkTickedNumbers(api.db.prisma, tenant.organizationId, ticked).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ValidationFailed);
      expect((refused as ValidationFailed).detail[0]!.loc).toEqual(['body', 'phone_numbers']);
    }
    await checkTickedNumbers(api.db.prisma, tenant.organizationId, [mine]);
    await answerTickedNumbers(api.db.prisma, tenant.organizationId, assistant, [mine]);
    expect((await api.db.prisma.phoneNumber.findUniqueOrThrow({ where: { id: mine } })).assistantId).toBe(assistant);
    expect((await api.db.prisma.phoneNumber.findUniqueOrThrow({ where: { id: theirs } })).assistantId).toBeNull();
  });
});
