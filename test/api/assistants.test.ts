import { afterEach, describe, expect, vi } from 'vitest';
import { Assistant } from '../../modules/assistants/schemas.js';
import { AssistantReadCache } from '../../modules/assistants/cache.js';
import { readAssistantJson } from '../../modules/assistants/service.js';
import type { Db } from '../../prisma/client.js';
import type { Tenant } from '../helpers/api.js';
import { apiTest } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';
import crypto from 'node:crypto';
import { SecretBox } from '../../lib/secret-box.js';
import { keyContext } from '../../modules/assistants/keys.js';

/** The API seals vendor keys with it; the tests open what the rows hold with it. */
const secrets = new SecretBox(crypto.randomBytes(32));

// The spec's table of defaults, written out by hand so that a changed default fails here.
const SPEC_DEFAULTS = {
  description: null,
  is_active: true,
  llm_provider: 'openai',
  llm_provider_config: { base_url: null, custom_config: null, model: 'gpt-4.1-mini' },
  llm_settings: {
    system_prompt: 'You are a helpful assistant that can answer questions and help with tasks.',
    welcome_message: null,
    temperature: 0.5,
    top_p: 1,
    max_tokens: 1000,
    frequency_penalty: 0,
    presence_penalty: 0,
    stop_sequences: [],
  },
  llm_fallback_providers: { enabled: false, fallbacks: [] },
  stt_settings: {
    provider: 'deepgram',
    model: 'nova-3',
    language: 'en',
    language_hints: [],
    keyterms: [],
    punctuate: true,
    smart_format: true,
    endpoint_latency_adjustment_level: null,
    endpoint_sensitivity: null,
    turn_detection: { mode: 'turn_detector', min_endpointing_delay: 0.3, max_endpointing_delay: 2.5 },
  },
  tts_settings: { provider: 'elevenlabs', voice_id: null, model_id: null, provider_config: {} },
  rag_settings: {
    enabled: false,
    auto_process: true,
    chunking_strategy: 'recursive',
    chunk_size: 1000,
    chunk_overlap: 200,
    embedding_model: 'local/use-lite',
    search_limit: 3,
    similarity_threshold: 0.7,
    include_metadata: true,
    context_budget: 8000,
    context_window_tokens: 4000,
    max_prompt_doc_tokens: 2000,
    history_strategy: 'sliding_window',
    max_history_turns: 20,
  },
  recording_settings: {
    recording_enabled: true,
    recording_format: 'mp3',
    record_user_audio: true,
    record_assistant_audio: true,
    record_mixed_audio: true,
    consent_required: false,
    consent_prompt: '',
  },
  interruption_settings: {
    allow_interruptions: true,
    allow_welcome_interruption: true,
    min_interruption_duration: 0.5,
    min_interruption_words: 1,
    false_interruption_timeout: 2,
    resume_false_interruption: true,
  },
  idle_message: "Are you still there? I'm here to help if you need anything.",
  idle_timeout: null,
  max_idle_messages: null,
  call_start_lookup: { url: null, secret: null, timeout_ms: 2000 },
  realtime_settings: { enabled: false, provider: 'openai', model: null, voice: null, base_url: null, turn_detection: 'server_vad' },
  languages: [],
  custom_settings: null,
  playbook_ids: null,
  privacy_mode: null,
  assigned_documents: [],
  assigned_tools: [],
};

const it = apiTest
  .extend('apiOptions', { scope: 'file' }, { secrets })
  .extend(
    'create',
    { scope: 'file' },
    async ({ api, tenant }) =>
      (body: Record<string, unknown>) =>
        api.call(tenant, 'POST', '/api/assistants', body),
  )
  .extend(
    'patch',
    { scope: 'file' },
    async ({ api, tenant }) =>
      (id: number, body: unknown) =>
        api.call(tenant, 'PATCH', `/api/assistants/${id}`, body),
  );

describe('assistants', () => {
  describe('create', () => {
    it('fills every omitted field with the spec default and returns the object without an envelope', async ({ tenant, create }) => {
      const res = await create({ name: 'Receptionist' });
      expect(res.status).toBe(201);
      const { id, name, organization_id, user_id, created_at, updated_at, warnings: _warnings, version, ...rest } = res.body;
      expect(rest).toEqual(SPEC_DEFAULTS);
      expect(version).toBe(1);
      expect(name).toBe('Receptionist');
      expect(organization_id).toBe(tenant.organizationId);
      expect(user_id).toBe(tenant.userId);
      expect(Number.isInteger(id)).toBe(true);
      expect(new Date(created_at).toISOString()).toBe(created_at);
      expect(updated_at).toBe(created_at);
      expect(Assistant.safeParse(res.body).success).toBe(true);
    });

    it('returns the spec fields in a stable order, the required ones first', async ({ create }) => {
      const res = await create({ name: 'Ordered' });
      expect(Object.keys(res.body).slice(0, 6)).toEqual(['id', 'name', 'organization_id', 'user_id', 'created_at', 'updated_at']);
      expect(Object.keys(res.body.stt_settings)).toEqual(Object.keys(SPEC_DEFAULTS.stt_settings));
    });

    it('keeps every given nested value and defaults the rest of that object', async ({ create }) => {
      const res = await create({ name: 'A', stt_settings: { language: 'de', turn_detection: { mode: 'text_turn_detector' } } });
      expect(res.status).toBe(201);
      expect(res.body.stt_settings).toEqual({
        ...SPEC_DEFAULTS.stt_settings,
        language: 'de',
        turn_detection: { ...SPEC_DEFAULTS.stt_settings.turn_detection, mode: 'text_turn_detector' },
      });
    });

    it('requires a name', async ({ create }) => {
      const res = await create({});
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }]);
    });

    it('rejects a blank name', async ({ create }) => {
      const res = await create({ name: '   ' });
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'name'], type: 'string_too_short' });
    });

    it.for([0, 1, 2, 3])('accepts endpoint_latency_adjustment_level %s', async (level, { create }) => {
      const res = await create({ name: 'A', stt_settings: { endpoint_latency_adjustment_level: level } });
      expect(res.status).toBe(201);
      expect(res.body.stt_settings.endpoint_latency_adjustment_level).toBe(level);
    });

    it.for([
      [-1, 'greater_than_equal'],
      [4, 'less_than_equal'],
      [1.5, 'int_type'],
      ['2', 'int_type'],
    ])('rejects endpoint_latency_adjustment_level %j with %s', async ([level, type], { create }) => {
      const res = await create({ name: 'A', stt_settings: { endpoint_latency_adjustment_level: level } });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'stt_settings', 'endpoint_latency_adjustment_level'], type })]);
    });

    it.for([-1, -0.5, 0, 0.25, 1])('accepts endpoint_sensitivity %s', async (value, { create }) => {
      const res = await create({ name: 'A', stt_settings: { endpoint_sensitivity: value } });
      expect(res.status).toBe(201);
      expect(res.body.stt_settings.endpoint_sensitivity).toBe(value);
    });

    it.for([
      [-1.01, 'greater_than_equal', 'Input should be greater than or equal to -1'],
      [1.01, 'less_than_equal', 'Input should be less than or equal to 1'],
      ['high', 'float_type', 'Input should be a valid number'],
    ])('rejects endpoint_sensitivity %j with %s', async ([value, type, msg], { create }) => {
      const res = await create({ name: 'A', stt_settings: { endpoint_sensitivity: value } });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([{ loc: ['body', 'stt_settings', 'endpoint_sensitivity'], msg, type }]);
    });

    it('rejects an unknown turn-detection mode with the allowed values', async ({ create }) => {
      const res = await create({ name: 'A', stt_settings: { turn_detection: { mode: 'vad_only' } } });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([
        { loc: ['body', 'stt_settings', 'turn_detection', 'mode'], msg: "Input should be 'turn_detector' or 'text_turn_detector'", type: 'enum' },
      ]);
    });

    it('rejects a min endpointing delay above the max', async ({ create }) => {
      const res = await create({ name: 'A', stt_settings: { turn_detection: { min_endpointing_delay: 3, max_endpointing_delay: 1 } } });
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'stt_settings', 'turn_detection', 'max_endpointing_delay'], type: 'greater_than_equal' });
    });

    it.for(['openai', 'anthropic', 'google', 'groq', 'mistral', 'custom'])('accepts llm_provider %s', async (provider, { create }) => {
      const res = await create({ name: 'A', llm_provider: provider });
      expect(res.status).toBe(201);
      expect(res.body.llm_provider).toBe(provider);
    });

    it.for([
      [{ llm_provider: 'OpenAI' }, ['body', 'llm_provider'], 'enum'],
      [{ stt_settings: { provider: 'whisper' } }, ['body', 'stt_settings', 'provider'], 'enum'],
      [{ tts_settings: { provider: 'polly' } }, ['body', 'tts_settings', 'provider'], 'enum'],
      [{ llm_settings: { temperature: 2.1 } }, ['body', 'llm_settings', 'temperature'], 'less_than_equal'],
      [{ llm_settings: { top_p: -0.1 } }, ['body', 'llm_settings', 'top_p'], 'greater_than_equal'],
      [{ llm_settings: { max_tokens: 0 } }, ['body', 'llm_settings', 'max_tokens'], 'greater_than_equal'],
      [{ llm_settings: { stop_sequences: ['ok', 3] } }, ['body', 'llm_settings', 'stop_sequences', 1], 'string_type'],
      [{ llm_provider_config: { base_url: 'not a url' } }, ['body', 'llm_provider_config', 'base_url'], 'url_parsing'],
      [{ llm_fallback_providers: { enabled: true, fallbacks: [{ model: 'x' }] } }, ['body', 'llm_fallback_providers', 'fallbacks', 0, 'provider'], 'missing'],
      [{ rag_settings: { chunk_size: 500, chunk_overlap: 500 } }, ['body', 'rag_settings', 'chunk_overlap'], 'less_than'],
      [{ rag_settings: { similarity_threshold: 1.5 } }, ['body', 'rag_settings', 'similarity_threshold'], 'less_than_equal'],
      [{ rag_settings: { history_strategy: 'everything' } }, ['body', 'rag_settings', 'history_strategy'], 'enum'],
      [{ recording_settings: { recording_format: 'ogg' } }, ['body', 'recording_settings', 'recording_format'], 'enum'],
      [{ recording_settings: { consent_required: 'yes' } }, ['body', 'recording_settings', 'consent_required'], 'bool_type'],
      [{ interruption_settings: { min_interruption_duration: -1 } }, ['body', 'interruption_settings', 'min_interruption_duration'], 'greater_than_equal'],
      [{ interruption_settings: { min_interruption_words: 0.5 } }, ['body', 'interruption_settings', 'min_interruption_words'], 'int_type'],
      [{ idle_timeout: 0 }, ['body', 'idle_timeout'], 'greater_than_equal'],
      [{ max_idle_messages: -1 }, ['body', 'max_idle_messages'], 'greater_than_equal'],
      [{ custom_settings: [1, 2] }, ['body', 'custom_settings'], 'dict_type'],
      [{ tts_settings: { provider_config: null } }, ['body', 'tts_settings', 'provider_config'], 'dict_type'],
      [{ is_active: 'true' }, ['body', 'is_active'], 'bool_type'],
      [{ playbook_ids: ['1'] }, ['body', 'playbook_ids', 0], 'int_type'],
      [{ languages: [{ language: 'en-GB' }] }, ['body', 'languages', 0, 'language'], 'value_error'],
      [{ languages: [{ language: 'es' }, { language: 'es-MX' }] }, ['body', 'languages', 1, 'language'], 'value_error'],
      [{ languages: [{ language: 'spanish please' }] }, ['body', 'languages', 0, 'language'], 'string_pattern_mismatch'],
      [{ languages: [{ language: 'es', voice: 'x' }] }, ['body', 'languages', 0, 'voice'], 'extra_forbidden'],
    ] as const)('rejects %j at its location', async ([body, loc, type], { create }) => {
      const res = await create({ name: 'A', ...body });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
      for (const item of res.body.detail) {
        expect(Object.keys(item).sort()).toEqual(['loc', 'msg', 'type']);
      }
    });

    it('reports every problem of a request at once', async ({ create }) => {
      const res = await create({ stt_settings: { endpoint_sensitivity: 3, endpoint_latency_adjustment_level: 9 } });
      expect(res.status).toBe(422);
      expect(res.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual([
        'body.name',
        'body.stt_settings.endpoint_latency_adjustment_level',
        'body.stt_settings.endpoint_sensitivity',
      ]);
    });
  });

  describe('read', () => {
    it('returns the same object as the create did', async ({ api, tenant, create }) => {
      const created = await create({ name: 'Read me', description: 'd', idle_timeout: 10, max_idle_messages: 2 });
      const res = await api.call(tenant, 'GET', `/api/assistants/${created.body.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(created.body);
    });

    it('answers 404 for an id that does not exist', async ({ api, tenant }) => {
      const res = await api.call(tenant, 'GET', '/api/assistants/2147483647');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, message: 'Assistant not found', code: 'not_found' });
    });

    it('fills a settings field that a stored row predates with its default', async ({ api, tenant, create }) => {
      const created = await create({ name: 'Old row' });
      await api.db.prisma.$executeRaw`UPDATE assistants SET stt_settings = stt_settings - 'keyterms' - 'turn_detection' WHERE id = ${created.body.id}`;
      const res = await api.call(tenant, 'GET', `/api/assistants/${created.body.id}`);
      expect(res.body.stt_settings).toEqual(SPEC_DEFAULTS.stt_settings);
    });
  });

  describe('list', () => {
    it('pages newest first with page and per_page, in the envelope', async ({ api }) => {
      const own = await api.tenant();
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) ids.push((await api.call(own, 'POST', '/api/assistants', { name: `L${i}` })).body.id);
      const first = await api.call(own, 'GET', '/api/assistants?per_page=2');
      expect(first.status).toBe(200);
      expect(first.body.success).toBe(true);
      expect(typeof first.body.message).toBe('string');
      expect(first.body.data.map((a: { id: number }) => a.id)).toEqual([ids[4], ids[3]]);
      expect(first.body.pagination).toEqual({ page: 1, per_page: 2, total: 5, total_pages: 3 });
      const last = await api.call(own, 'GET', '/api/assistants?per_page=2&page=3');
      expect(last.body.data.map((a: { id: number }) => a.id)).toEqual([ids[0]]);
      const beyond = await api.call(own, 'GET', '/api/assistants?per_page=2&page=4');
      expect(beyond.body.data).toEqual([]);
      expect(beyond.body.pagination.total).toBe(5);
    });

    it('defaults to 20 per page and allows at most 100', async ({ api }) => {
      const own = await api.tenant();
      const res = await api.call(own, 'GET', '/api/assistants');
      expect(res.body.pagination).toEqual({ page: 1, per_page: 20, total: 0, total_pages: 0 });
      expect((await api.call(own, 'GET', '/api/assistants?per_page=100')).status).toBe(200);
      expect((await api.call(own, 'GET', '/api/assistants?per_page=101')).status).toBe(422);
    });
  });

  describe('partial update', () => {
    it('merges nested settings field by field and keeps everything else', async ({ create, patch }) => {
      const created = await create({ name: 'P', stt_settings: { language: 'fr', keyterms: ['Acme'] } });
      const res = await patch(created.body.id, { stt_settings: { punctuate: false, turn_detection: { max_endpointing_delay: 4 } } });
      expect(res.status).toBe(200);
      expect(res.body.stt_settings).toEqual({
        ...SPEC_DEFAULTS.stt_settings,
        language: 'fr',
        keyterms: ['Acme'],
        punctuate: false,
        turn_detection: { ...SPEC_DEFAULTS.stt_settings.turn_detection, max_endpointing_delay: 4 },
      });
      expect(res.body.name).toBe('P');
      expect(new Date(res.body.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(created.body.updated_at).getTime());
    });

    it('replaces arrays and free-form objects whole', async ({ create, patch }) => {
      const created = await create({ name: 'P', stt_settings: { keyterms: ['a', 'b'] }, custom_settings: { x: 1, y: 2 } });
      const res = await patch(created.body.id, { stt_settings: { keyterms: ['c'] }, custom_settings: { z: 3 } });
      expect(res.body.stt_settings.keyterms).toEqual(['c']);
      expect(res.body.custom_settings).toEqual({ z: 3 });
    });

    it('sets a nullable field to null when null is sent', async ({ create, patch }) => {
      const created = await create({ name: 'P', description: 'x', idle_timeout: 30, llm_settings: { welcome_message: 'Hi' } });
      const res = await patch(created.body.id, { description: null, idle_timeout: null, idle_message: null, llm_settings: { welcome_message: null } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ description: null, idle_timeout: null, idle_message: null });
      expect(res.body.llm_settings.welcome_message).toBeNull();
    });

    it('rejects null for a field that is not nullable, and changes nothing', async ({ api, tenant, create, patch }) => {
      const created = await create({ name: 'P' });
      const res = await patch(created.body.id, { name: null, stt_settings: { language: null } });
      expect(res.status).toBe(422);
      expect(res.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual(['body.name', 'body.stt_settings.language']);
      expect((await api.call(tenant, 'GET', `/api/assistants/${created.body.id}`)).body).toEqual(created.body);
    });

    it('checks cross-field rules against the merged result', async ({ create, patch }) => {
      const created = await create({ name: 'P' });
      const res = await patch(created.body.id, { stt_settings: { turn_detection: { min_endpointing_delay: 3 } } });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['body', 'stt_settings', 'turn_detection', 'max_endpointing_delay']);
    });

    it('rejects unknown fields in a patch', async ({ create, patch }) => {
      const created = await create({ name: 'P' });
      const res = await patch(created.body.id, { llm_settings: { temp: 1 } });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([{ loc: ['body', 'llm_settings', 'temp'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }]);
    });

    it('keeps both of two concurrent patches to different fields', async ({ api, tenant, create, patch }) => {
      const created = await create({ name: 'P' });
      await Promise.all([
        patch(created.body.id, { llm_settings: { temperature: 0.9 } }),
        patch(created.body.id, { llm_settings: { top_p: 0.5 } }),
        patch(created.body.id, { stt_settings: { language: 'es' } }),
      ]);
      const res = await api.call(tenant, 'GET', `/api/assistants/${created.body.id}`);
      expect(res.body.llm_settings).toMatchObject({ temperature: 0.9, top_p: 0.5 });
      expect(res.body.stt_settings.language).toBe('es');
    });

    it('answers 404 for an id that does not exist', async ({ patch }) => {
      expect((await patch(2147483647, { name: 'x' })).status).toBe(404);
    });
  });

  describe('fallback provider keys', () => {
    it('are never returned, and a mask sent back keeps the stored key', async ({ api, create, patch }) => {
      const secret = 'sk-live-abcdefghijklmnop1234';
      const created = await create({
        name: 'F',
        llm_fallback_providers: { enabled: true, fallbacks: [{ provider: 'anthropic', api_key: secret, model: 'claude' }] },
      });
      expect(created.status).toBe(201);
      expect(JSON.stringify(created.body)).not.toContain('abcdefghijklmnop');
      const masked = created.body.llm_fallback_providers.fallbacks[0].api_key;
      expect(masked).toBe('****1234');
      // Read, change one field, write the whole object back.
      const fallbacks = created.body.llm_fallback_providers.fallbacks.map((f: object) => ({ ...f, model: 'claude-2' }));
      const res = await patch(created.body.id, { llm_fallback_providers: { fallbacks } });
      expect(res.body.llm_fallback_providers.fallbacks[0]).toEqual({ provider: 'anthropic', api_key: '****1234', base_url: null, model: 'claude-2' });
      const row = await api.db.prisma.assistant.findUniqueOrThrow({ where: { id: created.body.id } });
      const stored = (row.llmFallbackProviders as { fallbacks: { api_key: string }[] }).fallbacks[0]!.api_key;
      expect(secrets.open(stored, keyContext(row.organizationId))).toBe(secret);
    });

    it('are replaced when a new key is sent', async ({ api, create, patch }) => {
      const created = await create({ name: 'F', llm_fallback_providers: { fallbacks: [{ provider: 'groq', api_key: 'gsk_old_key_1234567890' }] } });
      await patch(created.body.id, { llm_fallback_providers: { fallbacks: [{ provider: 'groq', api_key: 'gsk_new_key_0987654321' }] } });
      const row = await api.db.prisma.assistant.findUniqueOrThrow({ where: { id: created.body.id } });
      const stored = (row.llmFallbackProviders as { fallbacks: { api_key: string }[] }).fallbacks[0]!.api_key;
      expect(secrets.open(stored, keyContext(row.organizationId))).toBe('gsk_new_key_0987654321');
    });
  });

  describe('assigned tools, documents and playbooks', () => {
    let other: Tenant;
    let tool: number;
    let disabledTool: number;
    let document: number;
    let playbooks: number[];
    let foreignTool: number;
    it.beforeAll(async ({ api, tenant }) => {
      other = await api.tenant();
      const p = api.db.prisma;
      tool = (await p.tool.create({ data: { organizationId: tenant.organizationId, name: 'lookup' } })).id;
      disabledTool = (await p.tool.create({ data: { organizationId: tenant.organizationId, name: 'off', enabled: false } })).id;
      document = (await p.document.create({ data: { organizationId: tenant.organizationId, name: 'faq.md' } })).id;
      playbooks = [
        (await p.playbook.create({ data: { organizationId: tenant.organizationId, name: 'a' } })).id,
        (await p.playbook.create({ data: { organizationId: tenant.organizationId, name: 'b' } })).id,
      ];
      foreignTool = (await p.tool.create({ data: { organizationId: other.organizationId, name: 'theirs' } })).id;
    });

    it('stores the lists in the order given, without duplicates', async ({ create }) => {
      const res = await create({ name: 'T', assigned_tools: [tool, tool], assigned_documents: [document], playbook_ids: [playbooks[1], playbooks[0]] });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ assigned_tools: [tool], assigned_documents: [document], playbook_ids: [playbooks[1], playbooks[0]] });
    });

    it('tells null playbook_ids from an empty list', async ({ create, patch }) => {
      const empty = await create({ name: 'T', playbook_ids: [] });
      expect(empty.body.playbook_ids).toEqual([]);
      const cleared = await patch(empty.body.id, { playbook_ids: null });
      expect(cleared.body.playbook_ids).toBeNull();
    });

    it("rejects another organisation's tool exactly like a missing one", async ({ create }) => {
      const foreign = await create({ name: 'T', assigned_tools: [foreignTool] });
      const missing = await create({ name: 'T', assigned_tools: [2147483000] });
      expect(foreign.status).toBe(422);
      expect(foreign.body.detail).toEqual([{ loc: ['body', 'assigned_tools', 0], msg: `Tool ${foreignTool} does not exist`, type: 'value_error' }]);
      expect(missing.body.detail[0].msg).toBe('Tool 2147483000 does not exist');
    });

    it('rejects a disabled tool, a missing document and a missing playbook at their positions', async ({ create }) => {
      const res = await create({ name: 'T', assigned_tools: [tool, disabledTool], assigned_documents: [999999], playbook_ids: [playbooks[0], 999998] });
      expect(res.status).toBe(422);
      expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
        ['body', 'assigned_tools', 1],
        ['body', 'assigned_documents', 0],
        ['body', 'playbook_ids', 1],
      ]);
    });

    it('lists only enabled tools, and keeps a tool disabled later assigned for when it is enabled again', async ({ api, tenant, create, patch }) => {
      const extra = (await api.db.prisma.tool.create({ data: { organizationId: tenant.organizationId, name: 'later' } })).id;
      const created = await create({ name: 'T', assigned_tools: [tool, extra] });
      await api.db.prisma.tool.update({ where: { id: extra }, data: { enabled: false } });
      expect((await api.call(tenant, 'GET', `/api/assistants/${created.body.id}`)).body.assigned_tools).toEqual([tool]);
      await patch(created.body.id, { description: 'unrelated change' });
      await api.db.prisma.tool.update({ where: { id: extra }, data: { enabled: true } });
      expect((await api.call(tenant, 'GET', `/api/assistants/${created.body.id}`)).body.assigned_tools).toEqual([tool, extra]);
    });

    it('replaces a list on patch and leaves the others alone', async ({ create, patch }) => {
      const created = await create({ name: 'T', assigned_tools: [tool], assigned_documents: [document] });
      const res = await patch(created.body.id, { assigned_tools: [] });
      expect(res.body).toMatchObject({ assigned_tools: [], assigned_documents: [document] });
    });
  });

  describe('delete', () => {
    it('answers 204, then the assistant is gone', async ({ api, tenant, create }) => {
      const created = await create({ name: 'D' });
      const res = await api.call(tenant, 'DELETE', `/api/assistants/${created.body.id}`);
      expect(res.status).toBe(204);
      expect(res.body).toBeUndefined();
      expect((await api.call(tenant, 'GET', `/api/assistants/${created.body.id}`)).status).toBe(404);
      expect((await api.call(tenant, 'DELETE', `/api/assistants/${created.body.id}`)).status).toBe(404);
    });
  });
});

describe("another organisation's assistant", () => {
  let owner: Tenant;
  let stranger: Tenant;
  let id: number;
  it.beforeAll(async ({ api }) => {
    owner = await api.tenant();
    stranger = await api.tenant();
    id = (await api.call(owner, 'POST', '/api/assistants', { name: 'Private' })).body.id;
  });

  it.for([
    ['GET', undefined],
    ['PATCH', { name: 'Hijacked' }],
    ['PATCH', { stt_settings: { endpoint_sensitivity: 9 } }],
    ['DELETE', undefined],
  ] as const)('answers %s exactly as for a missing id (404) and changes nothing', async ([method, body], { api }) => {
    const theirs = await api.call(stranger, method, `/api/assistants/${id}`, body);
    const missing = await api.call(stranger, method, '/api/assistants/2147483646', body);
    expect({ status: theirs.status, body: theirs.body }).toEqual({ status: missing.status, body: missing.body });
    if (method === 'PATCH' && body && 'stt_settings' in body) {
      // Validation runs before the lookup for everyone, so a 422 reveals nothing about the id.
      expect(theirs.status).toBe(422);
    } else {
      expect(theirs.status).toBe(404);
    }
    const mine = await api.call(owner, 'GET', `/api/assistants/${id}`);
    expect(mine.status).toBe(200);
    expect(mine.body.name).toBe('Private');
  });

  it("never appears in the other organisation's list", async ({ api }) => {
    const res = await api.call(stranger, 'GET', '/api/assistants?per_page=100');
    expect(res.body.data).toEqual([]);
    expect(res.body.pagination.total).toBe(0);
  });
});

describe('the assistant read cache', () => {
  it('serves a write by this process on the very next read', async ({ api, tenant }) => {
    const created = await api.call(tenant, 'POST', '/api/assistants', { name: 'Before' });
    await api.call(tenant, 'GET', `/api/assistants/${created.body.id}`);
    await api.call(tenant, 'PATCH', `/api/assistants/${created.body.id}`, { name: 'After' });
    expect((await api.call(tenant, 'GET', `/api/assistants/${created.body.id}`)).body.name).toBe('After');
    await api.call(tenant, 'DELETE', `/api/assistants/${created.body.id}`);
    expect((await api.call(tenant, 'GET', `/api/assistants/${created.body.id}`)).status).toBe(404);
  });

  it('drops an entry when another process changes the assistant in the database', async ({ api, tenant }) => {
    const created = await api.call(tenant, 'POST', '/api/assistants', { name: 'Cached' });
    const id = created.body.id;
    expect((await api.call(tenant, 'GET', `/api/assistants/${id}`)).body.name).toBe('Cached');
    // Written straight to the database, as another API process or an operator would.
    await api.db.prisma.$executeRaw`UPDATE assistants SET name = 'Changed elsewhere' WHERE id = ${id}`;
    await until(async () => (await api.call(tenant, 'GET', `/api/assistants/${id}`)).body.name === 'Changed elsewhere');
  });

  it('drops an entry when an assigned tool is disabled', async ({ api, tenant }) => {
    const tool = await api.db.prisma.tool.create({ data: { organizationId: tenant.organizationId, name: 'cached-tool' } });
    const created = await api.call(tenant, 'POST', '/api/assistants', { name: 'T', assigned_tools: [tool.id] });
    expect((await api.call(tenant, 'GET', `/api/assistants/${created.body.id}`)).body.assigned_tools).toEqual([tool.id]);
    await api.db.prisma.tool.update({ where: { id: tool.id }, data: { enabled: false } });
    await until(async () => (await api.call(tenant, 'GET', `/api/assistants/${created.body.id}`)).body.assigned_tools.length === 0);
  });

  it("answers another organisation's key with 404 from a cached entry too", async ({ api, tenant }) => {
    const stranger = await api.tenant();
    const created = await api.call(tenant, 'POST', '/api/assistants', { name: 'Mine' });
    await api.call(tenant, 'GET', `/api/assistants/${created.body.id}`);
    const res = await api.call(stranger, 'GET', `/api/assistants/${created.body.id}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, message: 'Assistant not found', code: 'not_found' });
  });

  it("takes the same path for another organisation's cached assistant as for a missing id: one database miss, the same 404", async ({ api, tenant }) => {
    const stranger = await api.tenant();
    const created = await api.call(tenant, 'POST', '/api/assistants', { name: 'Cached for its owner' });
    const id = created.body.id as number;
    // Counts every query on the assistants table made through this client.
    let queries = 0;
    const counted = new Proxy(api.db.prisma, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (prop !== 'assistant') return value;
        return new Proxy(value as object, {
          get(model, method) {
            const fn = Reflect.get(model, method) as unknown;
            return typeof fn === 'function' ? (...args: unknown[]) => ((queries += 1), (fn as (...a: unknown[]) => unknown).apply(model, args)) : fn;
          },
        });
      },
    }) as unknown as Db;
    const cache = new AssistantReadCache(60_000);
    const outcome = async (organizationId: number, assistantId: number) => {
      const before = queries;
      const result = await readAssistantJson(counted, cache, organizationId, assistantId, secrets).then(
        (json) => ({ json }),
        (error: { kind: string; code: string; message: string }) => ({ kind: error.kind, code: error.code, message: error.message }),
      );
      return { result, queries: queries - before };
    };

    // The owner's first read fills the cache; the second costs no query.
    expect((await outcome(tenant.organizationId, id)).queries).toBe(1);
    expect(await outcome(tenant.organizationId, id)).toEqual({ result: { json: expect.any(String) }, queries: 0 });
    const theirs = await outcome(stranger.organizationId, id);
    const missing = await outcome(stranger.organizationId, 2_147_483_646);
    expect(theirs).toEqual({ result: { kind: 'not_found', code: 'not_found', message: 'Assistant not found' }, queries: 1 });
    expect(missing).toEqual(theirs);
    // And the owner's entry is still served from the cache.
    expect((await outcome(tenant.organizationId, id)).queries).toBe(0);
  });
});

describe('warnings about vendor keys', () => {
  const VENDOR_KEYS = ['DEEPGRAM_API_KEY', 'ELEVENLABS_API_KEY', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'CUSTOM_BASE_URL'];
  afterEach(() => vi.unstubAllEnvs());
  // An empty variable is an unset one.
  const withoutKeys = () => VENDOR_KEYS.forEach((k) => vi.stubEnv(k, ''));

  it('names every default vendor whose key this service lacks, on create, read and list', async ({ api, tenant }) => {
    withoutKeys();
    const created = await api.call(tenant, 'POST', '/api/assistants', { name: 'Front desk' });
    expect(created.status).toBe(201);
    expect(created.body.warnings).toEqual([
      {
        code: 'missing_credentials',
        field: 'stt_settings.provider',
        message: 'STT provider deepgram needs DEEPGRAM_API_KEY, which is not set on this service',
      },
      {
        code: 'missing_credentials',
        field: 'tts_settings.provider',
        message:
          'TTS provider elevenlabs needs ELEVENLABS_API_KEY, which is not set on this service (or set tts_settings.provider_config.api_key on the assistant)',
      },
      {
        code: 'missing_credentials',
        field: 'llm_provider',
        message:
          'LLM provider openai needs OPENAI_API_KEY, which is not set on this service (or set llm_provider_config.custom_config.api_key on the assistant)',
      },
    ]);
    const read = await api.call(tenant, 'GET', `/api/assistants/${created.body.id}`);
    expect(read.body.warnings).toEqual(created.body.warnings);
    expect(Assistant.safeParse(read.body).success).toBe(true);
    const listed = await api.call(tenant, 'GET', '/api/assistants?per_page=100');
    expect(listed.body.data.find((a: { id: number }) => a.id === created.body.id).warnings).toEqual(created.body.warnings);
  });

  it('has none when the keys are set on the service', async ({ api, tenant }) => {
    withoutKeys();
    vi.stubEnv('DEEPGRAM_API_KEY', 'dg');
    vi.stubEnv('ELEVENLABS_API_KEY', 'xi');
    vi.stubEnv('OPENAI_API_KEY', 'sk');
    const created = await api.call(tenant, 'POST', '/api/assistants', { name: 'Keyed' });
    expect(created.body.warnings).toEqual([]);
    expect((await api.call(tenant, 'GET', `/api/assistants/${created.body.id}`)).body.warnings).toEqual([]);
  });

  it('has none for local speech and a custom LLM with its address, and none for keys the assistant carries', async ({ api, tenant }) => {
    withoutKeys();
    const local = await api.call(tenant, 'POST', '/api/assistants', {
      name: 'Offline',
      stt_settings: { provider: 'local' },
      tts_settings: { provider: 'local' },
      llm_provider: 'custom',
      llm_provider_config: { base_url: 'https://llm.example.com/v1', model: 'llama3.2' },
    });
    expect(local.body.warnings).toEqual([]);
    vi.stubEnv('DEEPGRAM_API_KEY', 'dg');
    const carried = await api.call(tenant, 'POST', '/api/assistants', {
      name: 'Own keys',
      tts_settings: { provider: 'elevenlabs', provider_config: { api_key: 'xi-own' } },
      llm_provider_config: { custom_config: { api_key: 'sk-own' } },
    });
    expect(carried.body.warnings).toEqual([]);
  });

  it('asks a custom LLM for its address, and an enabled fallback for its key', async ({ api, tenant }) => {
    withoutKeys();
    const res = await api.call(tenant, 'POST', '/api/assistants', {
      name: 'Gaps',
      stt_settings: { provider: 'local' },
      tts_settings: { provider: 'local' },
      llm_provider: 'custom',
      llm_fallback_providers: { enabled: true, fallbacks: [{ provider: 'openai', api_key: 'sk-fallback' }, { provider: 'anthropic' }] },
    });
    expect(res.body.warnings.map((w: { field: string }) => w.field)).toEqual(['llm_provider_config.base_url', 'llm_fallback_providers.fallbacks.1.provider']);
    expect(res.body.warnings[0].message).toContain('CUSTOM_BASE_URL');
    expect(res.body.warnings[1].message).toContain('ANTHROPIC_API_KEY');
  });
});
