import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiContext, type ApiContext, type Tenant } from '../helpers/api.js';
import { startFakeLiveKit, type FakeLiveKit } from '../fakes/livekit.js';
import { BrowserSession } from '../helpers/browser-session.js';
import { addPerson } from '../helpers/people.js';
import { createApiKey } from '../../modules/organizations/api-keys.js';

// Hostile requests generated from the OpenAPI document: every operation it lists, present and future, is sent broken
// bodies, query strings, path parameters and headers, and must answer in the documented error shapes, never 5xx.
// Operations missing from the document (the WebSocket upgrades of the browser and Media Streams transports, the
// carrier's voice webhook, /healthz, the docs) are hidden from it on purpose and tested by their own suites.

type Schema = Record<string, any>;
type Key = string | number;

interface Operation {
  method: string;
  path: string;
  op: Schema;
}

interface Variant {
  operation: Operation;
  name: string;
  request: InjectOptions;
}

/** Kept to 100,000 characters: past every maxLength, under the 1 MiB body limit, and cheap to send ~250 times. */
const HUGE_STRING = 'x'.repeat(100_000);

/** Wrong for almost every field: one value of each JSON kind. */
const WRONG_KINDS: [string, unknown][] = [
  ['number', 12345],
  ['NaN text', 'NaN'],
  ['array', ['a']],
  ['object', { a: 1 }],
  ['null', null],
  ['bool', true],
];
/** For a field that takes text: what Postgres cannot store, and more than any limit. */
const HOSTILE_TEXT_VALUES: [string, unknown][] = [
  ['NUL', 'a\u0000b'],
  ['high surrogate', 'a\ud800'],
  ['low surrogate', '\udc00b'],
  ['huge string', HUGE_STRING],
];
/** For a field that takes a number: past every column's range, and below every minimum. */
const HOSTILE_NUMBERS: [string, unknown][] = [
  ['1e308', 1e308],
  ['2**63', 2 ** 63],
  ['negative', -1],
  ['fraction', 0.5],
];

/** Keys Postgres cannot store, put into every free-form object. */
const HOSTILE_KEYS: [string, Record<string, unknown>][] = [
  ['NUL key', { 'k\u0000': 'v' }],
  ['high surrogate key', { '\ud800': 1 }],
  ['low surrogate key', { 'x\udc00': { nested: true } }],
];

/** Raw query and path texts: they travel percent-encoded, so broken escapes and invalid UTF-8 are possible too. */
const HOSTILE_TEXTS: [string, string][] = [
  ['NUL', 'a%00b'],
  ['broken escape', '%ud800'],
  ['UTF-8 surrogate bytes', '%ED%A0%80'],
  ['negative', '-1'],
  ['zero', '0'],
  ['huge number', '9'.repeat(30)],
  ['1e308', '1e308'],
  ['NaN', 'NaN'],
  ['empty', ''],
];
const LONG_QUERY_VALUE = 'y'.repeat(5_000);
/** Over the router's 200-character limit on a path segment. */
const LONG_PATH_VALUE = 'y'.repeat(250);

const BODY_SHAPES: [string, string, string][] = [
  ['empty body', 'application/json', ''],
  ['null body', 'application/json', 'null'],
  ['array body', 'application/json', '[{"a":1}]'],
  ['string body', 'application/json', '"text"'],
  ['number body', 'application/json', '1e999'],
  ['truncated JSON', 'application/json', '{"a":'],
  ['NUL escape at the top', 'application/json', '"\\u0000"'],
  ['plain text', 'text/plain', 'hello'],
  ['form', 'application/x-www-form-urlencoded', 'a=b&c=%00'],
  ['CSV', 'text/csv', 'email\nnul\u0000@example.com\n'],
];

/** At most this many requests in flight: the machine's two cores are shared with Postgres and other suites. */
const CONCURRENCY = 4;

describe('hostile requests generated from the OpenAPI document', () => {
  let ctx: ApiContext;
  let livekit: FakeLiveKit;
  let tenant: Tenant;
  let dataDir: string;
  let doc: Schema;
  /** The session-only operations are sent as a signed-in owner's browser sends them: its cookie and anti-forgery token. */
  let sessionHeaders: Record<string, string>;
  /** A real value for every path parameter and id-like body field, named as in the document. */
  const fixtures: Record<string, string | number> = {};
  let sequence = 0;

  beforeAll(async () => {
    livekit = await startFakeLiveKit();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'fuzz-'));
    ctx = await createApiContext({
      livekit: { url: livekit.url, apiKey: livekit.apiKey, apiSecret: livekit.apiSecret, agentName: 'voice-assistant' },
      // The queued calls are dialled into the fake only when a request wakes the dialler.
      diallerPollIntervalMs: 60_000,
      allowPrivateWebhookTargets: true,
      dataDir,
      // Browser calls are created here but never joined, so no audio is ever asked of the worker.
      callAudioRunner: {
        open() {
          throw new Error('no call audio in this suite');
        },
      },
    });
    tenant = await ctx.tenant();
    doc = ctx.app.swagger() as Schema;

    const created = async (url: string, body: unknown) => {
      const res = await ctx.call(tenant, 'POST', url, body);
      expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      return res.body.data ?? res.body;
    };
    fixtures.assistant_id = (await created('/api/assistants', { name: 'Fuzz', custom_settings: { a: 1 } })).id;
    // Its first version, made with it.
    fixtures.version = 1;
    fixtures.property_id = (await created('/api/contact-properties', { key: 'plan', label: 'Plan', type: 'select', options: ['gold'] })).id;
    fixtures.contact_id = (await created('/api/contacts', { email: 'fixture@example.com', custom_fields: { plan: 'gold' } })).id;
    fixtures.endpoint_id = (await created('/api/organization/webhooks', { url: 'http://127.0.0.1:9/hook', event_types: ['*'] })).id;
    fixtures.tool_id = (
      await created('/api/tools', {
        name: 'fuzz_tool',
        type: 'http',
        parameters: { type: 'object', properties: { q: { type: 'string' } } },
        http: { url: 'https://api.example.com/search?q={{args.q}}', secret_headers: { Authorization: 'Bearer fuzz-secret-123456' } },
      })
    ).id;
    fixtures.document_id = (await created('/api/documents', { name: 'Fuzz document', text: '# Fuzz\n\nSome text.' })).id;
    fixtures.playbook_id = (
      await created('/api/playbooks', {
        name: 'Fuzz playbook',
        instructions: ['Ask for the order number'],
        tool_ids: [fixtures.tool_id],
        collect: [{ name: 'order_number', type: 'string', required: true }],
      })
    ).id;
    const connectionId: number = (await created('/api/phone-connections', { name: 'Carrier', sip_address: 'sip.example.com' })).id;
    fixtures.connection_id = connectionId;
    fixtures.phone_connection_id = connectionId;
    fixtures.number_id = (
      await created('/api/phone-numbers', { number: '+14155550100', phone_connection_id: fixtures.connection_id, assistant_id: fixtures.assistant_id })
    ).id;
    fixtures.call_sid = (await created('/api/web-calls', { assistant_id: fixtures.assistant_id })).call_sid;
    fixtures.campaign_id = (await created('/api/campaigns', { name: 'Fuzz campaign', assistant_id: fixtures.assistant_id, from_numbers: ['+14155550100'] })).id;
    const widgetKey = await created('/api/widget-keys', {
      name: 'Fuzz widget',
      assistant_id: fixtures.assistant_id,
      allowed_origins: ['https://shop.example.com'],
    });
    fixtures.widget_key_id = widgetKey.id;
    fixtures.widget_key = widgetKey.public_key;
    fixtures.chart_id = (await created('/api/analytics/charts', { name: 'Fuzz chart', metric: 'calls', group_by: ['day'] })).id;
    fixtures.track = 'mixed';
    fixtures.playbook_id ??= (await ctx.db.prisma.playbook.create({ data: { organizationId: tenant.organizationId, name: 'Fuzz test runs' } })).id;
    fixtures.test_run_id = (await created(`/api/assistants/${fixtures.assistant_id}/test-runs`, { script: ['Hello'] })).id;
    // A delivery exists once an event is queued for the endpoint; without one, the id still has to be well-formed.
    const deliveries = await ctx.call(tenant, 'GET', `/api/organization/webhooks/${fixtures.endpoint_id}/deliveries`);
    fixtures.delivery_id = deliveries.body.data?.[0]?.id ?? 1;

    const owner = await addPerson(ctx, tenant.organizationId, 'owner');
    const browser = new BrowserSession(ctx.app);
    await browser.signIn(owner.email, owner.password);
    sessionHeaders = { cookie: browser.cookieHeader(), 'x-csrf-token': browser.csrf };
    // Rows the session-only operations name; none of them is the session or key the suite itself uses.
    fixtures.user_id = (await addPerson(ctx, tenant.organizationId, 'member')).userId;
    fixtures.key_id = (await createApiKey(ctx.db.prisma, { organizationId: tenant.organizationId, userId: owner.userId, name: 'fuzz' })).id;
    const invited = await browser.api('POST', '/api/organization/invitations', { email: 'invited@example.com', role: 'member' });
    fixtures.invitation_id = JSON.parse(invited.body).data.id;
    await new BrowserSession(ctx.app).signIn(owner.email, owner.password);
    // A stored credential row is all the passkey routes name; its key is never checked by them.
    fixtures.passkey_id = (
      await ctx.db.prisma.passkey.create({
        data: { userId: owner.userId, credentialId: 'fuzz-credential', publicKey: Buffer.from('fuzz'), transports: [], name: 'Fuzz key' },
      })
    ).id;
    fixtures.session_id = (await ctx.db.prisma.session.findFirstOrThrow({ where: { userId: owner.userId }, orderBy: { id: 'desc' } })).id;
  });

  afterAll(async () => {
    await ctx?.close();
    await livekit?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const resolve = (schema: Schema | undefined): Schema => {
    let s = schema ?? {};
    for (let i = 0; i < 10 && typeof s.$ref === 'string'; i++) s = doc.components.schemas[s.$ref.split('/').pop()!];
    return s;
  };

  /** The first variant that is not null: what a valid request would send. */
  const concrete = (schema: Schema | undefined): Schema => {
    const s = resolve(schema);
    const variants = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
    if (!variants) return s;
    return concrete(variants.find((v) => resolve(v).type !== 'null') ?? variants[0]);
  };

  /** A small valid value for `schema`, fresh on each call where uniqueness matters (keys, numbers, emails). */
  const example = (schema: Schema | undefined, name?: string, depth = 0): unknown => {
    const s = concrete(schema);
    if (name !== undefined && name in fixtures && (s.type === 'integer' || s.type === 'string')) return fixtures[name];
    if (s.enum) return s.enum[0];
    if ('const' in s) return s.const;
    const n = ++sequence;
    switch (Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type) {
      case 'string':
        if (s.format === 'uri') return `https://example.com/fuzz${n}`;
        if (s.format === 'email') return `fuzz${n}@example.com`;
        if (s.format === 'e164') return `+1415556${String(n % 10_000).padStart(4, '0')}`;
        if (s.format === 'date-time') return new Date().toISOString();
        return `x${n}`.padEnd(s.minLength ?? 1, 'x');
      case 'integer':
      case 'number':
        return s.minimum ?? 1;
      case 'boolean':
        return true;
      case 'array':
        return depth > 8 ? [] : Array.from({ length: s.minItems ?? 0 }, () => example(s.items, undefined, depth + 1));
      case 'object': {
        const out: Record<string, unknown> = {};
        if (depth > 8) return out;
        for (const key of (s.required as string[] | undefined) ?? []) out[key] = example(s.properties?.[key], key, depth + 1);
        return out;
      }
      default:
        return 'x';
    }
  };

  /** Bodies whose generic example would be refused for a reason the schema cannot say: without them, no row is written. */
  const BASE_BODIES: Record<string, () => unknown> = {
    'POST /api/contacts': () => ({ email: `fuzz${++sequence}@example.com` }),
    'POST /api/contacts/import': () => ({ contacts: [{ email: `fuzz${++sequence}@example.com` }] }),
    'POST /api/assistants/{assistant_id}/test-runs': () => ({ script: ['Hello'] }),
    'POST /api/playbooks/{playbook_id}/test-runs': () => ({ script: ['Hello'], assistant_id: fixtures.assistant_id }),
    'POST /api/widget-keys': () => ({ name: 'Fuzz widget', assistant_id: fixtures.assistant_id, allowed_origins: ['https://shop.example.com'] }),
  };

  interface Slot {
    path: Key[];
    /** The JSON kinds the field takes, across its variants; `any` for a free-form value. */
    kinds: Set<string>;
    /** The schema of each container on the way, to build a missing one as a valid example. */
    containers: Schema[];
    freeForm: boolean;
  }

  const kindsOf = (schema: Schema | undefined, depth = 0): Set<string> => {
    const s = resolve(schema);
    const variants = [...(s.anyOf ?? []), ...(s.oneOf ?? [])] as Schema[];
    if (variants.length > 0 && depth < 10) return new Set(variants.flatMap((v) => [...kindsOf(v, depth + 1)]));
    if (s.enum) return new Set((s.enum as unknown[]).map((v) => typeof v));
    if (s.type === undefined) return new Set(['any']);
    return new Set(([] as string[]).concat(s.type).map((t) => (t === 'integer' ? 'number' : t)));
  };

  /** Every kind of wrong value, and the hostile values of the kinds the field takes (all of them for a free-form one). */
  const hostileValuesFor = (slot: Slot): [string, unknown][] => {
    const any = slot.kinds.has('any');
    return [...WRONG_KINDS, ...(any || slot.kinds.has('string') ? HOSTILE_TEXT_VALUES : []), ...(any || slot.kinds.has('number') ? HOSTILE_NUMBERS : [])];
  };

  /** Every place in a body a value can go: properties, array items and free-form entries, at every level. */
  const slots = (root: Schema): Slot[] => {
    const found = new Map<string, Slot>();
    const walk = (schema: Schema | undefined, at: Key[], containers: Schema[], depth: number) => {
      const s = resolve(schema);
      if (depth > 10) return;
      if (at.length > 0 && !found.has(JSON.stringify(at))) {
        found.set(JSON.stringify(at), { path: at, kinds: kindsOf(schema), containers, freeForm: false });
      }
      for (const variant of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])] as Schema[]) walk(variant, at, containers, depth + 1);
      for (const [key, child] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) walk(child, [...at, key], [...containers, s], depth + 1);
      if (s.additionalProperties !== undefined && s.additionalProperties !== false) {
        const slot = found.get(JSON.stringify(at));
        if (slot) slot.freeForm = true;
        const entry = s.additionalProperties === true ? {} : s.additionalProperties;
        walk(entry, [...at, 'fuzz_key'], [...containers, s], depth + 1);
      }
      if (s.type === 'array' && s.items) walk(s.items, [...at, 0], [...containers, s], depth + 1);
    };
    walk(root, [], [], 0);
    // The free-form root (e.g. an import row) is itself a place for hostile keys.
    const top = resolve(root);
    if (top.additionalProperties !== undefined && top.additionalProperties !== false)
      found.set('[]', { path: [], kinds: kindsOf(root), containers: [], freeForm: true });
    return [...found.values()];
  };

  const withValueAt = (base: unknown, slot: Slot, value: unknown): unknown => {
    if (slot.path.length === 0) return value;
    const root = structuredClone(base) as Record<Key, unknown>;
    let node: Record<Key, unknown> = root;
    slot.path.forEach((key, i) => {
      if (i === slot.path.length - 1) {
        node[key] = value;
        return;
      }
      const next = node[key];
      if (next === null || typeof next !== 'object') {
        const built = example(slot.containers[i + 1] ?? {}, undefined, 0);
        node[key] = built !== null && typeof built === 'object' ? built : typeof slot.path[i + 1] === 'number' ? [] : {};
      }
      node = node[key] as Record<Key, unknown>;
    });
    return root;
  };

  const operations = (): Operation[] => {
    const list: Operation[] = [];
    for (const [p, ops] of Object.entries(doc.paths as Record<string, Record<string, Schema>>)) {
      for (const [method, op] of Object.entries(ops)) list.push({ method: method.toUpperCase(), path: p, op });
    }
    // Deletions last, so that every other operation still finds the rows its path ids name.
    return list.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
  };

  const params = (operation: Operation, where: string): Schema[] => ((operation.op.parameters ?? []) as Schema[]).filter((p) => p.in === where);

  const urlOf = (operation: Operation, pathValues: Record<string, string> = {}, query = ''): string => {
    const filled = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      if (name in pathValues) return pathValues[name]!;
      if (!(name in fixtures)) throw new Error(`no fixture for the path parameter ${name} of ${operation.method} ${operation.path}: create one in beforeAll`);
      return encodeURIComponent(String(fixtures[name]));
    });
    return query ? `${filled}?${query}` : filled;
  };

  const jsonBodyOf = (operation: Operation): Schema | undefined => operation.op.requestBody?.content?.['application/json']?.schema;

  const baseBody = (operation: Operation): unknown => {
    const override = BASE_BODIES[`${operation.method} ${operation.path}`];
    if (override) return override();
    const schema = jsonBodyOf(operation);
    return schema ? example(schema) : undefined;
  };

  const isSessionOnly = (operation: Operation): boolean => (operation.op.security ?? []).some((s: Schema) => 'session' in s);
  const headersFor = (operation: Operation, extra: Record<string, string> = {}): Record<string, string> => ({
    ...(isSessionOnly(operation) ? sessionHeaders : { authorization: `Bearer ${tenant.key}` }),
    ...extra,
  });

  const jsonRequest = (operation: Operation, body: unknown, url = urlOf(operation), extraHeaders: Record<string, string> = {}): InjectOptions => ({
    method: operation.method as InjectOptions['method'],
    url,
    headers: headersFor(operation, body === undefined ? extraHeaders : { 'content-type': 'application/json', ...extraHeaders }),
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

  const variantsOf = (operation: Operation): Variant[] => {
    const out: Variant[] = [];
    const add = (name: string, request: InjectOptions) => out.push({ operation, name, request });
    const bodySchema = jsonBodyOf(operation);

    // Each body slot gets each hostile value; free-form objects also get hostile keys.
    if (bodySchema) {
      for (const slot of slots(bodySchema)) {
        const where = slot.path.length ? slot.path.join('.') : '(body)';
        for (const [label, value] of hostileValuesFor(slot))
          add(`body ${where} = ${label}`, jsonRequest(operation, withValueAt(baseBody(operation), slot, value)));
        if (slot.freeForm) {
          for (const [label, value] of HOSTILE_KEYS) add(`body ${where} = ${label}`, jsonRequest(operation, withValueAt(baseBody(operation), slot, value)));
        }
      }
    }

    // Each query parameter alone, with the rest of the request valid.
    for (const param of params(operation, 'query')) {
      const name = encodeURIComponent(param.name as string);
      for (const [label, text] of HOSTILE_TEXTS)
        add(`query ${param.name} = ${label}`, jsonRequest(operation, undefined, urlOf(operation, {}, `${name}=${text}`)));
      add(`query ${param.name} = very long`, jsonRequest(operation, undefined, urlOf(operation, {}, `${name}=${LONG_QUERY_VALUE}`)));
      add(`query ${param.name} repeated`, jsonRequest(operation, undefined, urlOf(operation, {}, `${name}=1&${name}=a%00&${name}=-5`)));
      add(`query ${param.name}[] bracketed`, jsonRequest(operation, undefined, urlOf(operation, {}, `${name}[]=1&${name}[x]=2`)));
    }
    // An unknown parameter is ignored, but its text must still be storable-safe (it may be logged or echoed).
    add('query unknown = NUL', jsonRequest(operation, undefined, urlOf(operation, {}, 'fuzz%00=a%00')));

    // Each path parameter alone, the others naming real rows; a body that would otherwise be valid, so only the path is wrong.
    const validBody = bodySchema ? baseBody(operation) : undefined;
    for (const param of params(operation, 'path')) {
      for (const [label, text] of [...HOSTILE_TEXTS.filter(([l]) => l !== 'empty'), ['very long', LONG_PATH_VALUE] as [string, string]]) {
        add(`path ${param.name} = ${label}`, jsonRequest(operation, validBody, urlOf(operation, { [param.name]: text })));
      }
    }

    // Each header parameter. An unpaired surrogate cannot travel in a header (header bytes are Latin-1 on the wire), so
    // only NUL, length and emptiness are tried.
    for (const param of params(operation, 'header')) {
      for (const [label, text] of [
        ['NUL', 'a\u0000b'],
        ['very long', 'z'.repeat(10_000)],
        ['empty', ''],
      ] as [string, string][]) {
        add(`header ${param.name} = ${label}`, jsonRequest(operation, validBody ?? {}, urlOf(operation), { [param.name]: text }));
      }
    }

    // Whole-body shapes, for every operation that can carry a body.
    if (['POST', 'PUT', 'PATCH', 'DELETE'].includes(operation.method)) {
      for (const [label, contentType, payload] of BODY_SHAPES) {
        add(label, {
          method: operation.method as InjectOptions['method'],
          url: urlOf(operation),
          headers: headersFor(operation, { 'content-type': contentType }),
          payload,
        });
      }
    }
    return out;
  };

  /** Why a response breaks the contract, or null when it keeps it. */
  const violation = (status: number, text: string): string | null => {
    if (status >= 500) return 'server error';
    if (status < 400) return null;
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      return 'error body is not JSON';
    }
    if (status === 422) {
      const detail = body?.detail;
      if (!Array.isArray(detail) || detail.length === 0) return '422 without a detail list';
      const wellFormed = detail.every(
        (d: any) =>
          Array.isArray(d?.loc) &&
          d.loc.length > 0 &&
          d.loc.every((p: unknown) => typeof p === 'string' || typeof p === 'number') &&
          typeof d.msg === 'string' &&
          typeof d.type === 'string',
      );
      return wellFormed ? null : '422 detail item without loc, msg and type';
    }
    if (body?.success !== false || typeof body.code !== 'string' || typeof body.message !== 'string')
      return 'error body is not {success: false, code, message}';
    return null;
  };

  it('answers every hostile variant of every documented operation with a 4xx in the documented shape, never 5xx', async () => {
    const all = operations();
    expect(all.length).toBeGreaterThanOrEqual(60);
    const variants = all.flatMap(variantsOf);
    const failures: string[] = [];
    const perOperation = new Map<string, number>();

    // Operations run one after another (deletions last); the variants of one operation run a few at a time.
    for (const operation of all) {
      const own = variants.filter((v) => v.operation === operation);
      perOperation.set(`${operation.method} ${operation.path}`, own.length);
      let next = 0;
      const worker = async () => {
        while (next < own.length) {
          const variant = own[next++]!;
          const res = await ctx.app.inject(variant.request);
          const problem = violation(res.statusCode, res.body);
          if (problem) failures.push(`${operation.method} ${operation.path} [${variant.name}] -> ${res.statusCode} ${problem}: ${res.body.slice(0, 200)}`);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    }

    // Nothing is skipped silently: every operation was sent something.
    for (const [name, count] of perOperation) expect(count, name).toBeGreaterThan(0);
    expect(failures, `${failures.length} of ${variants.length} hostile requests broke the contract:\n${failures.join('\n')}`).toEqual([]);
  }, 240_000);

  it('refuses a metadata or private address at every vendor URL of every documented body, with a 422 at the field', async () => {
    const INSIDE = ['http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/v1', 'http://[::ffff:192.168.1.1]/v1'];
    const failures: string[] = [];
    let checked = 0;
    // The suite above deleted its fixtures last: an assistant of this test's own for the update.
    const own = await ctx.call(tenant, 'POST', '/api/assistants', { name: 'Vendor URLs' });
    for (const operation of operations()) {
      const schema = jsonBodyOf(operation);
      if (!schema) continue;
      // The schema's `base_url` fields, and a `base_url` inside each free-form `provider_config` (the TTS vendor's).
      const targets = slots(schema).flatMap((slot) => {
        const last = slot.path[slot.path.length - 1];
        if (last === 'base_url') return [slot];
        if (last === 'provider_config' && slot.freeForm) return [{ ...slot, path: [...slot.path, 'base_url'], containers: [...slot.containers, {}] }];
        return [];
      });
      for (const slot of targets) {
        for (const url of INSIDE) {
          checked += 1;
          const body = withValueAt(baseBody(operation), slot, url) as Record<string, unknown>;
          // A TTS base URL is used only by the vendors that take one: name one.
          if (slot.path[0] === 'tts_settings') (body.tts_settings as Record<string, unknown>).provider = 'elevenlabs';
          const res = await ctx.app.inject(jsonRequest(operation, body, urlOf(operation, { assistant_id: String(own.body.id) })));
          const detail = res.statusCode === 422 ? (JSON.parse(res.body).detail as { loc: unknown[] }[]) : [];
          if (!detail.some((d) => JSON.stringify(d.loc) === JSON.stringify(['body', ...slot.path]))) {
            failures.push(`${operation.method} ${operation.path} ${slot.path.join('.')} = ${url} -> ${res.statusCode} ${res.body.slice(0, 200)}`);
          }
        }
      }
    }
    // The assistant's create and update, each with the LLM's, the fallbacks' and the TTS vendor's URL.
    expect(checked).toBeGreaterThanOrEqual(2 * 3 * 3);
    expect(failures).toEqual([]);
  }, 120_000);
});
