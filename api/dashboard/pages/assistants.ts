import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError } from '../../../lib/errors.js';
import { idParam } from '../../../lib/zod/query.js';
import {
  assistantFields,
  createAssistant,
  deleteAssistant,
  discardAssistantDraft,
  listAssistants,
  publishAssistantDraft,
  saveAssistantDraft,
  loadAssistantSettings,
  readAssistantJson,
  STARTERS,
  starterById,
  TTS_PROVIDERS,
  updateAssistant,
  VoiceCatalogue,
  VOICES,
  type CatalogueRequest,
} from '../../../modules/assistants/index.js';
import { vendorCredentialsFromEnv } from '../../../lib/vendor-credentials.js';
import { encodeWav } from '../../../media/wav.js';
import { espeakSynthesize } from '../../../media/voice/espeak.js';
import { createBrowserCall } from '../../transports/browser/create-call.js';
import { publicBaseUrl } from '../../http/public-url.js';
import { STATUS_OF } from '../../http/error-handler.js';
import { formError, formErrors, type FieldErrors } from '../forms.js';
import { html } from '../html.js';
import { csrfField, dashboardPage, sendPage } from '../layout.js';
import { leavesOf } from '../schema-form.js';
import { builderForm } from './assistant-builder/builder-form.js';
import { settingNamed } from './assistant-builder/sections.js';
import { builderBody } from './assistant-builder/form-body.js';
import { pickerChoices } from './assistant-builder/pickers.js';
import { talkPanel } from './assistant-builder/talk-panel.js';
import { answerTickedNumbers, checkTickedNumbers, tickedNumbers } from './assistant-builder/answered-numbers.js';
import { when } from '../format.js';
import type { DashboardDeps } from '../deps.js';

const session = { auth: 'session' as const };
const Params = z.object({ assistant_id: idParam });
const ListQuery = z.object({ page: z.coerce.number().int().min(1).max(100_000).catch(1) });
const LEAVES = leavesOf(assistantFields as unknown as Record<string, z.ZodType>);
const PER_PAGE = 50;

export function registerAssistantPages(app: FastifyInstance, deps: DashboardDeps): void {
  const written = (id: number) => deps.assistantCache?.invalidate(id);

  app.get('/assistants', { config: session, schema: { querystring: ListQuery } }, async (request, reply) => {
    const me = request.signedIn!;
    const { page } = request.query as z.output<typeof ListQuery>;
    const { data, pagination } = await listAssistants(deps.prisma, me.organizationId, page, PER_PAGE, deps.secrets);
    const body =
      data.length === 0 && page === 1
        ? html`<div class="card empty"><p>No assistants yet.</p><p>An assistant is a voice, a prompt and the models that run its calls.</p><a class="button" href="/assistants/new">Create your first assistant</a></div>`
        : html`<div class="actions"><a class="button" href="/assistants/new">New assistant</a></div><br>
<div class="table-wrap"><table><thead><tr><th>Name</th><th>Status</th><th class="hide-phone">Language model</th><th class="hide-phone">Voice</th><th>Updated</th></tr></thead><tbody>${data.map(
            (
              a,
            ) => html`<tr><td><a href="/assistants/${a.id}">${a.name}</a>${a.description ? html`<br><span class="muted">${a.description.slice(0, 120)}</span>` : ''}</td>
<td>${a.is_active === false ? html`<span class="badge off">inactive</span>` : html`<span class="badge">active</span>`}</td>
<td class="hide-phone">${a.llm_provider ?? ''} ${a.llm_provider_config.model ?? ''}</td><td class="hide-phone">${a.tts_settings.provider}</td><td>${when(a.updated_at)}</td></tr>`,
          )}</tbody></table></div>
${pagination.total_pages > 1 ? html`<p>Page ${page} of ${pagination.total_pages} ${page > 1 ? html`<a href="/assistants?page=${page - 1}">Previous</a>` : ''} ${page < pagination.total_pages ? html`<a href="/assistants?page=${page + 1}">Next</a>` : ''}</p>` : ''}`;
    return sendPage(reply, dashboardPage(request, 'Assistants', body));
  });

  async function editor(
    request: FastifyRequest,
    reply: FastifyReply,
    target: { id?: number; name?: string; starter?: string; ticked?: number[]; draftPending?: boolean },
    value: unknown,
    errors: FieldErrors = {},
    status = 200,
    notice?: string,
  ) {
    const action = target.id ? `/assistants/${target.id}` : '/assistants';
    const title = target.id ? (target.name ?? 'Assistant') : 'New assistant';
    const errorCount = Object.keys(errors).length;
    // The API's warnings: valid settings that will still make calls fail (a vendor without a key).
    const warnings = errorCount === 0 ? ((value as { warnings?: { field: string; message: string }[] }).warnings ?? []) : [];
    const voiceProvider = String((value as { tts_settings?: { provider?: unknown } }).tts_settings?.provider ?? 'local');
    const form = builderForm({
      leaves: LEAVES,
      value,
      errors,
      ctx: {
        pickers: await pickerChoices(deps, request.signedIn!.organizationId),
        voices: VOICES,
        voiceProvider,
        assistantId: target.id,
        checkedNumbers: target.ticked ? new Set(target.ticked) : undefined,
      },
      action,
      csrf: csrfField(request),
      submitLabel: target.id ? 'Save' : 'Create assistant',
      extra: target.starter ? html`<input type="hidden" name="starter" value="${target.starter}">` : undefined,
    });
    // Changes tried in a test call and never saved: kept as the draft, which only test calls run.
    const draftNotice =
      target.id && target.draftPending
        ? html`<div class="notice" role="status">Changes you tried in a test call are not saved: live calls do not use them. <form method="post" action="/assistants/${target.id}/draft/publish" class="inline">${csrfField(request)}<button type="submit" class="secondary">Save them</button></form> <form method="post" action="/assistants/${target.id}/draft/discard" class="inline">${csrfField(request)}<button type="submit" class="secondary">Discard them</button></form></div>`
        : '';
    const body = html`${notice ? html`<div class="notice" role="status">${notice}</div>` : ''}${draftNotice}
${
  warnings.length > 0
    ? html`<div class="secret" role="status"><strong>Calls to this assistant will fail until this is fixed:</strong><ul>${warnings.map((w) => {
        const at = settingNamed(w.field);
        return html`<li>${at ? html`<a href="#s-${at.section.id}">${at.section.title} › ${at.field.label}</a>` : html`<code>${w.field}</code>`}: ${w.message}</li>`;
      })}</ul></div>`
    : ''
}
${errorCount > 0 && !errors[''] ? html`<div class="notice bad" role="alert">The API refused ${errorCount === 1 ? 'one setting' : `${errorCount} settings`}: see the marked ${errorCount === 1 ? 'field' : 'fields'}.</div>` : formError(errors)}
${
  target.id
    ? html`<div class="actions page-actions"><a href="/calls?assistant_id=${target.id}">Its calls</a> <a href="/assistants/${target.id}/history">History</a>
<form method="post" action="/assistants/${target.id}/delete" class="inline">${csrfField(request)}<button class="danger" type="submit" data-confirm="Delete this assistant?">Delete</button></form></div>`
    : html`<p class="muted">${target.starter ? html`Started from the <strong>${starterById(target.starter)?.title ?? target.starter}</strong> template: change anything before creating it. ` : ''}<a href="/assistants/new">Other templates</a></p>`
}
${target.id ? html`<div class="builder-layout">${talkPanel(target.id, csrfField(request))}${form}</div>` : form}`;
    return sendPage(reply, dashboardPage(request, title, body), status);
  }

  const defaults = z.strictObject(assistantFields).partial({ name: true }).parse({});

  const NewQuery = z.object({ starter: z.string().max(64).optional().catch(undefined) });

  // A new assistant starts from a template or from the defaults; either fills the builder and nothing is stored yet.
  app.get('/assistants/new', { config: session, schema: { querystring: NewQuery } }, async (request, reply) => {
    const { starter: starterId } = request.query as z.output<typeof NewQuery>;
    if (starterId !== undefined) {
      const starter = starterId === 'blank' ? undefined : starterById(starterId);
      if (starterId !== 'blank' && !starter) return reply.redirect('/assistants/new');
      return editor(request, reply, { starter: starter?.id }, mergeShallow(defaults, starter?.settings ?? {}));
    }
    return sendPage(reply, dashboardPage(request, 'New assistant', starterPicker()));
  });

  app.post('/assistants', { config: session }, async (request, reply) => {
    const me = request.signedIn!;
    const form = request.body as Record<string, unknown>;
    const body = builderBody(LEAVES, form);
    const starter = typeof form.starter === 'string' ? starterById(form.starter)?.id : undefined;
    const ticked = tickedNumbers(form);
    try {
      await checkTickedNumbers(deps.prisma, me.organizationId, ticked);
      const created = await createAssistant(
        deps.prisma,
        { organizationId: me.organizationId, userId: me.userId },
        body as never,
        deps.secrets,
        deps.vendorTargets,
        'dashboard',
      );
      if (ticked) await answerTickedNumbers(deps.prisma, me.organizationId, created.id, ticked);
      written(created.id);
      return reply.redirect(`/assistants/${created.id}?created=1`);
    } catch (error) {
      return editor(request, reply, { starter, ticked }, mergeShallow(defaults, body), formErrors(error), 422);
    }
  });

  app.get('/assistants/:assistant_id', { config: session, schema: { params: Params } }, async (request, reply) => {
    const { assistant_id } = request.params as z.output<typeof Params>;
    const assistant = JSON.parse(await readAssistantJson(deps.prisma, deps.assistantCache, request.signedIn!.organizationId, assistant_id, deps.secrets));
    const query = request.query as Record<string, unknown>;
    const restored =
      typeof query.restored === 'string' && /^\d+$/.test(query.restored)
        ? `Version ${query.restored} is current again, as version ${assistant.version}.`
        : undefined;
    const notice = query.created ? 'Assistant created.' : restored;
    const pending = await deps.prisma.assistant.count({
      where: { id: assistant_id, organizationId: request.signedIn!.organizationId, NOT: { draftUpdatedAt: null } },
    });
    return editor(request, reply, { id: assistant_id, name: assistant.name, draftPending: pending > 0 }, assistant, {}, 200, notice);
  });

  // The talk panel's unsaved changes: saved as the assistant's draft, which its test calls run; live calls keep the
  // current version until the person saves.
  app.post('/assistants/:assistant_id/draft', { config: session, schema: { params: Params } }, async (request, reply) => {
    const { assistant_id } = request.params as z.output<typeof Params>;
    const body = builderBody(LEAVES, request.body as Record<string, unknown>);
    try {
      await saveAssistantDraft(deps.prisma, request.signedIn!.organizationId, assistant_id, body, deps.secrets, deps.vendorTargets);
      return reply.send({ saved: 'draft' });
    } catch (error) {
      if (!(error instanceof AppError) || error.kind === 'not_found') throw error;
      return reply.status(STATUS_OF[error.kind]).send({ message: error.message });
    }
  });

  app.post('/assistants/:assistant_id/draft/publish', { config: session, schema: { params: Params } }, async (request, reply) => {
    const { assistant_id } = request.params as z.output<typeof Params>;
    const me = request.signedIn!;
    const published = await publishAssistantDraft(deps.prisma, me.organizationId, assistant_id, deps.secrets, { userId: me.userId, via: 'dashboard' });
    written(assistant_id);
    return editor(request, reply, { id: assistant_id, name: published.name }, published, {}, 200, 'The changes tried in test calls are saved.');
  });

  app.post('/assistants/:assistant_id/draft/discard', { config: session, schema: { params: Params } }, async (request, reply) => {
    const { assistant_id } = request.params as z.output<typeof Params>;
    await discardAssistantDraft(deps.prisma, request.signedIn!.organizationId, assistant_id).catch((error: unknown) => {
      // Already gone (another tab saved or discarded it): nothing to discard.
      if (!(error instanceof AppError && error.kind === 'not_found')) throw error;
    });
    return reply.redirect(`/assistants/${assistant_id}`);
  });

  app.post('/assistants/:assistant_id', { config: session, schema: { params: Params } }, async (request, reply) => {
    const { assistant_id } = request.params as z.output<typeof Params>;
    const organizationId = request.signedIn!.organizationId;
    const form = request.body as Record<string, unknown>;
    const body = builderBody(LEAVES, form);
    const ticked = tickedNumbers(form);
    try {
      await checkTickedNumbers(deps.prisma, organizationId, ticked);
      const updated = await updateAssistant(deps.prisma, organizationId, assistant_id, body, deps.secrets, deps.vendorTargets, {
        userId: request.signedIn!.userId,
        via: 'dashboard',
      });
      if (ticked) await answerTickedNumbers(deps.prisma, organizationId, assistant_id, ticked);
      // What was saved is what the form showed, which the draft of its test calls only approached: the draft is done.
      await discardAssistantDraft(deps.prisma, organizationId, assistant_id).catch(() => undefined);
      written(assistant_id);
      return editor(request, reply, { id: assistant_id, name: updated.name }, updated, {}, 200, 'Saved.');
    } catch (error) {
      written(assistant_id);
      if (error instanceof AppError && error.kind === 'not_found') throw error;
      const stored = JSON.parse(await readAssistantJson(deps.prisma, deps.assistantCache, organizationId, assistant_id, deps.secrets));
      return editor(request, reply, { id: assistant_id, name: stored.name, ticked }, mergeShallow(stored, body), formErrors(error), 422);
    }
  });

  app.post('/assistants/:assistant_id/delete', { config: session, schema: { params: Params } }, async (request, reply) => {
    const { assistant_id } = request.params as z.output<typeof Params>;
    await deleteAssistant(deps.prisma, request.signedIn!.organizationId, assistant_id);
    written(assistant_id);
    return reply.redirect('/assistants');
  });

  // A sample of the built-in voice, played by the builder's "Play a sample": the offline voice needs no key, so it is
  // heard before anything is saved. Vendor voices are heard in a test call, with the assistant's own key.
  const SampleQuery = z.object({ voice: z.enum(VOICES.local.map((v) => v.id) as [string, ...string[]]) });
  app.get('/assistants/voice-sample', { config: session, schema: { querystring: SampleQuery } }, async (request, reply) => {
    const { voice } = request.query as z.output<typeof SampleQuery>;
    const audio = await espeakSynthesize(VOICE_SAMPLE, { voice, wordsPerMinute: 175, pitch: 50 });
    return reply.type('audio/wav').header('cache-control', 'private, max-age=3600').send(encodeWav(audio));
  });

  // The voices the builder offers for a provider: the account's own catalogue read with the assistant's key (or the
  // service's), else the stock list with a note. The keys never leave the server: the page gets names, descriptions,
  // and whether a preview can be played through the route below. Answered as JSON, bad input included (422, 404).
  const catalogue = new VoiceCatalogue({ policy: deps.vendorTargets });
  const VoicesQuery = z.object({ provider: z.enum(TTS_PROVIDERS) });
  const PreviewQuery = VoicesQuery.extend({ voice: z.string().min(1).max(200) });
  async function catalogueRequest<Q extends typeof VoicesQuery>(
    request: FastifyRequest,
    reply: FastifyReply,
    query: Q,
  ): Promise<{ asked: CatalogueRequest; query: z.output<Q> } | undefined> {
    const params = Params.safeParse(request.params);
    const parsed = query.safeParse(request.query);
    if (!params.success || !parsed.success) {
      await reply.status(422).send({ message: `Name an assistant and a voice provider (${TTS_PROVIDERS.join(', ')})` });
      return undefined;
    }
    const organizationId = request.signedIn!.organizationId;
    const settings = await loadAssistantSettings(deps.prisma, organizationId, params.data.assistant_id, deps.secrets);
    if (!settings) {
      await reply.status(404).send({ message: 'No such assistant' });
      return undefined;
    }
    const asked: CatalogueRequest = {
      organizationId,
      assistantId: params.data.assistant_id,
      provider: parsed.data.provider,
      tts: settings.tts_settings,
      credentials: vendorCredentialsFromEnv(),
    };
    return { asked, query: parsed.data };
  }

  app.get('/assistants/:assistant_id/voices', { config: session }, async (request, reply) => {
    const found = await catalogueRequest(request, reply, VoicesQuery);
    if (!found) return reply;
    const answer = await catalogue.voices(found.asked);
    return reply.header('cache-control', 'private, no-store').send({
      source: answer.source,
      voices: answer.voices.map((v) => ({ id: v.id, name: v.name, description: v.description, own: v.own, preview: Boolean(v.previewUrl) })),
      ...(answer.note ? { note: answer.note } : {}),
    });
  });

  // A voice's preview as its vendor recorded it, played by "Play a sample": the page plays audio from its own origin
  // only, so the recording the catalogue named for the voice is fetched here (never an address the page sends).
  app.get('/assistants/:assistant_id/voices/preview', { config: session }, async (request, reply) => {
    const found = await catalogueRequest(request, reply, PreviewQuery);
    if (!found) return reply;
    const audio = await catalogue.preview(found.asked, found.query.voice);
    if (!audio) return reply.status(404).send({ message: 'No sample of this voice' });
    return reply.type(audio.contentType).header('cache-control', 'private, max-age=3600').header('x-content-type-options', 'nosniff').send(audio.body);
  });

  // The built-in browser call, as POST /api/web-calls/browser makes it, opened in this browser.
  app.post('/assistants/:assistant_id/test-call', { config: session, schema: { params: Params } }, async (request, reply) => {
    const { assistant_id } = request.params as z.output<typeof Params>;
    const unavailable = deps.browserCalls.runner
      ? undefined
      : new AppError('transport_unavailable', 'Test calls need the agent worker in this process (npm start)');
    // The talk panel asks for JSON and runs the call in the builder; a plain form post opens the call's own page.
    const wantsJson = /application\/json/.test(request.headers.accept ?? '');
    try {
      const call = await createBrowserCall(
        deps.prisma,
        deps.browserCalls.tokens,
        publicBaseUrl(request, deps.publicUrl),
        request.signedIn!.organizationId,
        // The draft when there is one: the changes the person is trying, not yet live.
        { assistant_id, draft: true },
        unavailable,
      );
      return wantsJson ? reply.send({ call_sid: call.call_sid, token: call.token }) : reply.redirect(call.page_url);
    } catch (error) {
      if (!wantsJson || !(error instanceof AppError)) throw error;
      return reply.status(STATUS_OF[error.kind]).send({ message: error.message });
    }
  });
}

const VOICE_SAMPLE = 'Hello, thanks for calling. How can I help you today?';

/** The templates to start from, and a blank assistant. */
function starterPicker() {
  return html`<p class="muted">Start from a template and change anything, or start blank. Nothing is saved until you create it.</p>
<div class="starters">${STARTERS.map(
    (s) => html`<a class="card starter" href="/assistants/new?starter=${s.id}"><strong>${s.title}</strong><span class="muted">${s.summary}</span></a>`,
  )}<a class="card starter blank" href="/assistants/new?starter=blank"><strong>Blank assistant</strong><span class="muted">The defaults: a helpful assistant, your default vendors.</span></a></div>`;
}

/** What the person typed, over what is stored, so a refused form shows their values rather than the old ones. */
function mergeShallow(stored: Record<string, unknown>, typed: object): Record<string, unknown> {
  const out: Record<string, unknown> = { ...stored };
  for (const [k, v] of Object.entries(typed)) {
    const s = stored[k];
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && s && typeof s === 'object' ? { ...(s as object), ...(v as object) } : v;
  }
  return out;
}
