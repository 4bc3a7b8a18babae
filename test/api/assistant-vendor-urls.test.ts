import { describe, expect } from 'vitest';
import { updateAssistant } from '../../modules/assistants/service.js';
import { SecretBox } from '../../lib/secret-box.js';
import { apiTest } from '../helpers/fixtures.js';

// An assistant's vendor URLs are where calls and test runs send its vendor key and read the answer back into a
// transcript. One that names a loopback, private or reserved address is refused at the field, at create and update,
// unless the operator allows that host (VENDOR_PRIVATE_HOSTS); nothing is stored.

const INSIDE = [
  'http://169.254.169.254/latest/meta-data/',
  'http://10.0.0.1/v1',
  'http://127.0.0.1:11434/v1',
  'http://[::1]:8080/v1',
  'http://localhost:11434/v1',
  'http://api.localhost/v1',
  'http://[::ffff:127.0.0.1]/v1',
];

const strict = apiTest.extend('apiOptions', { scope: 'file' }, { vendorTargets: { privateHosts: [] } });
const allowing = apiTest.extend('apiOptions', { scope: 'file' }, { vendorTargets: { privateHosts: [{ host: '127.0.0.1', port: 11434 }] } });

describe('vendor URLs of an assistant, with no host allowed', () => {
  const it = strict;

  it('refuses each inside address at llm_provider_config.base_url and stores nothing', async ({ api, tenant }) => {
    const before = await api.db.prisma.assistant.count();
    for (const url of INSIDE) {
      const res = await api.call(tenant, 'POST', '/api/assistants', {
        name: 'Inside',
        llm_provider: 'custom',
        llm_provider_config: { base_url: url, model: 'x' },
      });
      expect(res.status, url).toBe(422);
      expect(res.body.detail, url).toEqual([
        expect.objectContaining({
          loc: ['body', 'llm_provider_config', 'base_url'],
          type: 'value_error',
          msg: expect.stringContaining('VENDOR_PRIVATE_HOSTS'),
        }),
      ]);
    }
    expect(await api.db.prisma.assistant.count()).toBe(before);
  });

  it("refuses a fallback's base_url and the TTS provider_config.base_url at their fields", async ({ api, tenant }) => {
    const res = await api.call(tenant, 'POST', '/api/assistants', {
      name: 'Inside',
      llm_fallback_providers: { enabled: true, fallbacks: [{ provider: 'openai' }, { provider: 'custom', base_url: 'http://10.0.0.1/v1' }] },
      tts_settings: { provider: 'elevenlabs', provider_config: { base_url: 'http://169.254.169.254/' } },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
      ['body', 'llm_fallback_providers', 'fallbacks', 1, 'base_url'],
      ['body', 'tts_settings', 'provider_config', 'base_url'],
    ]);
  });

  it('refuses a TTS base_url that is not an http or ws URL', async ({ api, tenant }) => {
    for (const base_url of ['file:///etc/passwd', 42, 'not a url']) {
      const res = await api.call(tenant, 'POST', '/api/assistants', { name: 'Odd', tts_settings: { provider: 'cartesia', provider_config: { base_url } } });
      expect(res.status, String(base_url)).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['body', 'tts_settings', 'provider_config', 'base_url']);
    }
  });

  it('accepts public hosts and names, which calls check again on their DNS answers', async ({ api, tenant }) => {
    const res = await api.call(tenant, 'POST', '/api/assistants', {
      name: 'Public',
      llm_provider: 'custom',
      llm_provider_config: { base_url: 'https://llm.example.com/v1', model: 'x' },
      tts_settings: { provider: 'elevenlabs', provider_config: { base_url: 'wss://8.8.8.8/' } },
    });
    expect(res.status).toBe(201);
  });

  it('refuses an update that points the LLM inside, and leaves the assistant as it was', async ({ api, tenant }) => {
    const created = await api.call(tenant, 'POST', '/api/assistants', {
      name: 'Desk',
      llm_provider: 'custom',
      llm_provider_config: { base_url: 'https://llm.example.com/v1', model: 'x' },
    });
    const res = await api.call(tenant, 'PATCH', `/api/assistants/${created.body.id}`, { llm_provider_config: { base_url: 'http://169.254.169.254/v1' } });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'llm_provider_config', 'base_url']);
    const read = await api.call(tenant, 'GET', `/api/assistants/${created.body.id}`);
    expect(read.body.llm_provider_config.base_url).toBe('https://llm.example.com/v1');
  });
});

describe('vendor URLs of an assistant, with 127.0.0.1:11434 allowed', () => {
  const it = allowing;

  it('accepts the allowed host on its port only', async ({ api, tenant }) => {
    const ok = await api.call(tenant, 'POST', '/api/assistants', {
      name: 'Ollama',
      llm_provider: 'custom',
      llm_provider_config: { base_url: 'http://127.0.0.1:11434/v1', model: 'llama3.2' },
    });
    expect(ok.status).toBe(201);
    const other = await api.call(tenant, 'POST', '/api/assistants', {
      name: 'Other',
      llm_provider: 'custom',
      llm_provider_config: { base_url: 'http://127.0.0.1:5432/v1', model: 'x' },
    });
    expect(other.status).toBe(422);
  });

  it('lets an unrelated change through once the allowance is withdrawn, but not a new inside URL', async ({ api, tenant }) => {
    const created = await api.call(tenant, 'POST', '/api/assistants', {
      name: 'Ollama',
      llm_provider: 'custom',
      llm_provider_config: { base_url: 'http://127.0.0.1:11434/v1', model: 'llama3.2' },
    });
    const box = new SecretBox(Buffer.alloc(32, 1));
    const renamed = await updateAssistant(api.db.prisma, tenant.organizationId, created.body.id, { name: 'Renamed' }, box, { privateHosts: [] });
    expect(renamed.name).toBe('Renamed');
    await expect(
      updateAssistant(api.db.prisma, tenant.organizationId, created.body.id, { llm_provider_config: { base_url: 'http://127.0.0.1:11435/v1' } }, box, {
        privateHosts: [],
      }),
    ).rejects.toMatchObject({ detail: [expect.objectContaining({ loc: ['body', 'llm_provider_config', 'base_url'] })] });
  });
});
