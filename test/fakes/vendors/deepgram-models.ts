import { encodeWav } from '../../../media/wav.js';
import { startHttpServer, type FakeServer } from '../http-server.js';

// Deepgram's model list as its API answers it: `GET /v1/models` with `Authorization: Token <key>`, answered
// `{stt: [...], tts: [...]}`; a voice is a TTS model: `name`, `canonical_name` (what a request names, "aura-2-thalia-en"),
// `architecture`, `languages`, `version`, `uuid` and `metadata` (accent, age, color, image, `sample`: a public recording,
// served here without a key). A refused key is 401 with Deepgram's `err_code` and `err_msg`.

export interface DeepgramVoiceModel {
  name: string;
  canonical_name: string;
  architecture: string;
  languages: string[];
  accent: string;
  tags: string[];
}

export interface FakeDeepgramModels extends FakeServer {
  sample: Buffer;
}

function sampleTone(): Buffer {
  const sampleRate = 24_000;
  const samples = new Int16Array(sampleRate / 4);
  for (let i = 0; i < samples.length; i++) samples[i] = Math.round(6000 * Math.sin((2 * Math.PI * 392 * i) / sampleRate));
  return encodeWav({ samples, sampleRate, channels: 1 });
}

export async function startFakeDeepgramModels(options: { apiKey: string; voices: DeepgramVoiceModel[] }): Promise<FakeDeepgramModels> {
  const sample = sampleTone();
  let url = '';
  const server = await startHttpServer((req, res) => {
    const path = new URL(req.path, 'http://fake').pathname;
    const sampleOf = /^\/samples\/([^/]+)\.wav$/.exec(path);
    if (req.method === 'GET' && sampleOf && options.voices.some((v) => v.canonical_name === sampleOf[1])) {
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(sample.length) });
      return void res.end(sample);
    }
    if (req.method !== 'GET' || path !== '/v1/models') {
      res.writeHead(404, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ err_code: 'NOT_FOUND', err_msg: 'Not found', request_id: 'req-404' }));
    }
    if (req.headers.authorization !== `Token ${options.apiKey}`) {
      res.writeHead(401, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ err_code: 'INVALID_AUTH', err_msg: 'Invalid credentials.', request_id: 'req-401' }));
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        stt: [
          {
            name: 'general',
            canonical_name: 'nova-3-general',
            architecture: 'nova-3',
            languages: ['en', 'en-US'],
            version: '2025-01-09.0',
            uuid: 'bf05427e-a1f1-4ced-a976-38b2f3533d8d',
            batch: false,
            streaming: true,
            formatted_output: false,
          },
        ],
        tts: options.voices.map((v, i) => ({
          name: v.name,
          canonical_name: v.canonical_name,
          architecture: v.architecture,
          languages: v.languages,
          version: '2025-04-07.0',
          uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
          metadata: {
            accent: v.accent,
            age: 'Adult',
            color: '#C0AAF0',
            image: `${url}/images/${v.canonical_name}.png`,
            sample: `${url}/samples/${v.canonical_name}.wav`,
            tags: v.tags,
          },
        })),
      }),
    );
  });
  url = server.url;
  return { ...server, sample };
}
