import crypto from 'node:crypto';
import { describe, expect } from 'vitest';
import { SecretBox } from '../../lib/secret-box.js';
import { keyContext, sealClearAssistantKeys } from '../../modules/assistants/keys.js';
import { loadAssistantSettings } from '../../modules/assistants/store.js';
import { apiTest } from '../helpers/fixtures.js';

// Vendor keys in an assistant's settings are write-only and sealed at rest: no answer carries one, the row holds them
// sealed, a client that reads and writes back the assistant keeps them, and a call gets them opened.

const secrets = new SecretBox(crypto.randomBytes(32));

const LLM_KEY = 'sk-proj-llm-primary-key-000111';
const TTS_KEY = 'xi-tts-voice-key-000222';
const FALLBACK_KEY = 'sk-ant-fallback-key-000333';
const KEYS = [LLM_KEY, TTS_KEY, FALLBACK_KEY];

const WITH_KEYS = {
  name: 'Keyed',
  llm_provider: 'openai',
  llm_provider_config: { model: 'gpt-4.1-mini', custom_config: { api_key: LLM_KEY, seed: 7 } },
  tts_settings: { provider: 'elevenlabs', voice_id: 'v1', provider_config: { api_key: TTS_KEY, speed: 1.1 } },
  llm_fallback_providers: { enabled: true, fallbacks: [{ provider: 'anthropic', api_key: FALLBACK_KEY, model: 'claude' }] },
};

/** What the API must never answer: any of the keys, whole or in part beyond the last 4 characters of a mask. */
function expectNoKey(body: unknown): void {
  const text = JSON.stringify(body);
  for (const key of KEYS) expect(text).not.toContain(key.slice(0, -4));
}

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
    'row',
    { scope: 'file' },
    async ({ api }) =>
      (id: number) =>
        api.db.prisma.assistant.findUniqueOrThrow({ where: { id } }),
  );

interface KeyColumns {
  llmProviderConfig: unknown;
  ttsSettings: unknown;
  llmFallbackProviders: unknown;
}
const storedKeys = (row: KeyColumns) => [
  (row.llmProviderConfig as { custom_config: { api_key: string } }).custom_config.api_key,
  (row.ttsSettings as { provider_config: { api_key: string } }).provider_config.api_key,
  (row.llmFallbackProviders as { fallbacks: { api_key: string }[] }).fallbacks[0]!.api_key,
];

describe('assistant vendor keys', () => {
  it('are masked in the answer to create, in GET and in the list', async ({ api, tenant, create }) => {
    const created = await create(WITH_KEYS);
    expect(created.status).toBe(201);
    expectNoKey(created.body);
    expect(created.body.llm_provider_config.custom_config).toEqual({ api_key: '****0111', seed: 7 });
    expect(created.body.tts_settings.provider_config).toEqual({ api_key: '****0222', speed: 1.1 });
    expect(created.body.llm_fallback_providers.fallbacks[0].api_key).toBe('****0333');

    const read = await api.call(tenant, 'GET', `/api/assistants/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    const listed = await api.call(tenant, 'GET', '/api/assistants?per_page=100');
    expectNoKey(listed.body);
    expect(listed.body.data.find((a: { id: number }) => a.id === created.body.id)).toEqual(created.body);
  });

  it('are stored sealed for the organisation, never in the clear', async ({ create, row }) => {
    const created = await create(WITH_KEYS);
    const stored = await row(created.body.id);
    expectNoKey(stored);
    const sealed = storedKeys(stored);
    expect(sealed.every((s) => s.startsWith('v1.'))).toBe(true);
    expect(sealed.map((s) => secrets.open(s, keyContext(stored.organizationId)))).toEqual(KEYS);
    // Bound to the organisation: under another one's context it does not open.
    expect(() => secrets.open(sealed[0]!, keyContext(stored.organizationId + 1))).toThrow();
  });

  it('survive a client that reads the assistant, changes one field and writes it all back', async ({ api, tenant, create, row }) => {
    const created = await create(WITH_KEYS);
    const { id, organization_id: _o, user_id: _u, created_at: _c, updated_at: _up, warnings: _w, version: _v, ...fields } = created.body;
    const res = await api.call(tenant, 'PATCH', `/api/assistants/${id}`, { ...fields, description: 'edited' });
    expect(res.status).toBe(200);
    expect(res.body.description).toBe('edited');
    expectNoKey(res.body);
    expect(res.body.llm_provider_config.custom_config.api_key).toBe('****0111');
    const stored = await row(id);
    expect(storedKeys(stored).map((s) => secrets.open(s, keyContext(stored.organizationId)))).toEqual(KEYS);
    expectNoKey((await api.call(tenant, 'GET', `/api/assistants/${id}`)).body);
  });

  it('are kept by a patch that does not name them, and replaced by one that sends a new key', async ({ api, tenant, create, row }) => {
    const created = await create(WITH_KEYS);
    const id = created.body.id;
    await api.call(tenant, 'PATCH', `/api/assistants/${id}`, { llm_settings: { temperature: 0.9 }, llm_provider_config: { model: 'gpt-4.1' } });
    let stored = await row(id);
    expect(storedKeys(stored).map((s) => secrets.open(s, keyContext(stored.organizationId)))).toEqual(KEYS);

    const replaced = await api.call(tenant, 'PATCH', `/api/assistants/${id}`, { tts_settings: { provider_config: { api_key: 'xi-new-voice-key-999888' } } });
    expect(replaced.body.tts_settings.provider_config).toEqual({ api_key: '****9888' });
    stored = await row(id);
    expect(secrets.open(storedKeys(stored)[1]!, keyContext(stored.organizationId))).toBe('xi-new-voice-key-999888');
  });

  it('are never sent elsewhere unless sent again: a new provider or base_url without the key is refused', async ({ api, tenant, create, row }) => {
    const created = await create(WITH_KEYS);
    const id = created.body.id;
    const before = await row(id);
    const patch = (body: unknown) => api.call(tenant, 'PATCH', `/api/assistants/${id}`, body);

    const redirected = await patch({ llm_provider_config: { base_url: 'https://collector.example.com/v1' } });
    expect(redirected.status).toBe(422);
    expect(redirected.body.detail).toEqual([
      {
        loc: ['body', 'llm_provider_config', 'custom_config', 'api_key'],
        msg: 'The stored key is not sent to another provider or base_url: send the key again',
        type: 'value_error',
      },
    ]);
    expect((await patch({ llm_provider: 'groq' })).status).toBe(422);
    const masked = await patch({ tts_settings: { provider: 'cartesia', provider_config: created.body.tts_settings.provider_config } });
    expect(masked.status).toBe(422);
    expect(masked.body.detail[0].loc).toEqual(['body', 'tts_settings', 'provider_config', 'api_key']);
    const fallbacks = [{ ...created.body.llm_fallback_providers.fallbacks[0], base_url: 'https://collector.example.com/v1' }];
    expect((await patch({ llm_fallback_providers: { fallbacks } })).status).toBe(422);
    expect((await row(id)).updatedAt).toEqual(before.updatedAt);

    // With the key sent again, the move is the client's to make.
    const moved = await patch({ llm_provider_config: { base_url: 'https://proxy.example.com/v1', custom_config: { api_key: 'sk-proxy-key-123456789' } } });
    expect(moved.status).toBe(200);
    expect(moved.body.llm_provider_config).toMatchObject({ base_url: 'https://proxy.example.com/v1', custom_config: { api_key: '****6789' } });
    // A patch that drops the key moves nothing.
    const dropped = await patch({ llm_provider: 'anthropic', llm_provider_config: { custom_config: null } });
    expect(dropped.status).toBe(200);
  });

  it('follow their fallback when one above it is removed, and a mask that masks no stored key is refused, not stored', async ({ api, tenant, create, row }) => {
    const second = 'sk-ant-second-fallback-4242';
    const created = await create({
      ...WITH_KEYS,
      llm_fallback_providers: {
        enabled: true,
        fallbacks: [
          { provider: 'anthropic', api_key: FALLBACK_KEY, model: 'claude' },
          { provider: 'groq', api_key: second, model: 'llama' },
        ],
      },
    });
    const id = created.body.id;
    const [, groq] = created.body.llm_fallback_providers.fallbacks;
    // A form that removed the first row sends the second one back, its key as the mask it read.
    const removed = await api.call(tenant, 'PATCH', `/api/assistants/${id}`, { llm_fallback_providers: { fallbacks: [groq] } });
    expect(removed.status).toBe(200);
    const stored = await row(id);
    const fallbacks = (stored.llmFallbackProviders as { fallbacks: { provider: string; api_key: string }[] }).fallbacks;
    expect(fallbacks.map((f) => [f.provider, secrets.open(f.api_key, keyContext(stored.organizationId))])).toEqual([['groq', second]]);

    const bare = await create({ name: 'Copied', tts_settings: { provider: 'elevenlabs', provider_config: { api_key: '****0222' } } });
    expect(bare.status).toBe(422);
    expect(bare.body.detail).toEqual([
      {
        loc: ['body', 'tts_settings', 'provider_config', 'api_key'],
        msg: 'This is a masked key, not a key: send the key itself, or leave it out to keep the stored one',
        type: 'value_error',
      },
    ]);
  });

  it('refuses a key that is not a string', async ({ create }) => {
    const res = await create({ name: 'Odd', tts_settings: { provider_config: { api_key: { nested: 'xi-secret' } } } });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ loc: ['body', 'tts_settings', 'provider_config', 'api_key'], msg: 'api_key must be a string', type: 'string_type' }]);
  });

  it('reach the call runtime opened', async ({ api, tenant, create }) => {
    const created = await create(WITH_KEYS);
    const settings = (await loadAssistantSettings(api.db.prisma, tenant.organizationId, created.body.id, secrets))!;
    expect(settings.llm_provider_config.custom_config).toEqual({ api_key: LLM_KEY, seed: 7 });
    expect(settings.tts_settings.provider_config).toEqual({ api_key: TTS_KEY, speed: 1.1 });
    expect(settings.llm_fallback_providers.fallbacks[0]!.api_key).toBe(FALLBACK_KEY);
  });

  it('sealed under another SECRETS_KEY show a bare mask, count as missing, and reach no call', async ({ api, tenant, create }) => {
    const created = await create(WITH_KEYS);
    const stranger = new SecretBox(crypto.randomBytes(32));
    const settings = (await loadAssistantSettings(api.db.prisma, tenant.organizationId, created.body.id, stranger))!;
    expect(settings.llm_provider_config.custom_config).toEqual({ seed: 7 });
    expect(settings.llm_fallback_providers.fallbacks[0]!.api_key).toBeNull();
    // The same rows read by an API with another key.
    const other = await api.db.prisma.assistant.update({
      where: { id: created.body.id },
      data: {
        ttsSettings: {
          provider: 'elevenlabs',
          voice_id: 'v1',
          model_id: null,
          provider_config: { api_key: stranger.seal(TTS_KEY, keyContext(tenant.organizationId)) },
        },
      },
    });
    const read = await api.call(tenant, 'GET', `/api/assistants/${other.id}`);
    expect(read.body.tts_settings.provider_config.api_key).toBe('****');
    if (!process.env.ELEVENLABS_API_KEY) expect(read.body.warnings.map((w: { field: string }) => w.field)).toContain('tts_settings.provider');
  });
});

describe('assistant vendor keys stored in the clear by an earlier release', () => {
  /** An assistant row as a release that did not seal keys wrote it. */
  async function clearRow(api: { db: { prisma: import('../../prisma/client.js').PrismaClient } }, organizationId: number, userId: number) {
    return api.db.prisma.assistant.create({
      data: {
        organizationId,
        userId,
        name: 'Written before sealing',
        llmProvider: 'openai',
        llmProviderConfig: { base_url: null, model: 'gpt-4.1-mini', custom_config: { api_key: LLM_KEY } },
        llmSettings: {},
        llmFallbackProviders: { enabled: true, fallbacks: [{ provider: 'anthropic', api_key: FALLBACK_KEY, base_url: null, model: null }] },
        sttSettings: {},
        ttsSettings: { provider: 'elevenlabs', voice_id: null, model_id: null, provider_config: { api_key: TTS_KEY } },
        ragSettings: {},
        recordingSettings: {},
        interruptionSettings: {},
        updatedAt: new Date('2026-01-02T03:04:05.000Z'),
      },
    });
  }

  it('are read masked and reach a call as they are', async ({ api, tenant }) => {
    const written = await clearRow(api, tenant.organizationId, tenant.userId);
    const read = await api.call(tenant, 'GET', `/api/assistants/${written.id}`);
    expect(read.status).toBe(200);
    expectNoKey(read.body);
    expect(read.body.llm_provider_config.custom_config.api_key).toBe('****0111');
    const settings = (await loadAssistantSettings(api.db.prisma, tenant.organizationId, written.id, secrets))!;
    expect(settings.llm_provider_config.custom_config).toEqual({ api_key: LLM_KEY });
  });

  it('are sealed by the next write of the assistant, a mask sent back keeping them', async ({ api, tenant, row }) => {
    const written = await clearRow(api, tenant.organizationId, tenant.userId);
    const read = await api.call(tenant, 'GET', `/api/assistants/${written.id}`);
    const res = await api.call(tenant, 'PATCH', `/api/assistants/${written.id}`, { name: 'Renamed', tts_settings: read.body.tts_settings });
    expect(res.status).toBe(200);
    const stored = await row(written.id);
    expectNoKey(stored);
    expect(storedKeys(stored).map((s) => secrets.open(s, keyContext(tenant.organizationId)))).toEqual(KEYS);
  });

  it('are sealed by the start-up pass, which changes nothing else and finds nothing the second time', async ({ api, tenant, row }) => {
    const written = await clearRow(api, tenant.organizationId, tenant.userId);
    const before = await row(written.id);
    expect(await sealClearAssistantKeys(api.db.prisma, secrets)).toBeGreaterThanOrEqual(1);
    const after = await row(written.id);
    expectNoKey(after);
    expect(storedKeys(after).map((s) => secrets.open(s, keyContext(tenant.organizationId)))).toEqual(KEYS);
    expect(after.updatedAt).toEqual(before.updatedAt);
    expect(after.llmSettings).toEqual(before.llmSettings);
    expect((after.llmProviderConfig as Record<string, unknown>).model).toBe('gpt-4.1-mini');
    expect(await sealClearAssistantKeys(api.db.prisma, secrets)).toBe(0);
    const read = await api.call(tenant, 'GET', `/api/assistants/${written.id}`);
    expect(read.body.llm_provider_config.custom_config.api_key).toBe('****0111');
  });
});

describe("the call-start lookup's secret", () => {
  const SECRET = `whsec_${crypto.randomBytes(32).toString('base64')}`;
  const LOOKUP = { name: 'Looked up', call_start_lookup: { url: 'https://crm.example.com/voice/lookup', secret: SECRET, timeout_ms: 1500 } };

  it('is masked in every answer, stored sealed, and opened for a call', async ({ api, tenant, create, row }) => {
    const created = await create(LOOKUP);
    expect(created.status).toBe(201);
    expect(created.body.call_start_lookup).toEqual({ url: LOOKUP.call_start_lookup.url, secret: `****${SECRET.slice(-4)}`, timeout_ms: 1500 });
    const read = await api.call(tenant, 'GET', `/api/assistants/${created.body.id}`);
    expect(JSON.stringify(read.body)).not.toContain(SECRET.slice(6, -4));
    const stored = await row(created.body.id);
    const sealed = (stored.callStartLookup as { secret: string }).secret;
    expect(sealed.startsWith('v1.')).toBe(true);
    expect(JSON.stringify(stored)).not.toContain(SECRET.slice(6, -4));
    const loaded = await loadAssistantSettings(api.db.prisma, stored.organizationId, stored.id, secrets);
    expect(loaded!.call_start_lookup.secret).toBe(SECRET);
  });

  it('is kept when the URL changes or the read is written back, and replaced when a new one is sent', async ({ api, tenant, create, row }) => {
    const created = await create(LOOKUP);
    const id = created.body.id;
    const moved = await api.call(tenant, 'PATCH', `/api/assistants/${id}`, { call_start_lookup: { url: 'https://crm2.example.com/lookup' } });
    expect(moved.status).toBe(200);
    const writtenBack = await api.call(tenant, 'PATCH', `/api/assistants/${id}`, { call_start_lookup: moved.body.call_start_lookup });
    expect(writtenBack.status).toBe(200);
    const opened = async () => (await loadAssistantSettings(api.db.prisma, tenant.organizationId, id, secrets))!.call_start_lookup;
    expect(await opened()).toEqual({ url: 'https://crm2.example.com/lookup', secret: SECRET, timeout_ms: 1500 });
    const next = `whsec_${crypto.randomBytes(24).toString('base64')}`;
    expect((await api.call(tenant, 'PATCH', `/api/assistants/${id}`, { call_start_lookup: { secret: next } })).status).toBe(200);
    expect((await opened()).secret).toBe(next);
    expect(((await row(id)).callStartLookup as { secret: string }).secret.startsWith('v1.')).toBe(true);
  });

  it.for([
    [{ url: 'https://crm.example.com/lookup' }, 'call_start_lookup.secret', 'a lookup url needs a secret'],
    [{ url: 'https://crm.example.com/lookup', secret: 'hunter2-but-longer-than-twelve' }, 'call_start_lookup.secret', 'whsec_'],
    [{ url: 'https://crm.example.com/lookup', secret: `whsec_${crypto.randomBytes(8).toString('base64')}` }, 'call_start_lookup.secret', '24 to 64'],
    [{ url: 'https://crm.example.com/lookup', secret: '****abcd' }, 'call_start_lookup.secret', 'masked key'],
    [{ url: 'ftp://crm.example.com/lookup', secret: SECRET }, 'call_start_lookup.url', ''],
    [{ url: 'https://crm.example.com/lookup', secret: SECRET, timeout_ms: 60_000 }, 'call_start_lookup.timeout_ms', ''],
  ] as const)('refuses %o with a 422 at its field, storing nothing', async ([lookup, field, msg], { api, create }) => {
    const before = await api.db.prisma.assistant.count();
    const res = await create({ name: 'Refused', call_start_lookup: lookup });
    expect(res.status).toBe(422);
    const detail = res.body.detail.find((d: { loc: (string | number)[] }) => d.loc.join('.') === `body.${field}`);
    expect(detail?.msg).toContain(msg);
    expect(await api.db.prisma.assistant.count()).toBe(before);
  });
});
