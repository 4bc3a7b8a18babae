import { AppError } from '../../../../lib/errors.js';
import { assistantName, listAssistants } from '../../../../modules/assistants/index.js';
import { getCampaign, listCampaigns } from '../../../../modules/campaigns/index.js';
import { getContact, listContacts } from '../../../../modules/contacts/index.js';
import { listPhoneNumbers } from '../../../../modules/telephony/index.js';
import type { DashboardDeps } from '../../deps.js';
import { numberInWords } from '../campaign-form/pickers.js';
import type { ChartFormValues, Owned } from './form-fields.js';

// The organisation's own assistants, campaigns and numbers to tick by name, and its contacts: those ticked, named,
// and those a search finds. Everything is read through the same module calls as the API's lists, each filtered by the
// organisation, so an id of another organisation's is never looked up there, let alone named: it is only known not
// to be this organisation's.

/** As many as a form can sensibly offer; an organisation with more ticks among the first by name. */
const MOST = 200;
/** Contacts a search offers at once: a few screens of boxes, not the whole list. */
export const FOUND_AT_MOST = 20;

export interface Named {
  id: number;
  name: string;
  note?: string | undefined;
}

export interface ChartChoices {
  assistants: Named[];
  campaigns: Named[];
  numbers: { number: string; label: string | null }[];
  /** The contacts ticked that are the organisation's, by id. */
  contacts: Map<number, Named>;
  /** What the contact search found, when one was made. */
  found: Named[] | undefined;
}

const byName = (a: Named, b: Named) => a.name.localeCompare(b.name);

export function contactName(c: { id: number; first_name: string | null; last_name: string | null; email: string | null; phone_number: string | null }): Named {
  const name = [c.first_name, c.last_name].filter(Boolean).join(' ');
  const reach = (c.phone_number ? numberInWords(c.phone_number) : c.email) ?? undefined;
  return { id: c.id, name: name || reach || `Contact ${c.id}`, note: name ? reach : undefined };
}

/** Reads each id as the API reads one: another organisation's answers "not found" and is left out, never named. */
async function readEach(ids: number[], read: (id: number) => Promise<Named | undefined>): Promise<Named[]> {
  const found = await Promise.all(
    ids.map(async (id) => {
      try {
        return await read(id);
      } catch (error) {
        if (error instanceof AppError && error.kind === 'not_found') return undefined;
        throw error;
      }
    }),
  );
  return found.filter((c): c is Named => c !== undefined);
}

/** The ids ticked in a filter, as many as the API takes in one, so a hand-made post cannot make the page read without end. */
const tickedIds = (posted: string[]) => [...new Set(posted.filter((v) => /^\d{1,9}$/.test(v)).map(Number))].slice(0, 50);

export async function chartChoices(deps: DashboardDeps, organizationId: number, values: ChartFormValues): Promise<ChartChoices> {
  const search = values.fields.contact_search.trim().slice(0, 200);
  const [assistantList, campaignList, numbers, contacts, found] = await Promise.all([
    listAssistants(deps.prisma, organizationId, 1, MOST, deps.secrets),
    listCampaigns(deps.prisma, organizationId, undefined, 1, MOST),
    listPhoneNumbers(deps.prisma, organizationId, 1, MOST),
    readEach(tickedIds(values.filters.contact_id), async (id) => contactName(await getContact(deps.prisma, organizationId, id))),
    search === '' ? undefined : listContacts(deps.prisma, organizationId, { q: [search] }, 1, FOUND_AT_MOST),
  ]);
  const assistants: Named[] = assistantList.data.map((a) => ({ id: a.id, name: a.name, note: a.is_active === false ? 'takes no calls now' : undefined }));
  const campaigns: Named[] = campaignList.data.map((c) => ({ id: c.id, name: c.name, note: c.state }));
  // One ticked beyond the first of the lists is read on its own, so an organisation with many is not refused its own.
  const unlisted = (posted: string[], listed: Named[]) => tickedIds(posted).filter((id) => !listed.some((n) => n.id === id));
  const [moreAssistants, moreCampaigns] = await Promise.all([
    readEach(unlisted(values.filters.assistant_id, assistants), async (id) => {
      const name = await assistantName(deps.prisma, organizationId, id);
      return name === undefined ? undefined : { id, name };
    }),
    readEach(unlisted(values.filters.campaign_id, campaigns), async (id) => {
      const c = await getCampaign(deps.prisma, organizationId, id);
      return { id: c.id, name: c.name, note: c.state };
    }),
  ]);
  return {
    assistants: [...assistants, ...moreAssistants].sort(byName),
    campaigns: [...campaigns, ...moreCampaigns].sort(byName),
    numbers: numbers.data.map((n) => ({ number: n.number, label: n.label })).sort((a, b) => a.number.localeCompare(b.number)),
    contacts: new Map(contacts.map((c) => [c.id, c])),
    found: found?.data.map(contactName),
  };
}

/** The ids the organisation owns among those its choices name, for the body's check. */
export function ownedOf(choices: ChartChoices): Owned {
  return {
    assistants: new Set(choices.assistants.map((a) => a.id)),
    campaigns: new Set(choices.campaigns.map((c) => c.id)),
    contacts: new Set(choices.contacts.keys()),
  };
}
