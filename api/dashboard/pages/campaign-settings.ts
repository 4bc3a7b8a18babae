import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { AppError } from '../../../lib/errors.js';
import { zodIssuesToDetail } from '../../../lib/zod/detail.js';
import { CampaignParams, CampaignWrite, createCampaign, getCampaign, replaceCampaign } from '../../../modules/campaigns/index.js';
import { errorsOfDetail, formErrors, type FieldErrors } from '../forms.js';
import { html } from '../html.js';
import { csrfField, dashboardPage, sendPage } from '../layout.js';
import { bodyOfForm, leavesOf, schemaFields } from '../schema-form.js';
import type { DashboardDeps } from '../deps.js';

// A campaign's settings, made and changed in one form of the API's CampaignWrite: creation as POST /api/campaigns,
// changes as PUT /api/campaigns/{id} (the whole object: a setting left empty takes its default).

const session = { auth: 'session' as const };
const LEAVES = leavesOf((CampaignWrite as unknown as z.ZodObject).shape as Record<string, z.ZodType>);
const DEFAULTS = (CampaignWrite as unknown as z.ZodObject).partial().parse({});
/** States whose settings PUT takes (a running campaign's schedule and pacing only); a finished one takes none. */
export const EDITABLE_STATES: readonly string[] = ['draft', 'scheduled', 'running', 'paused'];

interface Editor {
  title: string;
  action: string;
  submit: string;
  cancel: string;
  hint: string;
}

/**
 * The API's refusal at its fields: a 422's `loc`s, or, for a running campaign's 409, every input of the settings it
 * names (the service lists them in `fields`), so the person sees which changes wait for a pause.
 */
function refusalOf(error: unknown): { errors: FieldErrors; status: number } {
  if (error instanceof AppError && error.code === 'invalid_state') {
    const frozen = Array.isArray(error.data?.fields) ? error.data.fields.map(String) : [];
    const errors: FieldErrors = { '': error.message };
    for (const leaf of LEAVES) if (frozen.includes(leaf.path[0]!)) errors[leaf.key] = 'Cannot change while the campaign runs: pause it first';
    return { errors, status: 409 };
  }
  return { errors: formErrors(error), status: 422 };
}

export function registerCampaignSettingsPages(app: FastifyInstance, deps: DashboardDeps): void {
  const editor = (request: FastifyRequest, reply: FastifyReply, e: Editor, value: unknown, errors: FieldErrors = {}, status = 200) =>
    sendPage(
      reply,
      dashboardPage(
        request,
        e.title,
        html`${Object.keys(errors).length > 0 ? html`<div class="notice bad" role="alert">${errors[''] ?? 'The API refused some settings: see the marked fields.'}</div>` : ''}
<p class="hint">${e.hint}</p>
<form method="post" action="${e.action}" novalidate>${csrfField(request)}${schemaFields(LEAVES, value, errors)}<div class="actions"><button type="submit">${e.submit}</button><a href="${e.cancel}">Cancel</a></div></form>`,
      ),
      status,
    );

  /** The posted form as the API's body, or the API's 422 for it, shown at its fields. */
  function parse(request: FastifyRequest) {
    const body = bodyOfForm(LEAVES, request.body as Record<string, unknown>);
    const parsed = CampaignWrite.safeParse(body);
    return { body, parsed, errors: parsed.success ? {} : errorsOfDetail(zodIssuesToDetail(parsed.error.issues, 'body', body)) };
  }

  const creating: Editor = {
    title: 'New campaign',
    action: '/campaigns',
    submit: 'Create draft',
    cancel: '/campaigns',
    hint: 'Contacts are added to the draft from its page (a CSV file, a search of the contacts, or their ids).',
  };
  app.get('/campaigns/new', { config: session }, async (request, reply) => editor(request, reply, creating, DEFAULTS));

  app.post('/campaigns', { config: session }, async (request, reply) => {
    const { body, parsed, errors } = parse(request);
    if (!parsed.success) return editor(request, reply, creating, { ...DEFAULTS, ...body }, errors, 422);
    try {
      const created = await createCampaign(deps.prisma, request.signedIn!.organizationId, parsed.data);
      return reply.redirect(`/campaigns/${created.id}`);
    } catch (error) {
      return editor(request, reply, creating, { ...DEFAULTS, ...body }, formErrors(error), 422);
    }
  });

  const idOf = (request: FastifyRequest) => (request.params as z.output<typeof CampaignParams>).campaign_id;
  const changing = (id: number, name: string, state: string): Editor => ({
    title: `Settings of ${name}`,
    action: `/campaigns/${id}`,
    submit: 'Save',
    cancel: `/campaigns/${id}`,
    hint:
      state === 'running'
        ? 'It is running: only its schedule and pacing can change now, from its next tick; pause it to change the rest.'
        : 'Every setting is saved as shown; an emptied setting takes its default.',
  });

  app.get('/campaigns/:campaign_id/edit', { config: session, schema: { params: CampaignParams } }, async (request, reply) => {
    const c = await getCampaign(deps.prisma, request.signedIn!.organizationId, idOf(request));
    return editor(request, reply, changing(c.id, c.name, c.state), c);
  });

  app.post('/campaigns/:campaign_id', { config: session, schema: { params: CampaignParams } }, async (request, reply) => {
    const organizationId = request.signedIn!.organizationId;
    // Read first: another organisation's campaign is 404 before anything is said about the form.
    const c = await getCampaign(deps.prisma, organizationId, idOf(request));
    const e = changing(c.id, c.name, c.state);
    const { body, parsed, errors } = parse(request);
    if (!parsed.success) return editor(request, reply, e, { ...DEFAULTS, ...body }, errors, 422);
    try {
      await replaceCampaign(deps.prisma, organizationId, c.id, parsed.data);
      return reply.redirect(`/campaigns/${c.id}?saved=1`);
    } catch (error) {
      const refusal = refusalOf(error);
      return editor(request, reply, e, { ...DEFAULTS, ...body }, refusal.errors, refusal.status);
    }
  });
}
