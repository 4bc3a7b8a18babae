import type { ServerResponse } from 'node:http';
import { encodeMp3 } from '../../../media/mp3.js';
import { startHttpServer, type FakeServer } from '../http-server.js';

// ElevenLabs' voice list as its API answers it: `GET /v1/voices` with the key in `xi-api-key`, answered
// `{voices: [...]}` in one piece, each voice with `voice_id`, `name`, `category` ("premade" for stock voices; "cloned",
// "generated", "professional" for an account's own), `labels` (accent, gender, age, description, use_case) and a
// `preview_url`; a refused key is 401 with FastAPI's `detail` ({status: "invalid_api_key", message}). The previews are
// MP3 files served without a key, as ElevenLabs serves them from public storage; here from the same server.

export interface ElevenLabsVoiceEntry {
  voice_id: string;
  name: string;
  category: 'premade' | 'cloned' | 'generated' | 'professional';
  labels: Record<string, string>;
  description?: string | null;
}

/** `list`: the voices; `silent`: the request is held unanswered; `endless`: a list that never ends. */
export type ElevenLabsVoicesAnswer = 'list' | 'silent' | 'endless';

export interface FakeElevenLabsVoices extends FakeServer {
  /** The API's `/v1` root, as ELEVENLABS_BASE_URL names it. */
  baseUrl: string;
  previewUrl(voiceId: string): string;
  /** The MP3 a preview request is answered with. */
  preview: Buffer;
  /** Resolves with the bytes sent once the reader of an endless list dropped the connection. */
  endlessDropped: Promise<number>;
}

function previewTone(): Promise<Buffer> {
  const rate = 22_050;
  const samples = new Int16Array(rate / 4);
  for (let i = 0; i < samples.length; i++) samples[i] = Math.round(6000 * Math.sin((2 * Math.PI * 330 * i) / rate));
  return encodeMp3(samples, rate);
}

function listedVoice(voice: ElevenLabsVoiceEntry, previewUrl: string) {
  return {
    voice_id: voice.voice_id,
    name: voice.name,
    samples: null,
    category: voice.category,
    fine_tuning: { is_allowed_to_fine_tune: voice.category !== 'premade', state: {}, verification_failures: [], verification_attempts_count: 0 },
    labels: voice.labels,
    description: voice.description ?? null,
    preview_url: previewUrl,
    available_for_tiers: [],
    settings: null,
    sharing: null,
    high_quality_base_model_ids: ['eleven_turbo_v2_5', 'eleven_flash_v2_5'],
    verified_languages: [],
    is_owner: voice.category !== 'premade',
    is_legacy: false,
    is_mixed: false,
  };
}

export async function startFakeElevenLabsVoices(options: {
  apiKey: string;
  voices: ElevenLabsVoiceEntry[];
  answer?: ElevenLabsVoicesAnswer;
}): Promise<FakeElevenLabsVoices> {
  const preview = await previewTone();
  let dropped: (bytes: number) => void = () => undefined;
  const endlessDropped = new Promise<number>((resolve) => (dropped = resolve));
  let url = '';
  const previewUrl = (voiceId: string) => `${url}/previews/${encodeURIComponent(voiceId)}.mp3`;

  const server = await startHttpServer((req, res) => {
    const path = new URL(req.path, 'http://fake').pathname;
    if (req.method === 'GET' && path.startsWith('/previews/') && path.endsWith('.mp3')) {
      const id = decodeURIComponent(path.slice('/previews/'.length, -'.mp3'.length));
      if (!options.voices.some((v) => v.voice_id === id)) return notFound(res);
      res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': String(preview.length) });
      return void res.end(preview);
    }
    if (req.method !== 'GET' || path !== '/v1/voices') return notFound(res);
    if (req.headers['xi-api-key'] !== options.apiKey) {
      res.writeHead(401, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ detail: { status: 'invalid_api_key', message: 'Invalid API key' } }));
    }
    const answer = options.answer ?? 'list';
    if (answer === 'silent') return; // held until the reader gives up or the server closes
    if (answer === 'endless') return endless(res, dropped);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ voices: options.voices.map((v) => listedVoice(v, previewUrl(v.voice_id))) }));
  });
  url = server.url;
  return { ...server, baseUrl: `${server.url}/v1`, previewUrl, preview, endlessDropped };
}

function notFound(res: ServerResponse) {
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ detail: { status: 'not_found', message: 'Not found' } }));
}

/** A voice list that goes on as long as it is read, sent as fast as the reader takes it, with no length declared. */
function endless(res: ServerResponse, dropped: (bytes: number) => void) {
  let sent = 0;
  const filler = `${JSON.stringify(listedVoice({ voice_id: 'filler', name: 'Filler', category: 'premade', labels: {} }, 'https://example.com/x.mp3'))},`;
  res.on('error', () => undefined);
  res.on('close', () => dropped(sent));
  res.writeHead(200, { 'content-type': 'application/json' });
  const pump = () => {
    while (!res.destroyed) {
      sent += filler.length;
      if (!res.write(filler)) return void res.once('drain', pump);
    }
  };
  const head = '{"voices":[';
  sent += head.length;
  res.write(head);
  pump();
}
