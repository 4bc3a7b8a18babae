import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
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
import { formErrors, validated } from '../forms.js';
import { html } from '../html.js';
import { csrfField } from '../layout.js';
import { leavesOf } from '../schema-form.js';
import { ItemParams, registerResourcePages } from '../resource-pages.js';
import { when } from '../format.js';
import type { DashboardDeps } from '../deps.js';

// Tools and playbooks: their forms made from the API's schemas; a tool tried with arguments, a playbook's test runs.

// The lists fit one page: an organisation's tools and playbooks number in the tens.
const PER_PAGE = 100;
const shapeOf = (schema: unknown) => (schema as z.ZodObject).shape as Record<string, z.ZodType>;

export function registerToolPages(app: FastifyInstance, deps: DashboardDeps): void {
  const tools: ToolDeps = { db: deps.prisma, secrets: deps.secrets, policy: { allowPrivateTargets: deps.allowPrivateWebhookTargets } };
  registerResourcePages<ToolOut>(app, {
    path: '/tools',
    title: 'Tools',
    noun: 'tool',
    empty: 'No tools. A tool lets an assistant act during a call: call your API, transfer the call, end it, or search its knowledge.',
    // A tool's HTTP request and transfer are there or null as a whole: edited as JSON.
    leaves: leavesOf(shapeOf(ToolCreate), [], ['http', 'transfer']),
    defaults: ToolCreate.partial({ name: true, type: true }).parse({}),
    columns: ['Type', 'State'],
    cells: (t) => [html`${t.type}`, t.enabled ? html`<span class="badge">enabled</span>` : html`<span class="badge off">disabled</span>`],
    list: async (org) => (await listTools(tools, org, 1, PER_PAGE)).data,
    get: (org, id) => getTool(tools, org, id),
    create: (org, body) => createTool(tools, org, validated(ToolCreate, body)),
    update: (org, id, body) => updateTool(tools, org, id, validated(ToolUpdate, body)),
    remove: (org, id) => deleteTool(tools, org, id),
    extra: async (request: FastifyRequest, tool: ToolOut) =>
      tool.type !== 'http'
        ? html``
        : html`<form method="post" action="/tools/${tool.id}/test" class="card"><h2>Try it</h2>${csrfField(request)}
<p class="hint">Sends the request as a call would, with these arguments and variables, and shows what went out and what came back.</p>
<label for="t-args">Arguments <span class="hint">JSON, as the model would pass them</span></label><textarea id="t-args" name="arguments" class="json" rows="3">{}</textarea>
<label for="t-vars">Variables <span class="hint">JSON of text values, as {{var.*}}</span></label><textarea id="t-vars" name="variables" class="json" rows="2">{}</textarea>
<div class="actions"><button class="secondary" type="submit">Send</button></div></form>`,
    routes: (app, render) => {
      app.post('/tools/:item_id/test', { config: { auth: 'session' }, schema: { params: ItemParams } }, async (request, reply) => {
        const id = (request.params as z.output<typeof ItemParams>).item_id;
        const form = (request.body ?? {}) as Record<string, string>;
        const json = (text: string | undefined) => {
          try {
            return JSON.parse(text || '{}') as unknown;
          } catch {
            return text;
          }
        };
        try {
          const result = await testTool(
            tools,
            request.signedIn!.organizationId,
            id,
            validated(ToolTestRequest, { arguments: json(form.arguments), variables: json(form.variables) }),
          );
          return render(request, reply, id, { notice: html`<div class="card"><h2>Result</h2><pre>${JSON.stringify(result, null, 2)}</pre></div>` });
        } catch (error) {
          const errors = formErrors(error);
          return render(request, reply, id, {
            notice: html`<div class="notice bad" role="alert">${Object.entries(errors)
              .map(([k, v]) => (k ? `${k}: ${v}` : v))
              .join('; ')}</div>`,
            status: 422,
          });
        }
      });
    },
  });

  registerResourcePages<PlaybookOut>(app, {
    path: '/playbooks',
    title: 'Playbooks',
    noun: 'playbook',
    empty: 'No playbooks. A playbook is a procedure an assistant follows: when to use it, its steps, the tools it may use and the values it collects.',
    leaves: leavesOf(shapeOf(PlaybookCreate)),
    defaults: PlaybookCreate.partial({ name: true }).parse({}),
    columns: ['Mode', 'State'],
    cells: (p) => [html`${p.mode}`, p.enabled ? html`<span class="badge">enabled</span>` : html`<span class="badge off">disabled</span>`],
    list: async (org) => (await listPlaybooks(deps.prisma, org, 1, PER_PAGE)).data,
    get: (org, id) => getPlaybook(deps.prisma, org, id),
    create: (org, body) => createPlaybook(deps.prisma, org, validated(PlaybookCreate, body)),
    update: (org, id, body) => updatePlaybook(deps.prisma, org, id, validated(PlaybookUpdate, body)),
    remove: (org, id) => deletePlaybook(deps.prisma, org, id),
    extra: async (request, playbook) => {
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
    },
    routes: (app, render) => {
      app.post('/playbooks/:item_id/test-runs', { config: { auth: 'session' }, schema: { params: ItemParams } }, async (request, reply) => {
        const id = (request.params as z.output<typeof ItemParams>).item_id;
        const script = String((request.body as Record<string, unknown>)?.script ?? '')
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean);
        try {
          await createPlaybookTestRun(deps.prisma, request.signedIn!.organizationId, id, validated(PlaybookTestRunCreate, { script }));
          return render(request, reply, id, {
            notice: html`<div class="notice" role="status">Test run queued: an agent worker runs it, and its result appears below.</div>`,
            status: 201,
          });
        } catch (error) {
          const errors = formErrors(error);
          return render(request, reply, id, {
            notice: html`<div class="notice bad" role="alert">${Object.entries(errors)
              .map(([k, v]) => (k ? `${k}: ${v}` : v))
              .join('; ')}</div>`,
            status: 422,
          });
        }
      });
    },
  });
}
