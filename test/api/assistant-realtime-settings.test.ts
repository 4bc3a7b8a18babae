import { afterEach, describe, expect, vi } from 'vitest';
import { apiTest } from '../helpers/fixtures.js';

// An assistant's speech-to-speech model (realtime_settings): off by default, validated at its fields like the other
// vendor settings, its base_url judged as every vendor URL is, and the keys it needs named in the warnings in place of
// the recogniser's and the voice's.

const it = apiTest.extend('apiOptions', { scope: 'file' }, { vendorTargets: { privateHosts: [] } });

describe('realtime_settings of an assistant', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('is off with the vendor defaults when not given, and is stored and read back as written', async ({ api, tenant }) => {
    const plain = await api.call(tenant, 'POST', '/api/assistants', { name: 'Plain' });
    expect(plain.status).toBe(201);
    expect(plain.body.realtime_settings).toEqual({
      enabled: false,
      provider: 'openai',
      model: null,
      voice: null,
      base_url: null,
      turn_detection: 'server_vad',
    });
    const realtime = {
      enabled: true,
      provider: 'openai',
      model: 'gpt-realtime-mini',
      voice: 'cedar',
      base_url: 'https://api.openai.com/v1',
      turn_detection: 'semantic_vad',
    };
    const created = await api.call(tenant, 'POST', '/api/assistants', { name: 'Speech to speech', realtime_settings: realtime });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const read = await api.call(tenant, 'GET', `/api/assistants/${created.body.id}`);
    expect(read.body.realtime_settings).toEqual(realtime);
    const updated = await api.call(tenant, 'PATCH', `/api/assistants/${created.body.id}`, { realtime_settings: { enabled: false } });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.realtime_settings).toEqual({ ...realtime, enabled: false });
  });

  it('refuses an unknown vendor, an unknown turn detection and an extra field with 422 at each field, storing nothing', async ({ api, tenant }) => {
    const before = await api.db.prisma.assistant.count();
    const res = await api.call(tenant, 'POST', '/api/assistants', {
      name: 'Bad',
      realtime_settings: { enabled: true, provider: 'acme', turn_detection: 'psychic', temperature: 3 },
    });
    expect(res.status).toBe(422);
    const locs = res.body.detail.map((d: { loc: unknown[] }) => d.loc.join('.'));
    expect(locs).toEqual(
      expect.arrayContaining(['body.realtime_settings.provider', 'body.realtime_settings.turn_detection', expect.stringContaining('body.realtime_settings')]),
    );
    for (const d of res.body.detail) expect(Object.keys(d).sort()).toEqual(['loc', 'msg', 'type']);
    expect(await api.db.prisma.assistant.count()).toBe(before);
  });

  it('refuses a base_url that leads inside, or is not an http or ws URL, at realtime_settings.base_url', async ({ api, tenant }) => {
    for (const base_url of ['http://169.254.169.254/v1', 'ws://127.0.0.1:9000/v1', 'file:///etc/passwd', 'not a url']) {
      const res = await api.call(tenant, 'POST', '/api/assistants', { name: 'Inside', realtime_settings: { enabled: true, base_url } });
      expect(res.status, base_url).toBe(422);
      expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([['body', 'realtime_settings', 'base_url']]);
    }
  });

  it("names the speech-to-speech vendor's key in place of the recogniser's and the voice's when enabled", async ({ api, tenant }) => {
    for (const k of ['DEEPGRAM_API_KEY', 'ELEVENLABS_API_KEY', 'OPENAI_API_KEY']) vi.stubEnv(k, '');
    const created = await api.call(tenant, 'POST', '/api/assistants', { name: 'Realtime', realtime_settings: { enabled: true } });
    expect(created.body.warnings.map((w: { field: string }) => w.field)).toEqual(['realtime_settings.provider', 'llm_provider']);
    expect(created.body.warnings[0].message).toBe('Speech-to-speech provider openai needs OPENAI_API_KEY, which is not set on this service');
    vi.stubEnv('OPENAI_API_KEY', 'sk');
    const read = await api.call(tenant, 'GET', `/api/assistants/${created.body.id}`);
    expect(read.body.warnings).toEqual([]);
  });

  it("takes Google's Gemini Live with its own defaults, names GOOGLE_API_KEY when unset, and refuses semantic_vad for it", async ({ api, tenant }) => {
    vi.stubEnv('GOOGLE_API_KEY', '');
    const created = await api.call(tenant, 'POST', '/api/assistants', { name: 'Gemini', realtime_settings: { enabled: true, provider: 'google' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.realtime_settings).toEqual({
      enabled: true,
      provider: 'google',
      model: null,
      voice: null,
      base_url: null,
      turn_detection: 'server_vad',
    });
    const warning = created.body.warnings.find((w: { field: string }) => w.field === 'realtime_settings.provider');
    expect(warning.message).toBe('Speech-to-speech provider google needs GOOGLE_API_KEY, which is not set on this service');
    vi.stubEnv('GOOGLE_API_KEY', 'AIza-test');
    const read = await api.call(tenant, 'GET', `/api/assistants/${created.body.id}`);
    expect(read.body.warnings.map((w: { field: string }) => w.field)).not.toContain('realtime_settings.provider');

    const semantic = await api.call(tenant, 'PATCH', `/api/assistants/${created.body.id}`, { realtime_settings: { turn_detection: 'semantic_vad' } });
    expect(semantic.status).toBe(422);
    expect(semantic.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([['body', 'realtime_settings', 'turn_detection']]);
    const after = await api.call(tenant, 'GET', `/api/assistants/${created.body.id}`);
    expect(after.body.realtime_settings.turn_detection).toBe('server_vad');
  });
});
