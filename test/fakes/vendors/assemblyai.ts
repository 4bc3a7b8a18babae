import type { WebSocket } from 'ws';
import { startWsServer, type FakeWsServer } from '../ws-server.js';

// AssemblyAI Universal Streaming v3 as documented: settings in the query string, the key in the Authorization header;
// `Begin`, then `Turn` messages (with `format_turns`, an end of turn is followed by its formatted copy), `Termination`
// after the client's `Terminate`. Audio chunks must last 50 to 1000 ms. A failure is an `Error` frame
// `{type, error_code, error}` followed by a close with that same code.

export type AssemblyAIScript =
  /** After 300 ms of audio a partial turn; after 600 ms (or a ForceEndpoint) the end of turn, and its formatted copy when asked for. */
  | { kind: 'transcribe'; text: string }
  /** Refuses the session with this close code and reason. */
  | { kind: 'error'; code: number; reason: string }
  /** After 300 ms of audio a partial turn; then the socket is destroyed. */
  | { kind: 'drop'; text: string };

export const INTERIM_AFTER_MS = 300;
export const FINAL_AFTER_MS = 600;

function words(text: string, settledCount: number): Array<Record<string, unknown>> {
  return text
    .split(' ')
    .filter(Boolean)
    .map((word, i) => ({ start: i * 100, end: i * 100 + 90, text: word, confidence: 0.9, word_is_final: i < settledCount }));
}

function formatted(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

export async function startAssemblyAIServer(options: { apiKey: string; scripts: AssemblyAIScript[] }): Promise<FakeWsServer> {
  return startWsServer('/v3/ws', (socket: WebSocket, connection, index) => {
    const script = options.scripts[Math.min(index, options.scripts.length - 1)]!;
    const query = connection.url.searchParams;
    const send = (message: Record<string, unknown>) => socket.send(JSON.stringify(message));
    const fail = (code: number, reason: string) => {
      send({ type: 'Error', error_code: code, error: reason });
      socket.close(code, reason.slice(0, 123));
    };

    if (connection.headers.authorization !== options.apiKey) return fail(1008, 'Unauthorized Connection: Invalid API key');
    const sampleRate = Number(query.get('sample_rate'));
    if (!Number.isInteger(sampleRate) || sampleRate <= 0) return fail(3006, 'Invalid sample_rate');
    if (script.kind === 'error') return fail(script.code, script.reason);
    send({ type: 'Begin', id: `session-${index}`, expires_at: Math.floor(Date.now() / 1000) + 3600 });

    const formatTurns = query.get('format_turns') === 'true';
    let audioMs = 0;
    let stage = 0;
    const turn = (fields: Record<string, unknown>) => send({ type: 'Turn', turn_order: 0, end_of_turn_confidence: 0.5, utterance: '', ...fields });

    const endTurn = (text: string) => {
      stage = 2;
      const all = words(text, Number.POSITIVE_INFINITY);
      turn({ end_of_turn: true, turn_is_formatted: false, transcript: text, utterance: text, words: all });
      if (formatTurns) turn({ end_of_turn: true, turn_is_formatted: true, transcript: formatted(text), words: all });
    };

    socket.on('message', (data, isBinary) => {
      const bytes = data as Buffer;
      if (!isBinary) {
        const control = JSON.parse(bytes.toString('utf8')) as { type?: string };
        if (control.type === 'Terminate') {
          send({ type: 'Termination', audio_duration_seconds: Math.round(audioMs / 1000), session_duration_seconds: 1 });
          socket.close(1000);
        } else if (control.type === 'ForceEndpoint' && stage === 1 && script.kind === 'transcribe') {
          endTurn(script.text);
        }
        return;
      }
      const chunkMs = bytes.length / ((sampleRate * 2) / 1000);
      if (chunkMs < 50 || chunkMs > 1000) return fail(3007, `Input duration violation: ${chunkMs} ms. Expected between 50 and 1000 ms`);
      audioMs += chunkMs;
      const text = script.text;
      if (stage === 0 && audioMs >= INTERIM_AFTER_MS) {
        stage = 1;
        const first = text.split(' ')[0] ?? '';
        turn({ end_of_turn: false, turn_is_formatted: false, transcript: first, words: words(text, 1) });
        // Destroyed without a close frame or `Termination`, as a network failure would.
        if (script.kind === 'drop') setTimeout(() => socket.terminate(), 20);
      } else if (stage === 1 && audioMs >= FINAL_AFTER_MS && script.kind === 'transcribe') {
        endTurn(text);
      }
    });
  });
}
