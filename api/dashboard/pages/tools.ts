import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError } from '../../../lib/errors.js';
import { zodIssuesToDetail } from '../../../lib/zod/detail.js';
import {
  createTool,
  deleteTool,
  getTool,
  listTools,
  testTool,
  ToolCreate,
  type ToolDeps,
  type ToolOut,
  ToolTestRequest,
  ToolUpdate,
  updateTool,
} from '../../../modules/tools/index.js';
import {
  createPlaybook,
  deletePlaybook,
  getPlaybook,
  listPlaybooks,
  PlaybookCreate,
  type PlaybookOut,
  PlaybookUpdate,
  updatePlaybook,
} from '../../../modules/playbooks/index.js';
import { createPlaybookTestRun, listTestRuns, PlaybookTestRunCreate } from '../../../modules/test-runs/index.js';
import { formErrors, type FieldErrors, validated } from '../forms.js';
import { html, type Html } from '../html.js';
import { csrfField, dashboardPage, sendPage } from '../layout.js';
import { idParam } from '../../../lib/zod/query.js';
import { when } from '../format.js';
import type { DashboardDeps } from '../deps.js';
import { bodyOfValues as toolBody, type ToolFormValues, valuesOfPost as toolValuesOfPost, valuesOfTool } from './tool-form/form-fields.js';
import { placeToolDetail, placeToolRefusal } from './tool-form/refusals.js';
import { toolForm } from './tool-form/tool-form.js';
import { bodyOfValues as playbookBody, type PlaybookFormValues, valuesOfPlaybook, valuesOfPost as playbookValuesOfPost } from './playbook-form/form-fields.js';
import { playbookForm } from './playbook-form/playbook-form.js';
import { placePlaybookDetail, placePlaybookRefusal } from './playbook-form/refusals.js';
import { toolChoices } from './playbook-form/tool-picker.js';

// Tools and playbooks: their lists, their forms (tool-form/, playbook-form/: laid out for people, posting plain fields
// the API's schemas and services then judge), a tool tried with arguments, a playbook's test runs. Each refusal is
// shown at its control with everything as it was typed.

// The lists fit one page: an organisation's tools and playbooks number in the tens.
const PER_PAGE = 100;
const session = { auth: 'session' as const };
const ItemParams = z.object({ item_id: idParam });
const ROW_SCRIPT = html`<script src="/assets/row-editors.js" defer></script>`;
const SAVED = html`<div class="notice" role="status">Saved.</div>`;

const idOf = (request: FastifyRequest) => (request.params as z.output<typeof ItemParams>).item_id;
const savedShown = (request: FastifyRequest) => (request.query as Record<string, unknown> | undefined)?.saved === '1';
const state = (enabled: boolean) => (enabled ? html`<span class="badge">enabled</span>` : html`<span class="badge off">disabled</span>`);

function listPage<T extends { id: number; name: string }>(
  o: { path: string; noun: string; empty: string; columns: string[]; cells: (item: T) => Html[] },
  items: T[],
): Html {
  return html`<div class="actions"><a class="button" href="${o.path}/new">New ${o.noun}</a></div><br>
${
  items.length === 0
    ? html`<div class="card empty">${o.empty}</div>`
    : html`<div class="table-wrap"><table><thead><tr><th>Name</th>${o.columns.map((c) => html`<th>${c}</th>`)}</tr></thead><tbody>${items.map(
        (item) => html`<tr><td><a href="${o.path}/${item.id}">${item.name}</a></td>${o.cells(item).map((c) => html`<td>${c}</td>`)}</tr>`,
      )}</tbody></table></div>`
}`;
}

/** A refusal of a side form (a tool's try, a test run) as one line above the page. */
function sideRefusal(error: unknown): Html {
  const errors = formErrors(error);
  return html`<div class="notice bad" role="alert">${Object.entries(errors)
    .map(([k, v]) => (k ? `${k}: ${v}` : v))
    .join('; ')}</div>`;
}

const deleteForm = (request: FastifyRequest, path: string, noun: string) =>
  html`<form method="post" action="${path}/delete">${csrfField(request)}<button class="danger" type="submit" data-confirm="Delete this ${noun}?">Delete ${noun}</button></form>`;

export function registerToolPages(app: FastifyInstance, deps: DashboardDeps): void {
  const tools: ToolDeps = { db: deps.prisma, secrets: deps.secrets, policy: { allowPrivateTargets: deps.allowPrivateWebhookTargets } };
  registerToolForms(app, tools);
  registerPlaybookForms(app, deps);
}

function registerToolForms(app: FastifyInstance, tools: ToolDeps): void {
  app.get('/tools', { config: session }, async (request, reply) => {
    const items = (await listTools(tools, request.signedIn!.organizationId, 1, PER_PAGE)).data;
    const body = listPage<ToolOut>(
      {
        path: '/tools',
        noun: 'tool',
        empty: 'No tools. A tool lets an assistant act during a call: call your API, transfer the call, end it, or search its knowledge.',
        columns: ['Type', 'State'],
        cells: (t) => [html`${t.type}`, state(t.enabled)],
      },
      items,
    );
    return sendPage(reply, dashboardPage(request, 'Tools', body));
  });

  const tryIt = (request: FastifyRequest, tool: ToolOut) =>
    tool.type !== 'http'
      ? html``
      : html`<form method="post" action="/tools/${tool.id}/test" class="card"><h2>Try it</h2>${csrfField(request)}
<p class="hint">Sends the saved request as a call would, with these arguments and variables, and shows what went out and what came back.</p>
<label for="t-args">Arguments <span class="hint">JSON, as the model would pass them</span></label><textarea id="t-args" name="arguments" class="json" rows="3">{}</textarea>
<label for="t-vars">Variables <span class="hint">JSON of text values, as {{var.*}}</span></label><textarea id="t-vars" name="variables" class="json" rows="2">{}</textarea>
<div class="actions"><button class="secondary" type="submit">Send</button></div></form>`;

  async function editor(
    request: FastifyRequest,
    reply: FastifyReply,
    tool: ToolOut | null,
    values: ToolFormValues,
    options: { errors?: FieldErrors; status?: number; notice?: Html } = {},
  ) {
    const form = toolForm({
      values,
      errors: options.errors ?? {},
      masks: masksOf(tool),
      action: tool ? `/tools/${tool.id}` : '/tools',
      submit: tool ? 'Save' : 'Create tool',
      csrf: csrfField(request),
    });
    const body = html`${options.notice ?? ''}<p><a href="/tools">← All tools</a></p>
${form}
${tool ? html`${tryIt(request, tool)}${deleteForm(request, `/tools/${tool.id}`, 'tool')}` : ''}
${ROW_SCRIPT}`;
    return sendPage(reply, dashboardPage(request, tool ? tool.name : 'New tool', body), options.status ?? 200);
  }

  /** The posted form, its body for the API, and what the API's schema (and the form itself) refuse in it. */
  function read(request: FastifyRequest, masks: Record<string, string>) {
    const values = toolValuesOfPost(request.body);
    const built = toolBody(values, masks);
    const parsed = ToolCreate.safeParse(built.body);
    const errors: FieldErrors = {
      ...(parsed.success ? {} : placeToolDetail(zodIssuesToDetail(parsed.error.issues, 'body', built.body), values)),
      ...built.problems,
    };
    return { values, built, errors };
  }

  app.get('/tools/new', { config: session }, async (request, reply) => editor(request, reply, null, valuesOfTool(null)));

  app.post('/tools', { config: session }, async (request, reply) => {
    const { values, built, errors } = read(request, {});
    if (Object.keys(errors).length > 0) return editor(request, reply, null, values, { errors, status: 422 });
    try {
      const created = await createTool(tools, request.signedIn!.organizationId, validated(ToolCreate, built.body));
      return reply.redirect(`/tools/${created.id}`);
    } catch (error) {
      const refusal = placeToolRefusal(error, values);
      return editor(request, reply, null, values, refusal);
    }
  });

  app.get('/tools/:item_id', { config: session, schema: { params: ItemParams } }, async (request, reply) => {
    const tool = await getTool(tools, request.signedIn!.organizationId, idOf(request));
    return editor(request, reply, tool, valuesOfTool(tool), { notice: savedShown(request) ? SAVED : undefined });
  });

  app.post('/tools/:item_id', { config: session, schema: { params: ItemParams } }, async (request, reply) => {
    const organizationId = request.signedIn!.organizationId;
    // Read first: another organisation's tool is 404 before anything is said about the form.
    const tool = await getTool(tools, organizationId, idOf(request));
    const { values, built, errors } = read(request, masksOf(tool));
    if (Object.keys(errors).length > 0) return editor(request, reply, tool, values, { errors, status: 422 });
    try {
      await updateTool(tools, organizationId, tool.id, validated(ToolUpdate, built.body));
    } catch (error) {
      if (error instanceof AppError && error.kind === 'not_found') throw error;
      return editor(request, reply, tool, values, placeToolRefusal(error, values));
    }
    return reply.redirect(`/tools/${tool.id}?saved=1`);
  });

  app.post('/tools/:item_id/delete', { config: session, schema: { params: ItemParams } }, async (request, reply) => {
    await deleteTool(tools, request.signedIn!.organizationId, idOf(request));
    return reply.redirect('/tools');
  });

  app.post('/tools/:item_id/test', { config: session, schema: { params: ItemParams } }, async (request, reply) => {
    const organizationId = request.signedIn!.organizationId;
    const tool = await getTool(tools, organizationId, idOf(request));
    const form = (request.body ?? {}) as Record<string, unknown>;
    const json = (text: unknown) => {
      if (typeof text !== 'string') return text;
      try {
        return JSON.parse(text || '{}') as unknown;
      } catch {
        return text;
      }
    };
    try {
      const result = await testTool(
        tools,
        organizationId,
        tool.id,
        validated(ToolTestRequest, { arguments: json(form.arguments), variables: json(form.variables) }),
      );
      return editor(request, reply, tool, valuesOfTool(tool), {
        notice: html`<div class="card"><h2>Result</h2><pre>${JSON.stringify(result, null, 2)}</pre></div>`,
      });
    } catch (error) {
      return editor(request, reply, tool, valuesOfTool(tool), { notice: sideRefusal(error), status: 422 });
    }
  });
}

function registerPlaybookForms(app: FastifyInstance, deps: DashboardDeps): void {
  app.get('/playbooks', { config: session }, async (request, reply) => {
    const items = (await listPlaybooks(deps.prisma, request.signedIn!.organizationId, 1, PER_PAGE)).data;
    const body = listPage<PlaybookOut>(
      {
        path: '/playbooks',
        noun: 'playbook',
        empty: 'No playbooks. A playbook is a procedure an assistant follows: when to use it, its steps, the tools it may use and the values it collects.',
        columns: ['Mode', 'State'],
        cells: (p) => [html`${p.mode}`, state(p.enabled)],
      },
      items,
    );
    return sendPage(reply, dashboardPage(request, 'Playbooks', body));
  });

  const testRuns = async (request: FastifyRequest, playbook: PlaybookOut) => {
    const { data: runs } = await listTestRuns(deps.prisma, request.signedIn!.organizationId, { playbook_id: playbook.id }, 1, 20);
    return html`<div class="card"><h2>Test runs</h2>
${
  runs.length === 0
    ? html`<p class="muted">No test runs yet.</p>`
    : html`<div class="table-wrap"><table><thead><tr><th>Started</th><th>Status</th><th>Result</th></tr></thead><tbody>${runs.map(
        (r) =>
          html`<tr><td>${when(r.created_at)}</td><td>${r.status}</td><td>${r.pass_rate === null ? (r.error ?? '') : `${Math.round(r.pass_rate * 100)}% passed`}</td></tr>`,
      )}</tbody></table></div>`
}
<form method="post" action="/playbooks/${playbook.id}/test-runs">${csrfField(request)}
<label for="p-script">What the caller says <span class="hint">one line per turn; the assistant answers each in a text conversation</span></label>
<textarea id="p-script" name="script" rows="4"></textarea>
<div class="actions"><button class="secondary" type="submit">Run a test</button></div></form></div>`;
  };

  async function editor(
    request: FastifyRequest,
    reply: FastifyReply,
    playbook: PlaybookOut | null,
    values: PlaybookFormValues,
    options: { errors?: FieldErrors; status?: number; notice?: Html; tools?: Awaited<ReturnType<typeof toolChoices>> } = {},
  ) {
    const form = playbookForm({
      values,
      errors: options.errors ?? {},
      tools: options.tools ?? (await toolChoices(deps, request.signedIn!.organizationId)),
      action: playbook ? `/playbooks/${playbook.id}` : '/playbooks',
      submit: playbook ? 'Save' : 'Create playbook',
      csrf: csrfField(request),
    });
    const body = html`${options.notice ?? ''}<p><a href="/playbooks">← All playbooks</a></p>
${form}
${playbook ? html`${await testRuns(request, playbook)}${deleteForm(request, `/playbooks/${playbook.id}`, 'playbook')}` : ''}
${ROW_SCRIPT}`;
    return sendPage(reply, dashboardPage(request, playbook ? playbook.name : 'New playbook', body), options.status ?? 200);
  }

  /** The posted form, its body for the API, and what the API's schema (and the form itself) refuse in it. */
  async function read(request: FastifyRequest, storedTools: readonly number[] | null) {
    const tools = await toolChoices(deps, request.signedIn!.organizationId);
    const values = playbookValuesOfPost(request.body);
    const built = playbookBody(values, storedTools);
    const schema = storedTools === null ? PlaybookCreate : PlaybookUpdate;
    const parsed = schema.safeParse(built.body);
    const errors: FieldErrors = {
      ...(parsed.success ? {} : placePlaybookDetail(zodIssuesToDetail(parsed.error.issues, 'body', built.body), values, built, tools)),
      ...built.problems,
    };
    return { values, built, errors, tools };
  }

  app.get('/playbooks/new', { config: session }, async (request, reply) => editor(request, reply, null, valuesOfPlaybook(null)));

  app.post('/playbooks', { config: session }, async (request, reply) => {
    const { values, built, errors, tools } = await read(request, null);
    if (Object.keys(errors).length > 0) return editor(request, reply, null, values, { errors, status: 422, tools });
    try {
      const created = await createPlaybook(deps.prisma, request.signedIn!.organizationId, validated(PlaybookCreate, built.body));
      return reply.redirect(`/playbooks/${created.id}`);
    } catch (error) {
      return editor(request, reply, null, values, { ...placePlaybookRefusal(error, values, built, tools), tools });
    }
  });

  app.get('/playbooks/:item_id', { config: session, schema: { params: ItemParams } }, async (request, reply) => {
    const playbook = await getPlaybook(deps.prisma, request.signedIn!.organizationId, idOf(request));
    return editor(request, reply, playbook, valuesOfPlaybook(playbook), { notice: savedShown(request) ? SAVED : undefined });
  });

  app.post('/playbooks/:item_id', { config: session, schema: { params: ItemParams } }, async (request, reply) => {
    const organizationId = request.signedIn!.organizationId;
    // Read first: another organisation's playbook is 404 before anything is said about the form.
    const playbook = await getPlaybook(deps.prisma, organizationId, idOf(request));
    const { values, built, errors, tools } = await read(request, playbook.tool_ids);
    if (Object.keys(errors).length > 0) return editor(request, reply, playbook, values, { errors, status: 422, tools });
    try {
      await updatePlaybook(deps.prisma, organizationId, playbook.id, validated(PlaybookUpdate, built.body));
    } catch (error) {
      if (error instanceof AppError && error.kind === 'not_found') throw error;
      return editor(request, reply, playbook, values, { ...placePlaybookRefusal(error, values, built, tools), tools });
    }
    return reply.redirect(`/playbooks/${playbook.id}?saved=1`);
  });

  app.post('/playbooks/:item_id/delete', { config: session, schema: { params: ItemParams } }, async (request, reply) => {
    await deletePlaybook(deps.prisma, request.signedIn!.organizationId, idOf(request));
    return reply.redirect('/playbooks');
  });

  app.post('/playbooks/:item_id/test-runs', { config: session, schema: { params: ItemParams } }, async (request, reply) => {
    const organizationId = request.signedIn!.organizationId;
    const playbook = await getPlaybook(deps.prisma, organizationId, idOf(request));
    const posted = (request.body as Record<string, unknown> | undefined)?.script;
    const script = (typeof posted === 'string' ? posted : '')
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    const values = valuesOfPlaybook(playbook);
    try {
      await createPlaybookTestRun(deps.prisma, organizationId, playbook.id, validated(PlaybookTestRunCreate, { script }));
      return editor(request, reply, playbook, values, {
        notice: html`<div class="notice" role="status">Test run queued: an agent worker runs it, and its result appears below.</div>`,
        status: 201,
      });
    } catch (error) {
      return editor(request, reply, playbook, values, { notice: sideRefusal(error), status: 422 });
    }
  });
}

/** A tool's stored credential headers as the API masks them: its request's, or its MCP server's. */
function masksOf(tool: ToolOut | null | undefined): Record<string, string> {
  return tool?.http?.secret_headers ?? tool?.mcp?.secret_headers ?? {};
}
