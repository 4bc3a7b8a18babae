import type { WebSocket } from 'ws';
import { startWsServer, type FakeWsServer } from '../ws-server.js';

// Deepgram's live transcription as it speaks on the wire: a WebSocket at /v1/listen with the options as query
// parameters and `Authorization: Token <key>`, binary linear16 audio in, JSON `Results` (interim, then `is_final`,
// `speech_final` at an endpoint) out; `{"type": "Finalize"}` makes what was heard final (`from_finalize`),
// `{"type": "CloseStream"}` is answered by `Metadata` and a close. A refused key closes the socket with 1008.

export type DeepgramScript =
  /** After 300 ms of audio all words but the last as an interim result; after 600 ms (or a Finalize) all of them final. */
  | { kind: 'transcribe'; text: string; /** Tagged on the result and its words, as the multilingual model (`language=multi`) does. */ language?: string }
  /** After 300 ms of audio the words as an interim result; then the socket is destroyed. */
  | { kind: 'drop'; text: string };

export const INTERIM_AFTER_MS = 300;
export const FINAL_AFTER_MS = 600;

function results(text: string, fields: { isFinal: boolean; speechFinal: boolean; fromFinalize?: boolean; language?: string | undefined }): string {
  const words = text.split(' ').filter(Boolean);
  return JSON.stringify({
    type: 'Results',
    channel_index: [0, 1],
    start: 0,
    duration: words.length * 0.1 - 0.01,
    is_final: fields.isFinal,
    speech_final: fields.speechFinal,
    ...(fields.fromFinalize ? { from_finalize: true } : {}),
    channel: {
      alternatives: [
        {
          transcript: text,
          confidence: 0.9,
          ...(fields.language ? { languages: [fields.language] } : {}),
          words: words.map((word, i) => ({
            word,
            start: i * 0.1,
            end: i * 0.1 + 0.09,
            confidence: 0.9,
            ...(fields.language ? { language: fields.language } : {}),
          })),
        },
      ],
    },
    metadata: { request_id: 'req-1', model_info: { name: 'nova-3' }, model_uuid: 'm' },
  });
}

export async function startDeepgramServer(options: { apiKey: string; scripts: DeepgramScript[] }): Promise<FakeWsServer> {
  return startWsServer('/v1/listen', (socket: WebSocket, connection, index) => {
    const script = options.scripts[Math.min(index, options.scripts.length - 1)]!;
    if (connection.headers.authorization !== `Token ${options.apiKey}`) return socket.close(1008, 'Invalid credentials');
    const bytesPerMs = (Number(connection.url.searchParams.get('sample_rate') ?? 16_000) * 2) / 1000;
    let audioMs = 0;
    let stage = 0; // 0 nothing sent, 1 interim sent, 2 final sent

    socket.on('message', (data, isBinary) => {
      const bytes = data as Buffer;
      if (!isBinary) {
        const control = JSON.parse(bytes.toString('utf8')) as { type?: string };
        if (control.type === 'CloseStream') {
          socket.send(JSON.stringify({ type: 'Metadata', request_id: 'req-1', duration: audioMs / 1000 }));
          socket.close(1000);
        } else if (control.type === 'Finalize' && stage === 1 && script.kind === 'transcribe') {
          stage = 2;
          socket.send(results(script.text, { isFinal: true, speechFinal: false, fromFinalize: true, language: script.language }));
        }
        return;
      }
      audioMs += bytes.length / bytesPerMs;
      if (stage === 0 && audioMs >= INTERIM_AFTER_MS) {
        stage = 1;
        const heard = script.kind === 'drop' ? script.text : script.text.split(' ').slice(0, -1).join(' ');
        socket.send(results(heard, { isFinal: false, speechFinal: false, language: script.kind === 'transcribe' ? script.language : undefined }));
        // Destroyed without a close frame, as a network failure would.
        if (script.kind === 'drop') setTimeout(() => socket.terminate(), 20);
      } else if (stage === 1 && audioMs >= FINAL_AFTER_MS && script.kind === 'transcribe') {
        stage = 2;
        socket.send(results(script.text, { isFinal: true, speechFinal: true, language: script.language }));
      }
    });
  });
}
