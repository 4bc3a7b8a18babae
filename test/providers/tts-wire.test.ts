import { APIError, APIStatusError, DEFAULT_API_CONNECT_OPTIONS, initializeLogger } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ttsFactories, vendorAccessFromEnv } from '../../agent/providers/speech-providers.js';
import { NO_RETRY, streamed, synthesized, tone, ttsConformance, ttsSettings as settings, unhandledRejectionsDuring } from '../conformance/tts.js';
import { startHttpServer, type FakeServer } from '../fakes/http-server.js';
import { startWsServer, type FakeWsServer } from '../fakes/ws-server.js';

// Each voice vendor's wire format against a fake on 127.0.0.1: the request it documents (path, auth, voice, model,
// audio format) and its audio answer, decoded into the frames the session plays.

initializeLogger({ pretty: false, level: 'silent' });

/** ElevenLabs' error answer: FastAPI's `detail`, with a status word and a message. */
function elevenLabsError(res: ServerResponse, status: number, detail: { status: string; message: string }) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ detail }));
}

const elevenLabs = (server: FakeServer, apiKey = 'xi-key', extra: Record<string, unknown> = {}) =>
  ttsFactories.elevenlabs!(
    settings({ provider: 'elevenlabs', voice_id: 'voice123', ...extra }),
    vendorAccessFromEnv({ ELEVENLABS_API_KEY: apiKey, ELEVENLABS_BASE_URL: server.url }),
  );

describe('ElevenLabs', () => {
  ttsConformance<FakeServer>({
    path: 'synthesize',
    speaking: (ms) =>
      startHttpServer((req, res) => {
        const rate = Number(/output_format=pcm_(\d+)/.exec(req.path)?.[1] ?? 22050);
        res.writeHead(200, { 'content-type': 'audio/pcm' });
        res.end(tone(ms, rate));
      }),
    create: (server) => elevenLabs(server, 'xi-key', { model_id: 'eleven_flash_v2_5' }),
    checkRequest(server) {
      const req = server.requests[0]!;
      expect(req.method).toBe('POST');
      expect(req.path).toMatch(/^\/text-to-speech\/voice123\/stream\?output_format=pcm_\d+/);
      expect(req.headers['xi-api-key']).toBe('xi-key');
      expect(req.json).toMatchObject({ text: 'It is noon.', model_id: 'eleven_flash_v2_5' });
    },
    // The framework's ChunkedStream rethrows a failed synthesis into a promise nobody holds (see
    // agent/providers/observed-synthesis.ts); vitest fails the run on such a rejection, and the count of them says it.
    error: {
      failing: () => startHttpServer((_req, res) => elevenLabsError(res, 401, { status: 'invalid_api_key', message: 'Invalid API key' })),
      status: 401,
      check(server, errors, frames) {
        expect(frames).toEqual([]);
        expect(server.requests).toHaveLength(1);
        expect(errors).toHaveLength(1);
        expect(errors[0]!.recoverable).toBe(false);
        expect((errors[0]!.error as APIStatusError).retryable).toBe(false);
        expect(errors[0]!.error.message).toContain('Invalid API key');
      },
    },
  });

  let http: FakeServer | undefined;
  afterEach(async () => {
    await http?.close();
    http = undefined;
  });

  it('retries a 429 and a 500, then surfaces each as a retryable API status error, and leaks no rejection', async () => {
    http = await startHttpServer((req, res) => {
      if ((req.json as { text: string }).text === 'Busy.')
        elevenLabsError(res, 429, { status: 'too_many_concurrent_requests', message: 'Too many concurrent requests' });
      else elevenLabsError(res, 500, { status: 'internal_server_error', message: 'Something went wrong' });
    });
    const engine = elevenLabs(http);
    const errors: APIStatusError[] = [];
    engine.on('error', (ev) => errors.push(ev.error as APIStatusError));
    const frames: AudioFrame[] = [];
    const leaked = await unhandledRejectionsDuring(async () => {
      await Promise.all(['Busy.', 'Broken.'].map(async (text) => frames.push(...(await synthesized(engine, text)))));
    });
    expect(leaked).toEqual([]);
    expect(frames).toEqual([]);
    // The plugin's synthesize() takes no connection options, so the framework's defaults decide: 1 + 3 attempts.
    const attempts = (text: string) => http!.requests.filter((r) => (r.json as { text: string }).text === text).length;
    expect(attempts('Busy.')).toBe(DEFAULT_API_CONNECT_OPTIONS.maxRetry + 1);
    expect(attempts('Broken.')).toBe(DEFAULT_API_CONNECT_OPTIONS.maxRetry + 1);
    const [busy, broken] = [...errors].sort((a, b) => a.statusCode - b.statusCode);
    expect(errors).toHaveLength(2);
    expect(busy).toBeInstanceOf(APIStatusError);
    expect([busy!.statusCode, busy!.retryable]).toEqual([429, true]);
    expect(busy!.message).toContain('Too many concurrent requests');
    expect(broken).toBeInstanceOf(APIStatusError);
    expect([broken!.statusCode, broken!.retryable]).toEqual([500, true]);
  }, 120_000);

  it('surfaces a refused WebSocket handshake of the streaming path (the one the session uses) on the error event', async () => {
    // An auth or quota failure can come as a refused multi-stream-input upgrade. A plain HTTP server (no 'upgrade'
    // listener) answers the upgrade request like any other, with the status and body given here.
    http = await startHttpServer((_req, res) => elevenLabsError(res, 401, { status: 'invalid_api_key', message: 'Invalid API key' }));
    const engine = elevenLabs(http, 'bad-key');
    const errors: unknown[] = [];
    engine.on('error', (ev) => errors.push(ev.error));
    const leaked = await unhandledRejectionsDuring(async () => {
      await streamed(engine, 'It is noon.', NO_RETRY);
      await engine.close();
    });
    expect(leaked).toEqual([]);
    const req = http.requests[0]!;
    expect(req.headers.upgrade).toBe('websocket');
    expect(req.path).toMatch(/^\/text-to-speech\/voice123\/multi-stream-input\?/);
    expect(req.headers['xi-api-key']).toBe('bad-key');
    // The plugin turns any failed connect into "could not connect to ElevenLabs" (its src/tts.ts:981-985): an APIError
    // without the status, retried as the session's connection options allow.
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(APIError);
  });
});

describe('Cartesia', () => {
  const cartesia = (server: FakeWsServer, extra: Record<string, unknown> = {}) =>
    ttsFactories.cartesia!(
      settings({ provider: 'cartesia', voice_id: 'voice-abc', ...extra }),
      vendorAccessFromEnv({ CARTESIA_API_KEY: 'ct-key', CARTESIA_BASE_URL: server.url.replace('ws', 'http') }),
    );

  ttsConformance<FakeWsServer>({
    path: 'stream',
    speaking: (ms) =>
      startWsServer('/tts/websocket', (socket) => {
        socket.on('message', (data, isBinary) => {
          if (isBinary) return;
          const msg = JSON.parse(data.toString()) as { context_id: string; continue: boolean; output_format: { sample_rate: number } };
          if (msg.continue) {
            socket.send(
              JSON.stringify({
                type: 'chunk',
                data: tone(ms, msg.output_format.sample_rate).toString('base64'),
                done: false,
                status_code: 206,
                step_time: 10,
                context_id: msg.context_id,
              }),
            );
          } else {
            socket.send(JSON.stringify({ type: 'done', done: true, status_code: 200, context_id: msg.context_id }));
          }
        });
      }),
    create: (server) => cartesia(server, { model_id: 'sonic-2' }),
    checkRequest(server) {
      const conn = server.connections[0]!;
      expect(conn.headers['x-api-key'] ?? conn.url.searchParams.get('api_key')).toBe('ct-key');
      const first = JSON.parse(conn.text[0]!) as Record<string, unknown>;
      expect(first).toMatchObject({
        model_id: 'sonic-2',
        voice: { mode: 'id', id: 'voice-abc' },
        output_format: { container: 'raw', encoding: 'pcm_s16le' },
        continue: true,
      });
      expect(String(first.transcript)).toContain('noon');
    },
    // An error message of the socket.
    error: {
      failing: () =>
        startWsServer('/tts/websocket', (socket) => {
          socket.on('message', (data) => {
            const msg = JSON.parse(data.toString()) as { context_id: string };
            socket.send(JSON.stringify({ type: 'error', error: 'Internal server error', status_code: 500, done: true, context_id: msg.context_id }));
          });
        }),
      status: 500,
    },
  });
});

describe('Deepgram Aura', () => {
  ttsConformance<FakeWsServer>({
    path: 'stream',
    speaking: (ms) =>
      startWsServer('/v1/speak', (socket, connection) => {
        socket.on('message', (data, isBinary) => {
          if (isBinary) return;
          const msg = JSON.parse(data.toString()) as { type: string };
          if (msg.type === 'Flush') {
            socket.send(tone(ms, Number(connection.url.searchParams.get('sample_rate') ?? 24000)));
            socket.send(JSON.stringify({ type: 'Flushed', sequence_id: 0 }));
          }
        });
      }),
    create: (server) =>
      ttsFactories.deepgram!(
        settings({ provider: 'deepgram', voice_id: 'aura-2-thalia-en' }),
        vendorAccessFromEnv({ DEEPGRAM_API_KEY: 'dg-key', DEEPGRAM_BASE_URL: server.url.replace('ws', 'http') }),
      ),
    checkRequest(server) {
      const conn = server.connections[0]!;
      expect(conn.headers.authorization).toBe('Token dg-key');
      expect(conn.url.searchParams.get('model')).toBe('aura-2-thalia-en');
      expect(conn.url.searchParams.get('encoding')).toBe('linear16');
      const speak = conn.text.map((t) => JSON.parse(t) as { type: string; text?: string }).filter((m) => m.type === 'Speak');
      expect(speak.map((m) => m.text).join('')).toContain('noon');
    },
  });
});
