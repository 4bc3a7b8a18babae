import crypto from 'node:crypto';
import type { AudioFrame } from '@livekit/rtc-node';
import { describe, expect } from 'vitest';
import { espeakSynthesize } from '../../media/voice/espeak.js';
import { dbTest } from '../helpers/fixtures.js';
import { afterReply, createCall, localSettings, runTimeline } from './call-harness.js';
import { startFakeOpenAI } from '../fakes/vendors/openai.js';
import { startSonioxServer } from '../fakes/vendors/soniox.js';
import { startHttpServer } from '../fakes/http-server.js';

// Several languages in one assistant, through whole calls: the caller's audio goes to a recogniser on 127.0.0.1 that
// speaks Soniox's wire and identifies each utterance's language; the reply follows the caller into Spanish, told to
// the model and spoken in the Spanish voice (the audio played is that voice's), and each transcript turn records its
// language.

const ENGLISH_REPLY = 'Sure, I can help with that.';
const SPANISH_REPLY = 'Claro, le ayudo ahora mismo.';
const SPANISH_WELCOME = 'Hola, en que puedo ayudarle.';
const WORDS_PER_MINUTE = 230;

type Chat = { messages: { role: string; content: string }[] };
const systemNotes = (chat: Chat) => chat.messages.filter((m) => m.role === 'system').map((m) => m.content);

const it = dbTest.extend('llm', { scope: 'file' }, async ({}, { onCleanup }) => {
  const llm = await startFakeOpenAI((body) => ({
    text: systemNotes(body as unknown as Chat).some((c) => c.includes('Reply in Spanish')) ? SPANISH_REPLY : ENGLISH_REPLY,
  }));
  onCleanup(() => llm.close());
  return llm;
});

function settings(llmUrl: string, extra: Record<string, unknown> = {}) {
  const base = localSettings(llmUrl);
  return {
    ...base,
    stt_settings: { ...(base.stt_settings as object), provider: 'soniox', language: 'en' },
    llm_settings: { welcome_message: 'Hello, how can I help?' },
    languages: [{ language: 'es', voice_id: 'es', welcome_message: SPANISH_WELCOME }],
    ...extra,
  };
}

/** Whether `needle` occurs in `haystack`, sample for sample. */
function contains(haystack: Int16Array, needle: Int16Array): boolean {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

const samplesOf = (frames: AudioFrame[]) => Int16Array.from(frames.flatMap((f) => Array.from(f.data)));

describe('an assistant that speaks English and Spanish', () => {
  it('follows a caller who switches to Spanish: the model is told, the Spanish voice speaks, each turn records its language', async ({ db, llm }) => {
    const soniox = await startSonioxServer({
      apiKey: 'soniox-key',
      scripts: [
        {
          kind: 'utterances',
          utterances: [
            { text: 'good morning', language: 'en' },
            { text: 'buenos dias necesito ayuda', language: 'es' },
          ],
        },
      ],
    });
    try {
      const call = await createCall(db.prisma, settings(llm.url));
      const frames: AudioFrame[] = [];
      const run = await runTimeline(
        db.prisma,
        call.id,
        [
          { after: afterReply(1), atMs: 500, text: 'good morning' },
          { after: afterReply(2), atMs: 500, text: 'buenos dias necesito ayuda' },
        ],
        { hangupWhen: afterReply(3), env: { SONIOX_API_KEY: 'soniox-key', SONIOX_BASE_URL: soniox.url }, playedFrames: frames },
      );

      // The recogniser was asked to listen for both languages.
      expect(soniox.startRequests[0]).toMatchObject({ language_hints: ['en', 'es'], enable_language_identification: true });
      const turns = await db.prisma.callTurn.findMany({ where: { callId: call.id }, orderBy: { position: 'asc' } });
      expect(turns.map((t) => [t.role, t.text, t.language])).toEqual([
        ['assistant', 'Hello, how can I help?', 'en'],
        ['user', 'good morning', 'en'],
        ['assistant', ENGLISH_REPLY, 'en'],
        ['user', 'buenos dias necesito ayuda', 'es'],
        ['assistant', SPANISH_REPLY, 'es'],
      ]);
      expect(run.result.status).toBe('completed');
      // What the model was told with each of the caller's turns. Chats are found by the turn they answer, not by their
      // place: a reply the framework starts early, on a final transcript before the turn has ended, comes first and
      // without the note, and is dropped when the turn's context (with the note) differs from it.
      const chats = llm.chats() as unknown as Chat[];
      const toldWith = (userText: string) => chats.filter((c) => c.messages.filter((m) => m.role === 'user').at(-1)?.content === userText).flatMap(systemNotes);
      expect(toldWith('good morning')).toContain('The caller is speaking English. Reply in English.');
      expect(toldWith('good morning')).not.toContain('The caller is speaking Spanish. Reply in Spanish.');
      expect(toldWith('buenos dias necesito ayuda')).toContain('The caller is speaking Spanish. Reply in Spanish.');

      // The Spanish reply was spoken by the Spanish voice: its audio is espeak-ng's `es` voice, not the English one.
      const played = samplesOf(frames);
      const spanish = await espeakSynthesize(SPANISH_REPLY, { voice: 'es', wordsPerMinute: WORDS_PER_MINUTE, pitch: 50 });
      const english = await espeakSynthesize(SPANISH_REPLY, { voice: 'en-us', wordsPerMinute: WORDS_PER_MINUTE, pitch: 50 });
      const opening = (samples: Int16Array) => samples.subarray(4_000, 8_000);
      expect(contains(played, opening(spanish.samples))).toBe(true);
      expect(contains(played, opening(english.samples))).toBe(false);
    } finally {
      await soniox.close();
    }
  }, 180_000);

  it('starts in Spanish with its Spanish welcome when the call-start lookup says the caller speaks it', async ({ db, llm, onTestFinished }) => {
    const lookup = await startHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ language: 'es-MX' }));
    });
    const soniox = await startSonioxServer({ apiKey: 'soniox-key', scripts: [{ kind: 'utterances', utterances: [] }] });
    onTestFinished(async () => {
      await lookup.close();
      await soniox.close();
    });
    const secret = `whsec_${crypto.randomBytes(32).toString('base64')}`;
    const call = await createCall(db.prisma, settings(llm.url, { call_start_lookup: { url: `${lookup.url}/lookup`, secret } }));
    const run = await runTimeline(db.prisma, call.id, [], {
      hangupWhen: afterReply(1),
      allowPrivateToolTargets: true,
      env: { SONIOX_API_KEY: 'soniox-key', SONIOX_BASE_URL: soniox.url },
    });
    expect(run.result.transcript.map((t) => t.text)).toEqual([SPANISH_WELCOME]);
    const turns = await db.prisma.callTurn.findMany({ where: { callId: call.id } });
    expect(turns.map((t) => t.language)).toEqual(['es']);
    expect((await db.prisma.call.findUniqueOrThrow({ where: { id: call.id } })).callStartLookup).toMatchObject({ status: 'applied', overrides: ['language'] });
  }, 180_000);
});
