import type { FastifyInstance, FastifyRequest } from 'fastify';
import { getCountries } from 'libphonenumber-js/max';
import { z } from 'zod';
import { can, getOrganizationSettings, OrganizationSettingsUpdate, requireRole, updateOrganizationSettings } from '../../../modules/organizations/index.js';
import { formErrors, validated, type FieldErrors } from '../forms.js';
import { html, type Html } from '../html.js';
import { csrfField, dashboardPage, sendPage } from '../layout.js';
import { bodyOfForm, leavesOf, type Leaf } from '../schema-form.js';
import { settingRow } from './assistant-builder/controls.js';
import type { Field } from './assistant-builder/sections.js';
import type { DashboardDeps } from '../deps.js';

// The organisation's settings and limits, changed as PATCH /api/organization/settings changes them: every setting of
// its schema, in people's words with its unit and default (a setting the schema gains and the table below does not
// name still appears, under its own name). The organisation's limits belong to the `billing` action, so owners and
// admins change them and everyone else reads them.

const session = { auth: 'session' as const };
const TITLE = 'Organisation settings';

const FIELDS: Record<string, Omit<Field, 'key'>> = {
  max_concurrent_calls: {
    label: 'Calls at once',
    unit: 'calls',
    help: 'Inbound, outbound and browser calls under way together. One more is refused until a call ends; lowering it never cuts a call under way.',
  },
  privacy_mode: {
    label: 'What calls keep',
    choices: {
      full: 'Everything said',
      redacted: 'Redacted: personal details masked, beeped in recordings',
      metadata_only: 'Metadata only: no words, no recording',
    },
    help: 'For calls that start from now on. An assistant can choose to keep less for its own calls, never more.',
  },
  default_phone_region: {
    label: 'Country of local numbers',
    help: 'A phone number written without its country code (in a contact, an import, a campaign) is read as a number of this country. Numbers already stored keep their meaning.',
  },
};

const regionName = new Intl.DisplayNames(['en'], { type: 'region' });
/** Every region with a numbering plan, by its name in English: picked, not typed. */
const REGIONS = Object.fromEntries(
  getCountries()
    .map((code) => [code, `${regionName.of(code) ?? code} (${code})`] as const)
    .sort((a, b) => a[1].localeCompare(b[1])),
);

/** The default the schema documents for a setting: its zod default, or "Default 10" in its description. */
function documentedDefault(leaf: Leaf): unknown {
  if (leaf.default !== undefined) return leaf.default;
  const said = /^Default (\S+?)\.?$/i.exec(leaf.description ?? '')?.[1];
  if (said === undefined) return undefined;
  return leaf.kind === 'number' || leaf.kind === 'integer' ? Number(said) : said;
}

interface Setting {
  field: Field;
  leaf: Leaf;
}

// In the table's order, the limit first; settings it does not name follow.
const order = (leaf: Leaf) => {
  const at = Object.keys(FIELDS).indexOf(leaf.key);
  return at === -1 ? Number.MAX_SAFE_INTEGER : at;
};
const SETTINGS: Setting[] = leavesOf((OrganizationSettingsUpdate as unknown as z.ZodObject).shape as Record<string, z.ZodType>)
  .sort((a, b) => order(a) - order(b))
  .map((leaf) => {
    const named = FIELDS[leaf.key];
    const description = /^Default \S+$/i.test(leaf.description ?? '') ? undefined : leaf.description;
    const field: Field = named
      ? { key: leaf.key, ...named }
      : { key: leaf.key, label: leaf.path.map((p) => p.replace(/_/g, ' ')).join(' › '), ...(description ? { help: description } : {}) };
    const withDefault = { ...leaf, default: documentedDefault(leaf) };
    if (leaf.key !== 'default_phone_region') return { field, leaf: withDefault };
    return { field: { ...field, choices: REGIONS }, leaf: { ...withDefault, kind: 'enum' as const, options: Object.keys(REGIONS) } };
  });

/** A setting's value in words, for those who read the settings and may not change them. */
function shown(setting: Setting, value: unknown): string {
  const { field, leaf } = setting;
  if (value === undefined || value === null) return 'not set';
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  if (field.choices) return field.choices[String(value)] ?? String(value);
  const fallback = leaf.default !== undefined && leaf.default !== null ? ` (default ${String(leaf.default)})` : '';
  return `${String(value)}${field.unit ? ` ${field.unit}` : ''}${fallback}`;
}

/** The posted form as the API's body: a switch posts "false" then "true" when on, so its last value counts. */
function settingsBody(form: Record<string, unknown>): { body: Record<string, unknown>; typed: Record<string, string> } {
  const typed: Record<string, string> = {};
  for (const { leaf } of SETTINGS) {
    const raw = form[leaf.key];
    const posted = (Array.isArray(raw) ? raw : [raw]).filter((v): v is string => typeof v === 'string');
    if (posted.length > 0) typed[leaf.key] = leaf.kind === 'boolean' ? posted.at(-1)! : posted[0]!;
  }
  const body = bodyOfForm(
    SETTINGS.map((s) => s.leaf),
    typed,
  );
  return { body, typed };
}

interface PageState {
  notice?: string | undefined;
  errors?: FieldErrors;
  /** What was typed, shown again when it was refused. */
  values?: Record<string, unknown>;
}

/** A select keeps a stored value it does not offer (one set before the list changed) rather than showing another. */
function offering(setting: Setting, value: unknown): Leaf {
  const { leaf } = setting;
  if (leaf.kind !== 'enum' || typeof value !== 'string' || value === '' || leaf.options.includes(value)) return leaf;
  return { ...leaf, options: [value, ...leaf.options] };
}

export function registerOrganizationSettingsPages(app: FastifyInstance, deps: DashboardDeps): void {
  async function page(request: FastifyRequest, state: PageState = {}): Promise<Html> {
    const me = request.signedIn!;
    const current = await getOrganizationSettings(deps.prisma, me.organizationId);
    const settings: Record<string, unknown> = { ...current };
    const editable = can(me.role, 'billing');
    const errors = state.errors ?? {};
    const refused = Object.keys(errors).length > 0;
    const facts = html`<div class="card"><dl class="facts"><dt>Organisation</dt><dd>${current.name}</dd><dt>Calls under way now</dt><dd>${current.active_calls}</dd></dl></div>`;
    const body = editable
      ? html`<form method="post" action="/settings" class="card" novalidate>${csrfField(request)}
${refused ? html`<div class="notice bad" role="alert">${errors[''] ?? 'Not saved: see the marked fields.'}</div>` : ''}
<div class="settings">${SETTINGS.map((setting) => {
          const value = state.values && setting.leaf.key in state.values ? state.values[setting.leaf.key] : settings[setting.leaf.key];
          // The builder's rows: a switch for yes/no, the unit after a number, its default beside it.
          return settingRow(setting.field, offering(setting, value), value, {
            errors,
            pickers: { tools: [], documents: [], playbooks: [], numbers: [] },
            voices: {},
            voiceProvider: '',
          });
        })}</div>
<div class="actions"><button type="submit">Save</button></div></form>`
      : html`${refused ? html`<div class="notice bad" role="alert">${errors[''] ?? Object.values(errors)[0]}</div>` : ''}<div class="card"><dl class="facts settings-read">${SETTINGS.map(
          (s) =>
            html`<dt>${s.field.label}</dt><dd>${shown(s, settings[s.leaf.key])}${s.field.help ? html`<br><span class="hint">${s.field.help}</span>` : ''}</dd>`,
        )}</dl>
<p class="hint">Only owners and admins change these settings.</p></div>`;
    return dashboardPage(request, TITLE, html`${state.notice ? html`<div class="notice" role="status">${state.notice}</div>` : ''}${facts}${body}`);
  }

  const SavedQuery = z.object({ saved: z.string().optional().catch(undefined) });
  app.get('/settings', { config: session, schema: { querystring: SavedQuery } }, async (request, reply) =>
    sendPage(reply, await page(request, { notice: (request.query as z.output<typeof SavedQuery>).saved ? 'Saved.' : undefined })),
  );

  app.post('/settings', { config: session }, async (request, reply) => {
    const me = request.signedIn!;
    try {
      requireRole(me.role, 'billing');
    } catch (error) {
      return sendPage(reply, await page(request, { errors: formErrors(error) }), 403);
    }
    const form = request.body !== null && typeof request.body === 'object' && !Array.isArray(request.body) ? (request.body as Record<string, unknown>) : {};
    const { body, typed } = settingsBody(form);
    try {
      await updateOrganizationSettings(deps.prisma, me.organizationId, validated(OrganizationSettingsUpdate, body));
    } catch (error) {
      return sendPage(reply, await page(request, { errors: formErrors(error), values: typed }), 422);
    }
    return reply.redirect('/settings?saved=1');
  });
}
