import { afterEach, describe, expect, it } from 'vitest';
import { NO_PRIVATE_VENDOR_HOSTS, vendorFetch } from '../../lib/net/vendor-targets.js';
import { vendorCredentialsFromEnv } from '../../lib/vendor-credentials.js';
import { VOICES } from '../../modules/assistants/voices.js';
import { VoiceCatalogue, type CatalogueRequest } from '../../modules/assistants/voice-catalogue/catalogue.js';
import { cartesiaCatalogue, CARTESIA_VERSION } from '../../modules/assistants/voice-catalogue/cartesia.js';
import { deepgramCatalogue } from '../../modules/assistants/voice-catalogue/deepgram.js';
import { elevenLabsCatalogue } from '../../modules/assistants/voice-catalogue/elevenlabs.js';
import { CATALOGUE_LIMITS } from '../../modules/assistants/voice-catalogue/types.js';
import type { FakeServer } from '../fakes/http-server.js';
import { startFakeCartesiaVoices, type CartesiaVoiceEntry } from '../fakes/vendors/cartesia-voices.js';
import { startFakeDeepgramModels } from '../fakes/vendors/deepgram-models.js';
import { startFakeElevenLabsVoices, type ElevenLabsVoiceEntry } from '../fakes/vendors/elevenlabs-voices.js';
import { LOOPBACK_VENDOR_HOSTS } from '../helpers/vendor-hosts.js';

// Each vendor's voice catalogue read on its documented wire format from a fake on 127.0.0.1, mapped to the voices the
// builder lists; and the catalogue around them: the stock list with a reason when the key is refused, the vendor is
// silent or its answer will not end, a read kept a while per assistant, previews fetched only where the catalogue said.

const http = vendorFetch(LOOPBACK_VENDOR_HOSTS);
const servers: FakeServer[] = [];
async function started<S extends FakeServer>(server: Promise<S>): Promise<S> {
  const s = await server;
  servers.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const ELEVENLABS_VOICES: ElevenLabsVoiceEntry[] = [
  {
    voice_id: '21m00Tcm4TlvDq8ikWAM',
    name: 'Rachel',
    category: 'premade',
    labels: { accent: 'american', description: 'calm', age: 'young', gender: 'female', use_case: 'narration' },
  },
  { voice_id: 'cl0nedV01ceAcmeSupp0rt', name: 'Acme Support', category: 'cloned', labels: { accent: 'british', gender: 'female', descriptive: 'warm' } },
  { voice_id: 'pr0V01ceNarrat0rX', name: 'Brand Narrator', category: 'professional', labels: {}, description: 'Deep documentary voice for the brand' },
];

const CARTESIA_VOICES: CartesiaVoiceEntry[] = [
  { id: 'a0e99841-438c-4a64-b679-ae501e7d6091', name: 'Barbershop Man', description: 'Conversational', is_owner: false, language: 'en', gender: 'masculine' },
  { id: 'c1a2b3c4-0000-4000-8000-00000000000a', name: 'Acme Clone', description: 'Our support lead', is_owner: true, language: 'en', gender: 'feminine' },
  { id: '71a7ad14-091c-4e8e-a314-022ece01c121', name: 'British Reading Lady', description: 'Clear', is_owner: false, language: 'en', gender: 'feminine' },
  { id: 'c1a2b3c4-0000-4000-8000-00000000000b', name: 'Acme Français', description: 'Localised', is_owner: true, language: 'fr', gender: 'feminine' },
  {
    id: 'a249eaff-1e96-4d2c-b23b-12efa4f66f41',
    name: 'French Conversational Lady',
    description: 'Friendly',
    is_owner: false,
    language: 'fr',
    gender: 'feminine',
  },
];

describe('reading a vendor’s catalogue', () => {
  it('maps ElevenLabs’ voices, the account’s own first, with their labels and previews, asked with xi-api-key at {base}/voices', async () => {
    const fake = await started(startFakeElevenLabsVoices({ apiKey: 'xi-account', voices: ELEVENLABS_VOICES }));
    const read = await elevenLabsCatalogue.read({ apiKey: 'xi-account', baseUrl: fake.baseUrl }, http, CATALOGUE_LIMITS);

    expect(fake.requests.map((r) => [r.method, r.path, r.headers['xi-api-key']])).toEqual([['GET', '/v1/voices', 'xi-account']]);
    expect(read.truncated).toBe(false);
    expect(read.voices).toEqual([
      {
        id: 'cl0nedV01ceAcmeSupp0rt',
        name: 'Acme Support',
        description: 'British, warm, female',
        own: true,
        previewUrl: fake.previewUrl('cl0nedV01ceAcmeSupp0rt'),
      },
      {
        id: 'pr0V01ceNarrat0rX',
        name: 'Brand Narrator',
        description: 'Deep documentary voice for the brand',
        own: true,
        previewUrl: fake.previewUrl('pr0V01ceNarrat0rX'),
      },
      {
        id: '21m00Tcm4TlvDq8ikWAM',
        name: 'Rachel',
        description: 'American, calm, female, young, narration',
        own: false,
        previewUrl: fake.previewUrl('21m00Tcm4TlvDq8ikWAM'),
      },
    ]);
  });

  it('reads Cartesia’s account voices, then its library, page by page with X-API-Key and Cartesia-Version, each voice once', async () => {
    const fake = await started(startFakeCartesiaVoices({ apiKey: 'ct-account', voices: CARTESIA_VOICES, pageSize: 2 }));
    const read = await cartesiaCatalogue.read({ apiKey: 'ct-account', baseUrl: fake.url }, http, CATALOGUE_LIMITS);

    for (const r of fake.requests) expect([r.headers['x-api-key'], r.headers['cartesia-version']]).toEqual(['ct-account', CARTESIA_VERSION]);
    // The account's voices (one page of two), then the library in pages of two, each after the last id of the one before.
    expect(fake.listQueries().map((q) => [q.get('is_owner'), q.get('starting_after'), q.get('limit'), q.getAll('expand[]').join()])).toEqual([
      ['true', null, '100', 'preview_file_url'],
      [null, null, '100', 'preview_file_url'],
      [null, 'c1a2b3c4-0000-4000-8000-00000000000a', '100', 'preview_file_url'],
      [null, 'c1a2b3c4-0000-4000-8000-00000000000b', '100', 'preview_file_url'],
    ]);
    expect(read.truncated).toBe(false);
    expect(read.voices.map((v) => [v.name, v.description, v.own])).toEqual([
      ['Acme Clone', 'English, female, Our support lead', true],
      ['Acme Français', 'French, female, Localised', true],
      ['Barbershop Man', 'English, male, Conversational', false],
      ['British Reading Lady', 'English, female, Clear', false],
      ['French Conversational Lady', 'French, female, Friendly', false],
    ]);
    expect(read.voices[0]!.previewUrl).toBe(`${fake.url}/voices/c1a2b3c4-0000-4000-8000-00000000000a/preview`);
  });

  it('stops reading Cartesia at its page budget and says the list goes on', async () => {
    const fake = await started(startFakeCartesiaVoices({ apiKey: 'ct-account', voices: CARTESIA_VOICES, pageSize: 2 }));
    const read = await cartesiaCatalogue.read({ apiKey: 'ct-account', baseUrl: fake.url }, http, { ...CATALOGUE_LIMITS, maxPages: 2 });
    expect(fake.listQueries()).toHaveLength(2);
    expect(read.truncated).toBe(true);
    expect(read.voices.map((v) => v.name)).toEqual(['Acme Clone', 'Acme Français', 'Barbershop Man']);
  });

  it('lists Deepgram’s Aura voice models by name, each under the model id a call asks for, asked with Authorization: Token', async () => {
    const fake = await started(
      startFakeDeepgramModels({
        apiKey: 'dg-account',
        voices: [
          {
            name: 'thalia',
            canonical_name: 'aura-2-thalia-en',
            architecture: 'aura-2',
            languages: ['en', 'en-US'],
            accent: 'American',
            tags: ['feminine', 'clear'],
          },
          { name: 'angus', canonical_name: 'aura-angus-en', architecture: 'aura', languages: ['en', 'en-IE'], accent: 'Irish', tags: ['masculine'] },
        ],
      }),
    );
    const read = await deepgramCatalogue.read({ apiKey: 'dg-account', baseUrl: fake.url }, http, CATALOGUE_LIMITS);
    expect(fake.requests.map((r) => [r.path, r.headers.authorization])).toEqual([['/v1/models', 'Token dg-account']]);
    // The speech-to-text models of the same answer are not voices.
    expect(read.voices).toEqual([
      { id: 'aura-angus-en', name: 'Angus', description: 'Aura, Irish, Adult, masculine', own: false, previewUrl: `${fake.url}/samples/aura-angus-en.wav` },
      {
        id: 'aura-2-thalia-en',
        name: 'Thalia',
        description: 'Aura 2, American, Adult, feminine, clear',
        own: false,
        previewUrl: `${fake.url}/samples/aura-2-thalia-en.wav`,
      },
    ]);
  });
});

describe('the catalogue the builder asks', () => {
  const request = (over: Partial<CatalogueRequest> & Pick<CatalogueRequest, 'provider'>): CatalogueRequest => ({
    organizationId: 1,
    assistantId: 1,
    tts: { provider: over.provider, provider_config: {} },
    credentials: vendorCredentialsFromEnv({}),
    ...over,
  });
  const serviceKey = (vendor: string, key: string, baseUrl: string) =>
    vendorCredentialsFromEnv({ [`${vendor.toUpperCase()}_API_KEY`]: key, [`${vendor.toUpperCase()}_BASE_URL`]: baseUrl });
  const stock = (provider: 'elevenlabs' | 'cartesia') => VOICES[provider].map((v) => ({ ...v, own: false }));

  it('shows the stock voices and says so when there is no key, asking nobody', async () => {
    const catalogue = new VoiceCatalogue({ policy: LOOPBACK_VENDOR_HOSTS });
    expect(await catalogue.voices(request({ provider: 'elevenlabs' }))).toEqual({
      source: 'curated',
      voices: stock('elevenlabs'),
      note: 'No ElevenLabs key: showing stock voices',
    });
    expect(await catalogue.voices(request({ provider: 'local' }))).toEqual({ source: 'curated', voices: VOICES.local.map((v) => ({ ...v, own: false })) });
  });

  it('falls back to the stock voices with a note when the vendor refuses the key (401)', async () => {
    const fake = await started(startFakeElevenLabsVoices({ apiKey: 'xi-right', voices: ELEVENLABS_VOICES }));
    const catalogue = new VoiceCatalogue({ policy: LOOPBACK_VENDOR_HOSTS });
    const answer = await catalogue.voices(request({ provider: 'elevenlabs', credentials: serviceKey('elevenlabs', 'xi-wrong', fake.baseUrl) }));
    expect(answer).toEqual({ source: 'curated', voices: stock('elevenlabs'), note: 'ElevenLabs refused the key: showing stock voices' });
    expect(fake.requests.map((r) => r.headers['xi-api-key'])).toEqual(['xi-wrong']);
  });

  it('gives up on a vendor that does not answer within the deadline and shows the stock voices', async () => {
    const fake = await started(startFakeElevenLabsVoices({ apiKey: 'xi-key', voices: ELEVENLABS_VOICES, answer: 'silent' }));
    const catalogue = new VoiceCatalogue({ policy: LOOPBACK_VENDOR_HOSTS, limits: { timeoutMs: 300 } });
    const answer = await catalogue.voices(request({ provider: 'elevenlabs', credentials: serviceKey('elevenlabs', 'xi-key', fake.baseUrl) }));
    expect(answer).toEqual({ source: 'curated', voices: stock('elevenlabs'), note: 'ElevenLabs did not answer: showing stock voices' });
    expect(fake.requests).toHaveLength(1);
  });

  it('stops reading an answer past its size cap, drops the connection, and shows the stock voices', async () => {
    const fake = await started(startFakeElevenLabsVoices({ apiKey: 'xi-key', voices: ELEVENLABS_VOICES, answer: 'endless' }));
    const catalogue = new VoiceCatalogue({ policy: LOOPBACK_VENDOR_HOSTS, limits: { maxBytes: 256 * 1024 } });
    const answer = await catalogue.voices(request({ provider: 'elevenlabs', credentials: serviceKey('elevenlabs', 'xi-key', fake.baseUrl) }));
    expect(answer).toEqual({ source: 'curated', voices: stock('elevenlabs'), note: 'ElevenLabs’s list was too long to read: showing stock voices' });
    // The vendor saw the reader go: what it managed to send is the cap and what was in flight, not an endless stream.
    expect(await fake.endlessDropped).toBeLessThan(64 * 1024 * 1024);
  });

  it('sends nothing to a vendor address the guard refuses, and says so', async () => {
    const fake = await started(startFakeElevenLabsVoices({ apiKey: 'xi-key', voices: ELEVENLABS_VOICES }));
    const catalogue = new VoiceCatalogue({ policy: NO_PRIVATE_VENDOR_HOSTS });
    const answer = await catalogue.voices(request({ provider: 'elevenlabs', credentials: serviceKey('elevenlabs', 'xi-key', fake.baseUrl) }));
    expect(answer.note).toBe('ElevenLabs’s address is not one this service calls: showing stock voices');
    expect(fake.requests).toHaveLength(0);
  });

  it('keeps a read catalogue per assistant and provider, and reads again under a new key', async () => {
    const fake = await started(startFakeElevenLabsVoices({ apiKey: 'xi-key', voices: ELEVENLABS_VOICES }));
    const catalogue = new VoiceCatalogue({ policy: LOOPBACK_VENDOR_HOSTS });
    const asked = request({ provider: 'elevenlabs', credentials: serviceKey('elevenlabs', 'xi-key', fake.baseUrl) });
    const [first, second] = await Promise.all([catalogue.voices(asked), catalogue.voices(asked)]);
    expect(first.source).toBe('account');
    expect(second).toEqual(first);
    expect(await catalogue.voices(request({ provider: 'cartesia' }))).toMatchObject({ source: 'curated' });
    expect(await catalogue.voices(asked)).toEqual(first);
    expect(fake.requests).toHaveLength(1);

    // Another assistant's list is its own read; a key saved since is used at once.
    await catalogue.voices({ ...asked, assistantId: 2 });
    expect(fake.requests).toHaveLength(2);
    const rekeyed = await catalogue.voices({ ...asked, tts: { provider: 'elevenlabs', provider_config: { api_key: 'xi-new' } } });
    expect(rekeyed.note).toBe('ElevenLabs refused the key: showing stock voices');
    expect(fake.requests.map((r) => r.headers['xi-api-key'])).toEqual(['xi-key', 'xi-key', 'xi-new']);
  });

  it('fetches a preview only from the address the catalogue gave for that voice, with the key only where the vendor wants it', async () => {
    const eleven = await started(startFakeElevenLabsVoices({ apiKey: 'xi-key', voices: ELEVENLABS_VOICES }));
    const cartesia = await started(startFakeCartesiaVoices({ apiKey: 'ct-key', voices: CARTESIA_VOICES }));
    const catalogue = new VoiceCatalogue({ policy: LOOPBACK_VENDOR_HOSTS });
    const fromEleven = request({ provider: 'elevenlabs', credentials: serviceKey('elevenlabs', 'xi-key', eleven.baseUrl) });

    const audio = await catalogue.preview(fromEleven, 'cl0nedV01ceAcmeSupp0rt');
    expect(audio).toEqual({ contentType: 'audio/mpeg', body: eleven.preview });
    const previewRequest = eleven.requests.find((r) => r.path.startsWith('/previews/'))!;
    expect(previewRequest.path).toBe('/previews/cl0nedV01ceAcmeSupp0rt.mp3');
    expect(previewRequest.headers['xi-api-key']).toBeUndefined();

    // A voice the catalogue does not hold, or a URL in its place, is fetched from nowhere.
    expect(await catalogue.preview(fromEleven, 'NotInTheCatalogue')).toBeUndefined();
    expect(await catalogue.preview(fromEleven, eleven.previewUrl('21m00Tcm4TlvDq8ikWAM'))).toBeUndefined();
    expect(eleven.requests.filter((r) => r.path.startsWith('/previews/'))).toHaveLength(1);

    // Cartesia serves its previews with the key the list was read with.
    const cartesiaAudio = await catalogue.preview(
      request({ provider: 'cartesia', credentials: serviceKey('cartesia', 'ct-key', cartesia.url) }),
      'c1a2b3c4-0000-4000-8000-00000000000a',
    );
    expect(cartesiaAudio).toEqual({ contentType: 'audio/wav', body: cartesia.preview });
  });
});
