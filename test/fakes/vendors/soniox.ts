import type { WebSocket } from 'ws';
import { startWsServer, type FakeWsServer } from '../ws-server.js';

// Soniox's real-time WebSocket API as documented: a JSON start request first (key in the Authorization header or the
// start request's `api_key`), then binary audio; answers are `{tokens, final_audio_proc_ms, total_audio_proc_ms}`,
// `<end>` closes an utterance, `<fin>` answers `{"type":"finalize"}`, an empty frame ends the audio and is answered by
// `{finished: true}`, and a failure is `{error_code, error_message}` followed by a close.

/** What the fake does on one connection. Transcripts are driven by how much audio has arrived, not by time. */
export type SonioxScript =
  /** After 300 ms of audio the words as non-final tokens; after 600 ms (or a finalize) all of them final, then `<end>`. */
  | { kind: 'transcribe'; text: string }
  /** Answers the start request with this error, then closes. */
  | { kind: 'error'; code: number; message: string }
  /** After 300 ms of audio, `settled` as final tokens and `guess` as non-final ones; then the socket is destroyed. */
  | { kind: 'drop'; settled: string; guess: string }
  /**
   * A whole conversation: each stretch of speech in the audio (louder than silence, ended by 400 ms of silence) is heard
   * as the next of `utterances`, its tokens tagged with its language (language identification), then `<end>`.
   */
  | { kind: 'utterances'; utterances: Array<{ text: string; language: string }> };

/** Silence between utterances that ends one, and the level (RMS of 16-bit samples) above which audio is speech. */
const UTTERANCE_END_MS = 400;
const SPEECH_RMS = 300;

function rms(bytes: Buffer): number {
  const count = Math.floor(bytes.length / 2);
  let sum = 0;
  for (let i = 0; i < count; i++) sum += bytes.readInt16LE(i * 2) ** 2;
  return count === 0 ? 0 : Math.sqrt(sum / count);
}

export const INTERIM_AFTER_MS = 300;
export const FINAL_AFTER_MS = 600;

export interface FakeSoniox extends FakeWsServer {
  /** The parsed start request of each connection. */
  startRequests: Array<Record<string, unknown>>;
}

function tokens(text: string, isFinal: boolean, firstIndex = 0, language = 'en'): Array<Record<string, unknown>> {
  return text
    .split(' ')
    .filter(Boolean)
    .map((word, i) => {
      const at = (firstIndex + i) * 100;
      return { text: firstIndex + i === 0 ? word : ` ${word}`, start_ms: at, end_ms: at + 90, confidence: 0.9, is_final: isFinal, language };
    });
}

export async function startSonioxServer(options: { apiKey: string; scripts: SonioxScript[] }): Promise<FakeSoniox> {
  const startRequests: Array<Record<string, unknown>> = [];
  const server = await startWsServer('/transcribe-websocket', (socket: WebSocket, connection, index) => {
    const script = options.scripts[Math.min(index, options.scripts.length - 1)]!;
    let started = false;
    let audioMs = 0;
    let bytesPerMs = 32;
    let stage = 0; // 0 nothing sent, 1 interim sent, 2 final sent
    // Utterances: the next one to hear, whether speech is going on, and the silence since it last was.
    let next = 0;
    let speaking = false;
    let quietMs = 0;
    const send = (message: Record<string, unknown>) => socket.send(JSON.stringify(message));
    const fail = (code: number, message: string) => {
      send({ error_code: code, error_message: message });
      socket.close(1000);
    };

    socket.on('message', (data, isBinary) => {
      const bytes = data as Buffer;
      if (!started) {
        started = true;
        let start: Record<string, unknown>;
        try {
          start = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
        } catch {
          return fail(400, 'Start request must be JSON.');
        }
        startRequests.push(start);
        const bearer = connection.headers.authorization === `Bearer ${options.apiKey}`;
        if (!bearer && start.api_key !== options.apiKey) return fail(401, 'Invalid API key.');
        if (typeof start.model !== 'string') return fail(400, 'Missing model.');
        if (start.audio_format === 'pcm_s16le' && (typeof start.sample_rate !== 'number' || typeof start.num_channels !== 'number')) {
          return fail(400, 'sample_rate and num_channels are required for raw audio.');
        }
        if (script.kind === 'error') return fail(script.code, script.message);
        bytesPerMs = ((start.sample_rate as number) * 2 * (start.num_channels as number)) / 1000;
        return;
      }
      if (bytes.length === 0) {
        send({ tokens: [], final_audio_proc_ms: audioMs, total_audio_proc_ms: audioMs, finished: true });
        socket.close(1000);
        return;
      }
      if (!isBinary) {
        const control = JSON.parse(bytes.toString('utf8')) as { type?: string };
        if (control.type !== 'finalize') return;
        if (script.kind === 'utterances') {
          // The utterance being heard becomes final at once; the next stretch of speech is the next utterance.
          const utterance = speaking ? script.utterances[next] : undefined;
          if (utterance) {
            speaking = false;
            next += 1;
          }
          const heard = utterance ? tokens(utterance.text, true, 0, utterance.language) : [];
          send({ tokens: [...heard, { text: '<fin>', is_final: true }], final_audio_proc_ms: audioMs, total_audio_proc_ms: audioMs });
          return;
        }
        // Everything heard so far becomes final, then `<fin>` marks the finalisation as complete.
        const settled = script.kind === 'transcribe' && stage === 1 ? tokens(script.text, true) : [];
        if (settled.length > 0) stage = 2;
        send({ tokens: [...settled, { text: '<fin>', is_final: true }], final_audio_proc_ms: audioMs, total_audio_proc_ms: audioMs });
        return;
      }
      const chunkMs = bytes.length / bytesPerMs;
      audioMs += chunkMs;
      if (script.kind === 'utterances') {
        const utterance = script.utterances[next];
        if (!utterance) return;
        if (rms(bytes) >= SPEECH_RMS) {
          if (!speaking) send({ tokens: tokens(utterance.text, false, 0, utterance.language), final_audio_proc_ms: 0, total_audio_proc_ms: audioMs });
          speaking = true;
          quietMs = 0;
        } else if (speaking && (quietMs += chunkMs) >= UTTERANCE_END_MS) {
          speaking = false;
          next += 1;
          send({
            tokens: [...tokens(utterance.text, true, 0, utterance.language), { text: '<end>', is_final: true }],
            final_audio_proc_ms: audioMs,
            total_audio_proc_ms: audioMs,
          });
        }
        return;
      }
      if (script.kind === 'drop' && stage === 0 && audioMs >= INTERIM_AFTER_MS) {
        stage = 2;
        const settled = tokens(script.settled, true);
        send({ tokens: [...settled, ...tokens(script.guess, false, settled.length)], final_audio_proc_ms: audioMs, total_audio_proc_ms: audioMs });
        // Destroyed without a close frame or `finished`, as a network failure would.
        setTimeout(() => socket.terminate(), 20);
        return;
      }
      if (script.kind !== 'transcribe') return;
      if (stage === 0 && audioMs >= INTERIM_AFTER_MS) {
        stage = 1;
        send({ tokens: tokens(script.text, false), final_audio_proc_ms: 0, total_audio_proc_ms: audioMs });
      } else if (stage === 1 && audioMs >= FINAL_AFTER_MS) {
        stage = 2;
        send({ tokens: [...tokens(script.text, true), { text: '<end>', is_final: true }], final_audio_proc_ms: audioMs, total_audio_proc_ms: audioMs });
      }
    });
  });
  return { ...server, startRequests };
}
