import { encodeWav } from '../../../media/wav.js';
import { startHttpServer, type FakeServer } from '../http-server.js';

// Cartesia's voice list as its API answers it: `GET /voices` with the key in `X-API-Key` and a dated
// `Cartesia-Version`, a page at a time: `{data: [...], has_more, next_page}`, `limit` (1-100) voices a page, the next
// page from `starting_after=<id>`; `is_owner=true` keeps the account's own voices; `expand[]=preview_file_url` adds a
// preview URL to each voice, which is served only with the same key. A request without a version is refused 400, a
// refused key 401, both with an `error` sentence.

export interface CartesiaVoiceEntry {
  id: string;
  name: string;
  description: string;
  is_owner: boolean;
  language: string;
  gender: 'feminine' | 'masculine' | 'gender_neutral' | null;
}

export interface FakeCartesiaVoices extends FakeServer {
  /** The preview WAV of every voice. */
  preview: Buffer;
  /** The list requests, in order, as their query parameters. */
  listQueries(): URLSearchParams[];
}

function previewTone(): Buffer {
  const sampleRate = 16_000;
  const samples = new Int16Array(sampleRate / 4);
  for (let i = 0; i < samples.length; i++) samples[i] = Math.round(6000 * Math.sin((2 * Math.PI * 262 * i) / sampleRate));
  return encodeWav({ samples, sampleRate, channels: 1 });
}

/**
 * `pageSize` caps a page below what `limit` asks, as any server may answer fewer than asked; `has_more` says there is
 * more all the same.
 */
export async function startFakeCartesiaVoices(options: { apiKey: string; voices: CartesiaVoiceEntry[]; pageSize?: number }): Promise<FakeCartesiaVoices> {
  const preview = previewTone();
  let url = '';
  const server = await startHttpServer((req, res) => {
    const target = new URL(req.path, 'http://fake');
    const refuse = (status: number, error: string) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error }));
    };
    if (req.method !== 'GET') return refuse(405, 'Method not allowed');
    if (!/^\d{4}-\d{2}-\d{2}$/.test(String(req.headers['cartesia-version'] ?? ''))) return refuse(400, 'Cartesia-Version header is required');
    if (req.headers['x-api-key'] !== options.apiKey) return refuse(401, 'Invalid API key');

    const previewOf = /^\/voices\/([^/]+)\/preview$/.exec(target.pathname);
    if (previewOf) {
      if (!options.voices.some((v) => v.id === decodeURIComponent(previewOf[1]!))) return refuse(404, 'Voice not found');
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(preview.length) });
      return void res.end(preview);
    }
    if (target.pathname !== '/voices' && target.pathname !== '/voices/') return refuse(404, 'Not found');

    const query = target.searchParams;
    const limit = Number(query.get('limit') ?? 10);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return refuse(400, 'limit must be between 1 and 100');
    const listed = query.get('is_owner') === 'true' ? options.voices.filter((v) => v.is_owner) : options.voices;
    const after = query.get('starting_after');
    const start = after ? listed.findIndex((v) => v.id === after) + 1 : 0;
    const page = listed.slice(start, start + Math.min(limit, options.pageSize ?? limit));
    const expand = query.getAll('expand[]');
    const hasMore = start + page.length < listed.length;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        data: page.map((v) => ({
          id: v.id,
          user_id: v.is_owner ? 'user_fake' : null,
          is_owner: v.is_owner,
          is_public: !v.is_owner,
          name: v.name,
          description: v.description,
          created_at: '2025-03-01T10:00:00Z',
          language: v.language,
          gender: v.gender,
          ...(expand.includes('preview_file_url') ? { preview_file_url: `${url}/voices/${encodeURIComponent(v.id)}/preview` } : {}),
        })),
        has_more: hasMore,
        next_page: hasMore ? page[page.length - 1]!.id : null,
      }),
    );
  });
  url = server.url;
  return {
    ...server,
    preview,
    listQueries: () =>
      server.requests
        .map((r) => new URL(r.path, 'http://fake'))
        .filter((u) => u.pathname.startsWith('/voices') && !u.pathname.endsWith('/preview'))
        .map((u) => u.searchParams),
  };
}
