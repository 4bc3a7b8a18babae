import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiContext, type ApiContext, type Tenant } from '../helpers/api.js';
import { hasChromium, launchChromium } from '../helpers/chromium.js';
import { addPerson } from '../helpers/people.js';
import { signedInContext } from '../helpers/sign-in.js';
import { until } from '../helpers/until.js';
import { startFakeElevenLabsVoices, type FakeElevenLabsVoices } from '../fakes/vendors/elevenlabs-voices.js';

// The builder's voice picker in Debian's Chromium with an ElevenLabs key on the service: switching the provider lists
// the account's own voices by name above the stock ones, one is picked, heard and saved, and what Save stores is read
// back from the database. The vendor is a fake on 127.0.0.1 speaking ElevenLabs' voice list.

const SERVICE_KEY = 'xi-service-key-builder-0001';

let api: ApiContext;
let base: string;
let browser: Browser;
let tenant: Tenant;
let owner: { email: string; password: string };
let vendor: FakeElevenLabsVoices;
const environmentBefore: Record<string, string | undefined> = {};

beforeAll(async () => {
  if (!hasChromium) return;
  vendor = await startFakeElevenLabsVoices({
    apiKey: SERVICE_KEY,
    voices: [
      { voice_id: 'cl0nedV01ceAcmeSupp0rt', name: 'Acme Support', category: 'cloned', labels: { accent: 'british', descriptive: 'warm', gender: 'female' } },
      { voice_id: 'pr0V01ceNarrat0rX', name: 'Brand Narrator', category: 'professional', labels: { accent: 'american', gender: 'male' } },
      { voice_id: '21m00Tcm4TlvDq8ikWAM', name: 'Rachel', category: 'premade', labels: { accent: 'american', description: 'calm', gender: 'female' } },
    ],
  });
  // The service's key and address for ElevenLabs, read from the environment as the API reads them.
  for (const name of ['ELEVENLABS_API_KEY', 'ELEVENLABS_BASE_URL']) environmentBefore[name] = process.env[name];
  process.env.ELEVENLABS_API_KEY = SERVICE_KEY;
  process.env.ELEVENLABS_BASE_URL = vendor.baseUrl;
  api = await createApiContext();
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  browser = await launchChromium();
  tenant = await api.tenant('Voice Co');
  owner = await addPerson(api, tenant.organizationId, 'owner');
}, 180_000);
afterAll(async () => {
  for (const [name, value] of Object.entries(environmentBefore)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await browser?.close();
  await api?.close();
  await vendor?.close();
});

describe.skipIf(!hasChromium)('the builder’s voice picker with a vendor key', () => {
  it('lists the ElevenLabs account’s voices by name once the provider is switched, plays one, and saves its id', async () => {
    const created = await api.call(tenant, 'POST', '/api/assistants', { name: 'Front desk', tts_settings: { provider: 'local', voice_id: 'en-us' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as number;
    const { context, page } = await signedInContext(browser, base, owner, { viewport: { width: 1280, height: 800 } });
    await page.goto(`${base}/assistants/${id}`);

    await page.getByLabel('Voice provider').selectOption({ label: 'ElevenLabs' });
    const voice = page.getByRole('combobox', { name: 'Voice', exact: true });
    // Waits for the account's list to replace the stock one: the cloned voice is in no stock list.
    await voice.selectOption({ label: 'Acme Support · British, warm, female' });
    expect(await voice.locator('optgroup').evaluateAll((groups) => groups.map((g) => g.getAttribute('label')))).toEqual(['Your voices', 'Stock voices']);
    expect(await voice.locator('optgroup[label="Your voices"] option').allTextContents()).toEqual([
      'Acme Support · British, warm, female',
      'Brand Narrator · American, male',
    ]);
    expect(await voice.locator('option', { hasText: 'Another voice id…' }).count()).toBe(1);

    const [sample] = await Promise.all([
      page.waitForResponse((r) => r.url().includes(`/assistants/${id}/voices/preview`)),
      page.getByRole('button', { name: 'Play a sample' }).click(),
    ]);
    expect(sample.status()).toBe(200);
    expect(sample.headers()['content-type']).toBe('audio/mpeg');
    // What the page played: the vendor's recording of the voice, byte for byte.
    const played = (await page.evaluate(`fetch(${JSON.stringify(sample.url())}).then((r) => r.arrayBuffer()).then((b) => [...new Uint8Array(b)])`)) as number[];
    expect(Buffer.from(played).equals(vendor.preview)).toBe(true);
    expect(new URL(sample.url()).searchParams.get('voice')).toBe('cl0nedV01ceAcmeSupp0rt');
    await page.getByText('Playing a sample.').waitFor();
    expect(await page.locator('[data-voice-source]').textContent()).toBe('From your ElevenLabs account');
    // `SCREENSHOTS_DIR=… vitest run` keeps the picker with the account's voices, for review; a select's drop-down is
    // not drawn in a screenshot, so it is opened out as a list box for the picture.
    if (process.env.SCREENSHOTS_DIR) {
      const list = page.locator('select.voice-list');
      await list.evaluate((select) => select.setAttribute('size', '8'));
      await page.screenshot({ path: `${process.env.SCREENSHOTS_DIR}/builder-voices-1280.png` });
      await list.evaluate((select) => select.removeAttribute('size'));
    }

    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    const row = await api.db.prisma.assistant.findUniqueOrThrow({ where: { id } });
    expect(row.ttsSettings).toMatchObject({ provider: 'elevenlabs', voice_id: 'cl0nedV01ceAcmeSupp0rt' });
    // The key stayed on the server: neither the page nor anything it fetched carries it.
    expect(await page.content()).not.toContain(SERVICE_KEY);

    // Shown again, the stored voice is chosen by name once the account's list arrives.
    await page.reload();
    await until(async () => (await voice.inputValue()) === 'cl0nedV01ceAcmeSupp0rt', { message: 'the stored voice not chosen again' });
    expect(await voice.locator('option:checked').textContent()).toBe('Acme Support · British, warm, female');
    await context.close();
  });
});
