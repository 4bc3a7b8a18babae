import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVoicePlatformClient, isValidationError } from '@voice-platform/client';
import { committedFiles, generatedFiles } from '../../packages/client/generate.js';
import { createAssistant } from '../../packages/client/examples/create-assistant.js';
import { exportLastWeek } from '../../packages/client/examples/export-calls.js';
import { refusedSetting } from '../../packages/client/examples/refused-setting.js';
import { createApiContext, type ApiContext, type Tenant } from '../helpers/api.js';

// The typed client (packages/client/): generated from the service's OpenAPI document and kept in step with it, built
// as its users get it, and driving a real API over HTTP on 127.0.0.1, as do the examples its READMEs show.

const CLIENT = path.resolve('packages/client');
let api: ApiContext;
let tenant: Tenant;
let baseUrl: string;

beforeAll(async () => {
  api = await createApiContext();
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  tenant = await api.tenant('Client Co');
}, 180_000);
afterAll(async () => {
  await api?.close();
});

describe('the typed client', () => {
  it('is generated from the OpenAPI document the service serves now (npm run client:generate)', async () => {
    const generated = await generatedFiles();
    const committed = await committedFiles(Object.keys(generated));
    for (const [name, text] of Object.entries(generated)) expect(committed[name], `packages/client/${name} is out of date`).toBe(text);
  });

  it('builds with its own tsconfig, and the built package drives the API', async () => {
    const out = await mkdtemp(path.join(os.tmpdir(), 'client-dist-'));
    try {
      await promisify(execFile)(process.execPath, [path.resolve('node_modules/typescript/bin/tsc'), '-p', path.join(CLIENT, 'tsconfig.json'), '--outDir', out]);
      expect((await readdir(out)).sort()).toEqual(['index.d.ts', 'index.js', 'schema.d.ts', 'schema.js']);
      const built = (await import(path.join(out, 'index.js'))) as typeof import('@voice-platform/client');
      const client = built.createVoicePlatformClient({ baseUrl: `${baseUrl}/`, apiKey: tenant.key });
      const { data, response } = await client.GET('/api/assistants', { params: { query: { per_page: 5 } } });
      expect(response.status).toBe(200);
      expect(data).toMatchObject({ pagination: { per_page: 5 } });
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });

  it('answers a refused request as a typed error, not an exception: 401 without a valid key, 404 for another id', async () => {
    const stranger = createVoicePlatformClient({ baseUrl, apiKey: 'sk_not_a_key' });
    const denied = await stranger.GET('/api/assistants');
    expect(denied.response.status).toBe(401);
    expect(denied.error).toMatchObject({ success: false, code: expect.any(String) });
    expect(isValidationError(denied.error)).toBe(false);
    const client = createVoicePlatformClient({ baseUrl, apiKey: tenant.key });
    const missing = await client.GET('/api/assistants/{assistant_id}', { params: { path: { assistant_id: 2_000_000_000 } } });
    expect(missing.response.status).toBe(404);
    expect(missing.data).toBeUndefined();
  });

  it('rejects at compile time what the API would refuse at run time', () => {
    const client = createVoicePlatformClient({ baseUrl, apiKey: tenant.key });
    // Each line below must fail to compile (npm run checks fails if one compiles): the paths, bodies and parameters are typed.
    const never = () => {
      // @ts-expect-error an unknown path
      void client.GET('/api/assistant');
      // @ts-expect-error a setting of the wrong type
      void client.POST('/api/assistants', { body: { name: 'x', llm_settings: { temperature: 'hot' } } });
      // @ts-expect-error a path parameter missing
      void client.GET('/api/assistants/{assistant_id}', { params: { path: {} } });
      // @ts-expect-error a body without its required field
      void client.POST('/api/telephony/calls/initiate', { body: { welcome_message: 'hi' } });
    };
    expect(typeof never).toBe('function');
  });
});

describe("the client's examples", () => {
  it('create an assistant and read it back', async () => {
    const assistant = await createAssistant(baseUrl, tenant.key);
    expect(assistant).toMatchObject({ name: 'Front desk', llm_settings: { welcome_message: 'Thanks for calling. How can I help?', temperature: 0.4 } });
    const row = await api.db.prisma.assistant.findUniqueOrThrow({ where: { id: assistant!.id } });
    expect(row.organizationId).toBe(tenant.organizationId);
  });

  it('read a refused setting from the 422 detail', async () => {
    expect(await refusedSetting(baseUrl, tenant.key)).toEqual([{ field: 'body.llm_settings.temperature', problem: expect.stringMatching(/2/) }]);
  });

  it('download the calls export as CSV text', async () => {
    const csv = await exportLastWeek(baseUrl, tenant.key);
    expect(csv.split('\n')[0]).toMatch(/^call_sid,/);
  });

  it('are the code the READMEs show, character for character', async () => {
    const examples = new Map<string, string>();
    for (const name of await readdir(path.join(CLIENT, 'examples'))) examples.set(name, await readFile(path.join(CLIENT, 'examples', name), 'utf8'));
    const blocksOf = (markdown: string) =>
      [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((code) => code.includes("from '@voice-platform/client'"));
    const shown = [...blocksOf(await readFile(path.join(CLIENT, 'README.md'), 'utf8')), ...blocksOf(await readFile('README.md', 'utf8'))];
    expect(shown.length).toBeGreaterThanOrEqual(examples.size + 1);
    for (const code of shown) expect([...examples.values()], `a README example is not one of packages/client/examples/:\n${code}`).toContain(code);
    // Every example is shown in the client's README.
    const clientReadme = blocksOf(await readFile(path.join(CLIENT, 'README.md'), 'utf8'));
    for (const [name, code] of examples) expect(clientReadme, `${name} is not in packages/client/README.md`).toContain(code);
  });
});
