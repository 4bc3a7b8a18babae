import { listAssistants } from '../../../../modules/assistants/index.js';
import { listPhoneConnections } from '../../../../modules/telephony/index.js';
import type { DashboardDeps } from '../../deps.js';

// Connections and assistants are shown and picked by name, never by id, so the page reads all of the organisation's,
// through the same list functions as the API, a batch at a time: a select that left some out would hide a choice.

const BATCH = 100;

async function everyPage<T>(read: (page: number) => Promise<{ data: T[]; total: number }>): Promise<T[]> {
  const all: T[] = [];
  for (let page = 1; ; page++) {
    const { data, total } = await read(page);
    all.push(...data);
    if (data.length === 0 || all.length >= total) return all;
  }
}

export type Connection = Awaited<ReturnType<typeof listPhoneConnections>>['data'][number];

export interface AssistantChoice {
  id: number;
  /** The name as the select shows it: marked when inactive, and told apart from another of the same name. */
  label: string;
}

export function allConnections(deps: DashboardDeps, organizationId: number): Promise<Connection[]> {
  return everyPage((page) => listPhoneConnections(deps.prisma, deps.secrets, organizationId, page, BATCH));
}

export async function assistantChoices(deps: DashboardDeps, organizationId: number): Promise<AssistantChoice[]> {
  const assistants = await everyPage(async (page) => {
    const { data, pagination } = await listAssistants(deps.prisma, organizationId, page, BATCH, deps.secrets);
    return { data, total: pagination.total };
  });
  const sameName = new Map<string, number>();
  for (const a of assistants) sameName.set(a.name, (sameName.get(a.name) ?? 0) + 1);
  return assistants
    .map((a) => ({
      id: a.id,
      label: `${a.name}${sameName.get(a.name)! > 1 ? ` · no. ${a.id}` : ''}${a.is_active === false ? ' (inactive)' : ''}`,
    }))
    .sort((x, y) => x.label.localeCompare(y.label));
}
