import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { zodIssuesToDetail } from '../../../lib/zod/detail.js';
import { CampaignParams, CampaignWrite, createCampaign, getCampaign, replaceCampaign } from '../../../modules/campaigns/index.js';
import type { FieldErrors } from '../forms.js';
import { html } from '../html.js';
import { csrfField, dashboardPage, sendPage } from '../layout.js';
import type { DashboardDeps } from '../deps.js';
import { campaignForm } from './campaign-form/campaign-form.js';
import { bodyOfValues, type FormValues, valuesOfPost, valuesOfSettings } from './campaign-form/form-fields.js';
import { campaignChoices } from './campaign-form/pickers.js';
import { placeDetail, placeRefusal } from './campaign-form/refusals.js';
import { DEFAULTS } from './campaign-form/schema-facts.js';

// A campaign's settings, made and changed in one form: creation as POST /api/campaigns, changes as PUT
// /api/campaigns/{id} (the whole object: a setting left empty takes its default). The form is laid out for people
// (campaign-form/); what it posts is turned into the API's body, judged by the API's schema and service, and a refusal
// is shown at its control with everything as it was typed.

const session = { auth: 'session' as const };
/** States whose settings PUT takes (a running campaign's schedule and pacing only); a finished one takes none. */
export const EDITABLE_STATES: readonly string[] = ['draft', 'scheduled', 'running', 'paused'];

interface Editor {
  title: string;
  action: string;
  submit: string;
  cancel: string;
  hint: string;
  isNew: boolean;
  running: boolean;
}

export function registerCampaignSettingsPages(app: FastifyInstance, deps: DashboardDeps): void {
  const editor = async (request: FastifyRequest, reply: FastifyReply, e: Editor, values: FormValues, errors: FieldErrors = {}, status = 200) =>
    sendPage(
      reply,
      dashboardPage(
        request,
        e.title,
        html`<p class="hint">${e.hint}</p>
${campaignForm({
  values,
  errors,
  choices: await campaignChoices(deps, request.signedIn!.organizationId),
  action: e.action,
  submit: e.submit,
  cancel: e.cancel,
  csrf: csrfField(request),
  isNew: e.isNew,
  running: e.running,
})}
<script src="/assets/campaign-form.js" defer></script>`,
      ),
      status,
    );

  /** The posted form, its body for the API, and what the API's schema (and the form itself) refuse in it. */
  function read(request: FastifyRequest, storedNumbers: readonly string[] = []) {
    const values = valuesOfPost(request.body);
    const built = bodyOfValues(values, storedNumbers);
    const parsed = CampaignWrite.safeParse(built.body);
    const errors: FieldErrors = {
      ...(parsed.success ? {} : placeDetail(zodIssuesToDetail(parsed.error.issues, 'body', built.body), values, built)),
      ...built.problems,
    };
    return { values, built, parsed, errors };
  }

  const creating: Editor = {
    title: 'New campaign',
    action: '/campaigns',
    submit: 'Create draft',
    cancel: '/campaigns',
    hint: 'Contacts are added to the draft from its page (a CSV file, a search of the contacts, or their ids).',
    isNew: true,
    running: false,
  };
  app.get('/campaigns/new', { config: session }, async (request, reply) => editor(request, reply, creating, valuesOfSettings(DEFAULTS)));

  app.post('/campaigns', { config: session }, async (request, reply) => {
    const { values, built, parsed, errors } = read(request);
    const again = { ...creating, isNew: false };
    if (!parsed.success || Object.keys(errors).length > 0) return editor(request, reply, again, values, errors, 422);
    try {
      const created = await createCampaign(deps.prisma, request.signedIn!.organizationId, parsed.data);
      return reply.redirect(`/campaigns/${created.id}`);
    } catch (error) {
      const refusal = placeRefusal(error, values, built);
      return editor(request, reply, again, values, refusal.errors, refusal.status);
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
        : 'Every setting is saved as shown; an emptied number takes its default.',
    isNew: false,
    running: state === 'running',
  });

  app.get('/campaigns/:campaign_id/edit', { config: session, schema: { params: CampaignParams } }, async (request, reply) => {
    const c = await getCampaign(deps.prisma, request.signedIn!.organizationId, idOf(request));
    return editor(request, reply, changing(c.id, c.name, c.state), valuesOfSettings(c));
  });

  app.post('/campaigns/:campaign_id', { config: session, schema: { params: CampaignParams } }, async (request, reply) => {
    const organizationId = request.signedIn!.organizationId;
    // Read first: another organisation's campaign is 404 before anything is said about the form.
    const c = await getCampaign(deps.prisma, organizationId, idOf(request));
    const e = changing(c.id, c.name, c.state);
    const { values, built, parsed, errors } = read(request, c.from_numbers);
    if (!parsed.success || Object.keys(errors).length > 0) return editor(request, reply, e, values, errors, 422);
    try {
      await replaceCampaign(deps.prisma, organizationId, c.id, parsed.data);
      return reply.redirect(`/campaigns/${c.id}?saved=1`);
    } catch (error) {
      const refusal = placeRefusal(error, values, built);
      return editor(request, reply, e, values, refusal.errors, refusal.status);
    }
  });
}
