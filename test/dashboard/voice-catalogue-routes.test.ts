import { describe, expect } from 'vitest';
import { BrowserSession } from '../helpers/browser-session.js';
import { apiTest } from '../helpers/fixtures.js';
import { addPerson } from '../helpers/people.js';
import { startFakeCartesiaVoices } from '../fakes/vendors/cartesia-voices.js';
import { startFakeDeepgramModels } from '../fakes/vendors/deepgram-models.js';
import { startFakeElevenLabsVoices, type ElevenLabsVoiceEntry } from '../fakes/vendors/elevenlabs-voices.js';

// The builder's voice routes over the dashboard's session: GET /assistants/:id/voices answers a provider's voices as
// JSON (the account's catalogue, read with the assistant's key or the service's, else the stock list and why), and
// GET /assistants/:id/voices/preview plays a voice's preview from the address its catalogue gave, and from no other.

const SERVICE_KEYS = { elevenlabs: 'xi-service-key-0001', cartesia: 'ct-service-key-0002', deepgram: 'dg-service-key-0003' };
const OWN_KEY = 'xi-assistant-own-key-0004';

const ELEVENLABS_VOICES: ElevenLabsVoiceEntry[] = [
  { voice_id: 'cl0nedV01ceAcmeSupp0rt', name: 'Acme Support', category: 'cloned', labels: { accent: 'british', gender: 'female' } },
  { voice_id: '21m00Tcm4TlvDq8ikWAM', name: 'Rachel', category: 'premade', labels: { accent: 'american', description: 'calm', gender: 'female' } },
];

interface VoicesAnswer {
  source: 'account' | 'curated';
  voices: { id: string; name: string; description: string; own: boolean; preview: boolean }[];
  note?: string;
}

/** Sets `vars` in this process's environment, where the service reads vendor keys; the returned function puts it back. */
function environment(vars: Record<string, string>): () => void {
  const before = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  Object.assign(process.env, vars);
  return () => {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}

const it = apiTest
  // The service's keys and its addresses for the three vendors: fakes on 127.0.0.1.
  .extend('vendors', { scope: 'file' }, async ({}, { onCleanup }) => {
    const elevenlabs = await startFakeElevenLabsVoices({ apiKey: SERVICE_KEYS.elevenlabs, voices: ELEVENLABS_VOICES });
    const cartesia = await startFakeCartesiaVoices({
      apiKey: SERVICE_KEYS.cartesia,
      voices: [
        { id: 'c1a2b3c4-0000-4000-8000-00000000000a', name: 'Acme Clone', description: 'Our support lead', is_owner: true, language: 'en', gender: 'feminine' },
      ],
    });
    const deepgram = await startFakeDeepgramModels({
      apiKey: SERVICE_KEYS.deepgram,
      voices: [{ name: 'thalia', canonical_name: 'aura-2-thalia-en', architecture: 'aura-2', languages: ['en'], accent: 'American', tags: ['feminine'] }],
    });
    const restore = environment({
      ELEVENLABS_API_KEY: SERVICE_KEYS.elevenlabs,
      ELEVENLABS_BASE_URL: elevenlabs.baseUrl,
      CARTESIA_API_KEY: SERVICE_KEYS.cartesia,
      CARTESIA_BASE_URL: cartesia.url,
      DEEPGRAM_API_KEY: SERVICE_KEYS.deepgram,
      DEEPGRAM_BASE_URL: deepgram.url,
    });
    onCleanup(async () => {
      restore();
      await Promise.all([elevenlabs.close(), cartesia.close(), deepgram.close()]);
    });
    return { elevenlabs, cartesia, deepgram };
  })
  .extend('owner', { scope: 'file' }, async ({ api, tenant }) => {
    const person = await addPerson(api, tenant.organizationId, 'owner');
    const browser = new BrowserSession(api.app);
    await browser.signIn(person.email, person.password);
    return browser;
  })
  .extend('create', { scope: 'file' }, async ({ api, tenant }) => async (tts: Record<string, unknown>) => {
    const res = await api.call(tenant, 'POST', '/api/assistants', { name: 'Voice picker', tts_settings: tts });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as number;
  });

async function voicesOf(browser: BrowserSession, assistantId: number, provider: string): Promise<VoicesAnswer> {
  const res = await browser.get(`/assistants/${assistantId}/voices?provider=${provider}`);
  expect(res.status, res.body).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  return JSON.parse(res.body) as VoicesAnswer;
}

describe('the builder’s voice list', () => {
  it('answers each provider with the account’s voices read with the service’s key, and the built-in voices as they are', async ({ vendors, owner, create }) => {
    const id = await create({ provider: 'local', voice_id: 'en-us' });

    const eleven = await voicesOf(owner, id, 'elevenlabs');
    expect(eleven).toEqual({
      source: 'account',
      voices: [
        { id: 'cl0nedV01ceAcmeSupp0rt', name: 'Acme Support', description: 'British, female', own: true, preview: true },
        { id: '21m00Tcm4TlvDq8ikWAM', name: 'Rachel', description: 'American, calm, female', own: false, preview: true },
      ],
    });
    expect(vendors.elevenlabs.requests.at(-1)!.headers['xi-api-key']).toBe(SERVICE_KEYS.elevenlabs);

    expect(await voicesOf(owner, id, 'cartesia')).toMatchObject({ source: 'account', voices: [{ name: 'Acme Clone', own: true, preview: true }] });
    expect(vendors.cartesia.requests.at(-1)!.headers['x-api-key']).toBe(SERVICE_KEYS.cartesia);
    expect(await voicesOf(owner, id, 'deepgram')).toMatchObject({ source: 'account', voices: [{ id: 'aura-2-thalia-en', name: 'Thalia' }] });
    expect(vendors.deepgram.requests.at(-1)!.headers.authorization).toBe(`Token ${SERVICE_KEYS.deepgram}`);

    const local = await voicesOf(owner, id, 'local');
    expect(local.source).toBe('curated');
    expect(local.note).toBeUndefined();
    expect(local.voices[0]).toEqual({ id: 'en-us', name: 'American English', description: 'The built-in voice, offline, no key', own: false, preview: false });

    // Flipping back to a provider read a moment ago does not ask its vendor again.
    const asked = vendors.elevenlabs.requests.length;
    expect(await voicesOf(owner, id, 'elevenlabs')).toEqual(eleven);
    expect(vendors.elevenlabs.requests).toHaveLength(asked);
  });

  it('reads with the assistant’s own key, at its own address, over the service’s, and never sends that key to another vendor', async ({
    vendors,
    owner,
    create,
  }) => {
    const own = await startFakeElevenLabsVoices({
      apiKey: OWN_KEY,
      voices: [{ voice_id: 'ownAccountVoice01', name: 'Our Own Voice', category: 'generated', labels: { accent: 'irish' } }],
    });
    try {
      const id = await create({ provider: 'elevenlabs', voice_id: 'ownAccountVoice01', provider_config: { api_key: OWN_KEY, base_url: own.baseUrl } });
      const serviceAsked = vendors.elevenlabs.requests.length;

      const answer = await voicesOf(owner, id, 'elevenlabs');
      expect(answer).toEqual({
        source: 'account',
        voices: [{ id: 'ownAccountVoice01', name: 'Our Own Voice', description: 'Irish', own: true, preview: true }],
      });
      expect(own.requests.map((r) => r.headers['xi-api-key'])).toEqual([OWN_KEY]);
      expect(vendors.elevenlabs.requests).toHaveLength(serviceAsked);

      // Cartesia is read with the service's Cartesia key: the assistant's key was given for ElevenLabs.
      await voicesOf(owner, id, 'cartesia');
      expect(vendors.cartesia.requests.map((r) => r.headers['x-api-key'])).not.toContain(OWN_KEY);
      expect(JSON.stringify(answer)).not.toContain(OWN_KEY.slice(0, -4));
    } finally {
      await own.close();
    }
  });

  it('shows the stock voices with a note in words when the key is refused or there is none', async ({ vendors, owner, create }) => {
    const refused = await create({ provider: 'elevenlabs', provider_config: { api_key: 'xi-revoked-key-0005' } });
    expect(await voicesOf(owner, refused, 'elevenlabs')).toMatchObject({ source: 'curated', note: 'ElevenLabs refused the key: showing stock voices' });
    expect(vendors.elevenlabs.requests.at(-1)!.headers['xi-api-key']).toBe('xi-revoked-key-0005');

    const restore = environment({ CARTESIA_API_KEY: '' });
    try {
      const keyless = await create({ provider: 'local' });
      const answer = await voicesOf(owner, keyless, 'cartesia');
      expect(answer.source).toBe('curated');
      expect(answer.note).toBe('No Cartesia key: showing stock voices');
      expect(answer.voices.map((v) => v.name)).toContain('Barbershop Man');
    } finally {
      restore();
    }
  });

  it('answers another organisation’s assistant 404 and a malformed request 422, never reading a catalogue for them', async ({ api, vendors, owner }) => {
    const elsewhere = await api.tenant('Elsewhere voices');
    const theirs = await api.call(elsewhere, 'POST', '/api/assistants', { name: 'Theirs', tts_settings: { provider: 'elevenlabs' } });
    const asked = vendors.elevenlabs.requests.length;

    for (const url of [
      `/assistants/${theirs.body.id}/voices?provider=elevenlabs`,
      `/assistants/${theirs.body.id}/voices/preview?provider=elevenlabs&voice=21m00Tcm4TlvDq8ikWAM`,
    ]) {
      const res = await owner.get(url);
      expect([res.status, JSON.parse(res.body)]).toEqual([404, { message: 'No such assistant' }]);
    }
    for (const url of [
      '/assistants/abc/voices?provider=elevenlabs',
      `/assistants/${theirs.body.id}/voices?provider=polly`,
      `/assistants/${theirs.body.id}/voices`,
    ]) {
      const res = await owner.get(url);
      expect(res.status, url).toBe(422);
      expect(JSON.parse(res.body).message).toMatch(/voice provider/);
    }
    expect(vendors.elevenlabs.requests).toHaveLength(asked);
    // Signed out, the routes send the browser to sign in like every page.
    expect((await new BrowserSession(api.app).get(`/assistants/${theirs.body.id}/voices?provider=elevenlabs`)).status).toBe(302);
  });

  it('proxies a preview only from the URL the catalogue gave for the voice, as audio', async ({ api, vendors, owner, create }) => {
    const id = await create({ provider: 'elevenlabs' });
    const previewsFetched = () => vendors.elevenlabs.requests.filter((r) => r.path.startsWith('/previews/')).map((r) => r.path);

    const res = await api.app.inject({
      method: 'GET',
      url: `/assistants/${id}/voices/preview?provider=elevenlabs&voice=21m00Tcm4TlvDq8ikWAM`,
      headers: { cookie: owner.cookieHeader() },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('audio/mpeg');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.rawPayload.equals(vendors.elevenlabs.preview)).toBe(true);
    expect(previewsFetched()).toEqual(['/previews/21m00Tcm4TlvDq8ikWAM.mp3']);

    // A voice the catalogue does not list, a URL in place of a voice, a provider without previews: nothing is fetched.
    for (const query of [
      'provider=elevenlabs&voice=NotInTheCatalogue',
      `provider=elevenlabs&voice=${encodeURIComponent(vendors.elevenlabs.previewUrl('cl0nedV01ceAcmeSupp0rt'))}`,
      'provider=local&voice=en-us',
    ]) {
      const refused = await owner.get(`/assistants/${id}/voices/preview?${query}`);
      expect([refused.status, JSON.parse(refused.body)], query).toEqual([404, { message: 'No sample of this voice' }]);
    }
    expect(previewsFetched()).toHaveLength(1);
  });
});
