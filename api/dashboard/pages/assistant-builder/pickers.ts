import { listDocuments } from '../../../../modules/knowledge/index.js';
import { listPlaybooks } from '../../../../modules/playbooks/index.js';
import { listTools } from '../../../../modules/tools/index.js';
import { listAssistants } from '../../../../modules/assistants/index.js';
import { listPhoneNumbers } from '../../../../modules/telephony/index.js';
import type { DashboardDeps } from '../../deps.js';
import type { PickerChoices } from './controls.js';

/** As many as an assistant can name of each (the API takes 200 ids a list). */
const MOST = 200;

/** The organisation's tools, documents, playbooks and phone numbers, by name, for the builder's pickers. */
export async function pickerChoices(deps: DashboardDeps, organizationId: number): Promise<PickerChoices> {
  const [tools, documents, playbooks, numbers, assistants] = await Promise.all([
    listTools({ db: deps.prisma, secrets: deps.secrets, policy: { allowPrivateTargets: deps.allowPrivateWebhookTargets } }, organizationId, 1, MOST),
    listDocuments(deps.prisma, organizationId, { page: 1, per_page: MOST }),
    listPlaybooks(deps.prisma, organizationId, 1, MOST),
    listPhoneNumbers(deps.prisma, organizationId, 1, MOST),
    listAssistants(deps.prisma, organizationId, 1, MOST, deps.secrets),
  ]);
  const assistantNames = new Map(assistants.data.map((a) => [a.id, a.name]));
  const byName = <T extends { name: string }>(a: T, b: T) => a.name.localeCompare(b.name);
  return {
    tools: tools.data.map((t) => ({ id: t.id, name: t.name, note: t.description ?? undefined })).sort(byName),
    documents: documents.data.map((d) => ({ id: d.id, name: d.name, note: d.status === 'ready' ? undefined : d.status })).sort(byName),
    playbooks: playbooks.data.map((p) => ({ id: p.id, name: p.name })).sort(byName),
    numbers: numbers.data
      .map((n) => ({
        id: n.id,
        name: n.number,
        note: n.label ?? undefined,
        assistantId: n.assistant_id,
        assistantName: n.assistant_id === null ? undefined : assistantNames.get(n.assistant_id),
      }))
      .sort(byName),
  };
}
