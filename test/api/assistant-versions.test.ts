import crypto from 'node:crypto';
import { describe, expect } from 'vitest';
import { SecretBox } from '../../lib/secret-box.js';
import { apiTest } from '../helpers/fixtures.js';

// Assistant versions through the API: every saved change is a version with who saved it and what changed; any two
// compare setting by setting with keys masked; a former version is made current again as a new one; another
// organisation's key sees none of it.

const secrets = new SecretBox(crypto.randomBytes(32));
const KEY = 'xi-voice-key-000777';
const it = apiTest.extend('apiOptions', { scope: 'file' }, { secrets });

describe("an assistant's versions", () => {
  it('are recorded for every saved change, compared setting by setting, and restored as a new version', async ({ api, tenant }) => {
    const created = await api.call(tenant, 'POST', '/api/assistants', { name: 'Versioned', llm_settings: { temperature: 0.3 } });
    expect(created.body.version).toBe(1);
    const id = created.body.id;
    const patch = (body: unknown) => api.call(tenant, 'PATCH', `/api/assistants/${id}`, body);
    expect((await patch({ llm_settings: { temperature: 0.9 } })).body.version).toBe(2);
    expect((await patch({ tts_settings: { provider: 'elevenlabs', provider_config: { api_key: KEY } }, idle_timeout: 12 })).body.version).toBe(3);
    // A save that changes nothing is no version.
    expect((await patch({ llm_settings: { temperature: 0.9 } })).body.version).toBe(3);

    const listed = await api.call(tenant, 'GET', `/api/assistants/${id}/versions`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((v: { number: number; current: boolean; via: string }) => [v.number, v.current, v.via])).toEqual([
      [3, true, 'api'],
      [2, false, 'api'],
      [1, false, 'api'],
    ]);
    expect(listed.body.data[0]).toMatchObject({ user_id: tenant.userId, changed: ['tts_settings.provider_config', 'idle_timeout'] });
    expect(listed.body.data[1].changed).toEqual(['llm_settings.temperature']);
    expect(JSON.stringify(listed.body)).not.toContain(KEY.slice(0, -4));

    const three = await api.call(tenant, 'GET', `/api/assistants/${id}/versions/3`);
    expect(three.body.data.settings.tts_settings.provider_config).toEqual({ api_key: `****${KEY.slice(-4)}` });
    const diff = await api.call(tenant, 'GET', `/api/assistants/${id}/versions/3/diff?against=1`);
    expect(diff.body.data).toEqual({
      from: 1,
      to: 3,
      changes: [
        { path: 'llm_settings.temperature', before: 0.3, after: 0.9 },
        { path: 'tts_settings.provider_config', before: {}, after: { api_key: `****${KEY.slice(-4)}` } },
        { path: 'idle_timeout', before: null, after: 12 },
      ],
    });
    expect((await api.call(tenant, 'GET', `/api/assistants/${id}/versions/2/diff`)).body.data).toMatchObject({ from: 1, to: 2 });

    const restored = await api.call(tenant, 'POST', `/api/assistants/${id}/versions/1/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ version: 4, llm_settings: { temperature: 0.3 }, idle_timeout: null });
    expect(restored.body.tts_settings.provider).toBe(created.body.tts_settings.provider);
    const four = (await api.call(tenant, 'GET', `/api/assistants/${id}/versions?per_page=1`)).body.data[0];
    expect(four).toMatchObject({ number: 4, via: 'restore', restored_from: 1, current: true });
    // Back to version 3: its key comes back sealed as it was, and opens.
    await api.call(tenant, 'POST', `/api/assistants/${id}/versions/3/restore`);
    const row = await api.db.prisma.assistant.findUniqueOrThrow({ where: { id } });
    const sealed = (row.ttsSettings as { provider_config: { api_key: string } }).provider_config.api_key;
    expect(secrets.open(sealed, `assistant-key:${tenant.organizationId}`)).toBe(KEY);
    expect(row.version).toBe(5);
  });

  it('leave out of a restore the tools deleted since', async ({ api, tenant }) => {
    const tool = await api.call(tenant, 'POST', '/api/tools', { name: 'hang_up', type: 'end_call' });
    const created = await api.call(tenant, 'POST', '/api/assistants', { name: 'With a tool', assigned_tools: [tool.body.data.id] });
    const id = created.body.id;
    await api.call(tenant, 'PATCH', `/api/assistants/${id}`, { assigned_tools: [] });
    await api.call(tenant, 'DELETE', `/api/tools/${tool.body.data.id}`);
    const restored = await api.call(tenant, 'POST', `/api/assistants/${id}/versions/1/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ version: 3, assigned_tools: [] });
  });

  it("are another organisation's to read and restore, never this key's", async ({ api, tenant }) => {
    const created = await api.call(tenant, 'POST', '/api/assistants', { name: 'Private' });
    const other = await api.tenant('Other org');
    const id = created.body.id;
    for (const [method, url] of [
      ['GET', `/api/assistants/${id}/versions`],
      ['GET', `/api/assistants/${id}/versions/1`],
      ['GET', `/api/assistants/${id}/versions/1/diff`],
      ['POST', `/api/assistants/${id}/versions/1/restore`],
    ] as const) {
      const res = await api.call(other, method, url);
      expect(res.status, `${method} ${url}`).toBe(404);
    }
    expect((await api.call(tenant, 'GET', `/api/assistants/${id}/versions/9`)).status).toBe(404);
    expect((await api.db.prisma.assistant.findUniqueOrThrow({ where: { id } })).version).toBe(1);
  });
});

describe("an assistant's draft", () => {
  it('holds changes that are not live until published, then becomes the next version', async ({ api, tenant }) => {
    const created = await api.call(tenant, 'POST', '/api/assistants', { name: 'Drafted', llm_settings: { temperature: 0.3 } });
    const id = created.body.id;
    expect((await api.call(tenant, 'GET', `/api/assistants/${id}/draft`)).status).toBe(404);
    const first = await api.call(tenant, 'PATCH', `/api/assistants/${id}/draft`, {
      llm_settings: { temperature: 0.8 },
      tts_settings: { provider_config: { api_key: KEY } },
    });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ assistant_id: id, based_on_version: 1, settings: { llm_settings: { temperature: 0.8 } } });
    expect(first.body.data.settings.tts_settings.provider_config).toEqual({ api_key: `****${KEY.slice(-4)}` });
    // Merged over the draft, not over the live settings.
    const second = await api.call(tenant, 'PATCH', `/api/assistants/${id}/draft`, { idle_timeout: 9 });
    expect(second.body.data.settings).toMatchObject({ llm_settings: { temperature: 0.8 }, idle_timeout: 9 });
    // Live calls keep the current version.
    expect((await api.call(tenant, 'GET', `/api/assistants/${id}`)).body).toMatchObject({ version: 1, llm_settings: { temperature: 0.3 }, idle_timeout: null });
    // A draft change the API would refuse is refused, and the draft stays as it was.
    const refused = await api.call(tenant, 'PATCH', `/api/assistants/${id}/draft`, { llm_settings: { temperature: 7 } });
    expect(refused.status).toBe(422);
    expect((await api.call(tenant, 'GET', `/api/assistants/${id}/draft`)).body.data.settings.llm_settings.temperature).toBe(0.8);

    const published = await api.call(tenant, 'POST', `/api/assistants/${id}/draft/publish`);
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ version: 2, llm_settings: { temperature: 0.8 }, idle_timeout: 9 });
    const row = await api.db.prisma.assistant.findUniqueOrThrow({ where: { id } });
    expect(row.draft).toBeNull();
    expect(secrets.open((row.ttsSettings as { provider_config: { api_key: string } }).provider_config.api_key, `assistant-key:${tenant.organizationId}`)).toBe(
      KEY,
    );
    expect((await api.call(tenant, 'GET', `/api/assistants/${id}/draft`)).status).toBe(404);
    const versions = await api.call(tenant, 'GET', `/api/assistants/${id}/versions`);
    expect(versions.body.data[0]).toMatchObject({
      number: 2,
      current: true,
      changed: ['llm_settings.temperature', 'tts_settings.provider_config', 'idle_timeout'],
    });
  });

  it('is discarded on request, and is no business of another organisation', async ({ api, tenant }) => {
    const created = await api.call(tenant, 'POST', '/api/assistants', { name: 'Discarded' });
    const id = created.body.id;
    await api.call(tenant, 'PATCH', `/api/assistants/${id}/draft`, { name: 'Renamed' });
    const other = await api.tenant('Draft outsider');
    expect((await api.call(other, 'GET', `/api/assistants/${id}/draft`)).status).toBe(404);
    expect((await api.call(other, 'PATCH', `/api/assistants/${id}/draft`, { name: 'Taken' })).status).toBe(404);
    expect((await api.call(other, 'POST', `/api/assistants/${id}/draft/publish`)).status).toBe(404);
    expect((await api.call(other, 'DELETE', `/api/assistants/${id}/draft`)).status).toBe(404);
    expect((await api.call(tenant, 'DELETE', `/api/assistants/${id}/draft`)).status).toBe(204);
    expect((await api.call(tenant, 'DELETE', `/api/assistants/${id}/draft`)).status).toBe(404);
    expect((await api.call(tenant, 'POST', `/api/assistants/${id}/draft/publish`)).status).toBe(404);
    expect((await api.call(tenant, 'GET', `/api/assistants/${id}`)).body).toMatchObject({ name: 'Discarded', version: 1 });
  });
});
