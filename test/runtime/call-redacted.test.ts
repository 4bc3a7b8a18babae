import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { text as streamText } from 'node:stream/consumers';
import { describe, expect } from 'vitest';
import { beepSample } from '../../media/recording/beep.js';
import { decodeWav } from '../../media/wav.js';
import { BEEP_MARGIN_MS } from '../../agent/call/recording.js';
import { exportCalls } from '../../modules/calls/export.js';
import { dbTest } from '../helpers/fixtures.js';
import { afterReply, afterCallerSaid, createCall, type Cue, localSettings, runTimeline, runtimeOrganization } from './call-harness.js';
import { startFakeOpenAI } from '../fakes/vendors/openai.js';

// A whole call in the `redacted` mode: the caller gives a name and a phone number, the assistant says an email back,
// the analysis names them all. The model hears everything; afterwards the call's rows, its events, the export and the
// files on disk hold none of it, the placeholders stand where it was, and the recording has a beep over each turn that
// said a personal detail, on that side's track, and nothing of the speech under it.

const NAME_SAID = 'my name is john smith';
// The number alone: with a grammar the offline recogniser matches whole phrases, and a long phrase whose first tens of
// milliseconds it misses matches none (the caller's turn then goes unheard); a run of digits is matched from any start.
const NUMBER_SAID = 'five five five one two three four';
const REPLY = 'Thank you John, I will write to john.smith@example.com.';
/** Every spelling of what was said that must not be stored. */
const PII = /john|smith|five five five|5551234|555 1234|555-1234|555 0123|example\.com|example dot com/i;

const it = dbTest.extend('llm', { scope: 'file' }, async ({}, { onCleanup }) => {
  const llm = await startFakeOpenAI((body) =>
    JSON.stringify(body.messages).includes('You analyse a finished phone call')
      ? {
          text: JSON.stringify({
            summary: 'John Smith called from 555 1234 and asked for mail to john.smith@example.com.',
            goal_achieved: true,
            sentiment: 'positive',
            fields: { caller_name: 'John Smith', phone: '5551234', note: 'write to john.smith@example.com' },
          }),
        }
      : { text: REPLY },
  );
  onCleanup(() => llm.close());
  return llm;
});

/** The assistant has answered the caller's turn that ended with these words. */
function answeredAfter(words: string): Cue {
  return (p) => {
    const at = p.items.findIndex((i) => i.role === 'user' && i.text.trim().toLowerCase().endsWith(words));
    return at >= 0 && afterCallerSaid(words)(p) && p.items.slice(at + 1).some((i) => i.role === 'assistant');
  };
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

const json = (value: unknown) => JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? String(v) : v));

describe('a call in the redacted privacy mode', () => {
  it('stores its words, analysis, variables and export with personal details masked, and beeps them in the recording', async ({ db, llm }) => {
    const organizationId = await runtimeOrganization(db.prisma);
    await db.prisma.organization.update({ where: { id: organizationId }, data: { privacyMode: 'redacted' } });
    const call = await createCall(
      db.prisma,
      localSettings(llm.url, {
        llm_settings: { welcome_message: 'Hello, how can I help?' },
        stt_settings: {
          provider: 'local',
          // Only what the caller says: the offline recogniser picks among its grammar's phrases.
          keyterms: [NAME_SAID, NUMBER_SAID, 'thank you'],
          turn_detection: { mode: 'text_turn_detector', min_endpointing_delay: 0.3, max_endpointing_delay: 1.5 },
        },
        recording_settings: { recording_enabled: true, recording_format: 'wav' },
      }),
      { variables: { first_name: 'John', callback: '+1 415 555 0123' } },
    );
    const run = await runTimeline(
      db.prisma,
      call.id,
      [
        { after: afterReply(1), atMs: 500, text: NAME_SAID },
        { after: afterReply(2), atMs: 500, text: NUMBER_SAID },
      ],
      { hangupWhen: answeredAfter(NUMBER_SAID) },
    );
    // The model heard the call in the clear.
    expect(run.result.transcript.map((t) => t.text)).toEqual(['Hello, how can I help?', NAME_SAID, REPLY, NUMBER_SAID, REPLY]);
    expect(JSON.stringify(llm.chats())).toContain(NUMBER_SAID);

    const row = await db.prisma.call.findUniqueOrThrow({
      where: { id: call.id },
      include: { turns: { orderBy: { position: 'asc' } }, recordings: true },
    });
    expect(row.privacyMode).toBe('redacted');
    expect(row.turns.map((t) => [t.role, t.text])).toEqual([
      ['assistant', 'Hello, how can I help?'],
      ['user', 'my name is [name]'],
      ['assistant', 'Thank you [name], I will write to [email].'],
      ['user', '[phone]'],
      ['assistant', 'Thank you [name], I will write to [email].'],
    ]);
    expect(row.summary).toBe('[name] called from [phone] and asked for mail to [email].');
    expect(row.outcomes).toMatchObject({ fields: { caller_name: '[name]', phone: '[phone]', note: 'write to [email]' } });
    expect(row.variables).toEqual({ first_name: '[name]', callback: '[phone]' });
    const events = await db.prisma.event.findMany({ where: { organizationId } });
    expect(events.map((e) => e.type)).toContain('call.completed');
    const exported = await streamText(exportCalls(db.prisma, organizationId, {}, 'jsonl'));
    expect(exported).toContain('[phone]');
    // Nothing of what was said, in any spelling, in the call's rows, its events or the export.
    expect(json({ row, events })).not.toMatch(PII);
    expect(exported).not.toMatch(PII);

    // On disk: the tracks and their peaks, no spool, and no text of the call in any file.
    const files = await filesUnder(run.dataDir);
    expect(files.map((f) => path.relative(run.dataDir, f)).sort()).toEqual(
      ['secrets.key', ...['assistant.wav', 'mixed.wav', 'user.wav', 'peaks.json'].map((f) => `recordings/${call.callSid}/${f}`)].sort(),
    );
    for (const file of files) expect((await readFile(file)).toString('latin1')).not.toMatch(PII);

    // The recording: each turn that said a detail is beeped on its side's track, over its times and the margin, with
    // the beep's own samples and nothing of the speech; a turn that said none is left as spoken.
    const tracks = Object.fromEntries(
      await Promise.all(row.recordings.map(async (r) => [r.track, decodeWav(await readFile(path.join(run.dataDir, r.storageKey)))] as const)),
    );
    const beeped = (track: 'user' | 'assistant', fromMs: number, toMs: number) => {
      const { samples, sampleRate } = tracks[track]!;
      const from = Math.max(Math.floor(((fromMs - BEEP_MARGIN_MS) * sampleRate) / 1000), 0);
      const to = Math.min(Math.ceil(((toMs + BEEP_MARGIN_MS) * sampleRate) / 1000), samples.length);
      let differing = 0;
      for (let n = from; n < to; n++) if (samples[n] !== beepSample(n, sampleRate)) differing++;
      return { differing, length: to - from };
    };
    for (const turn of row.turns.slice(1)) {
      const side = beeped(turn.role as 'user' | 'assistant', turn.startMs, turn.endMs);
      expect(side.length).toBeGreaterThan(0);
      expect(side.differing).toBe(0);
    }
    // The caller's words as they were spoken lie under the beeps: the whole of each utterance on the caller's track.
    const onCall = (ms: number) => ms - run.callStartMs;
    for (const spoken of run.caller.spoken) {
      const { samples, sampleRate } = tracks.user!;
      for (let n = Math.floor((onCall(spoken.startMs) * sampleRate) / 1000); n < Math.floor((onCall(spoken.endMs) * sampleRate) / 1000); n++) {
        if (samples[n] !== beepSample(n, sampleRate)) throw new Error(`caller audio left unbeeped at ${Math.round((n * 1000) / sampleRate)} ms`);
      }
    }
    // The welcome said nothing personal: it is on the assistant's track as spoken, not beeped.
    const welcome = row.turns[0]!;
    expect(beeped('assistant', welcome.startMs + BEEP_MARGIN_MS, welcome.endMs - BEEP_MARGIN_MS).differing).toBeGreaterThan(0);
  }, 180_000);
});
