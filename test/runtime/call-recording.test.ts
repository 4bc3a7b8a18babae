import { readFile } from 'node:fs/promises';
import { describe, expect } from 'vitest';
import { mp3Info } from '../../media/mp3-duration.js';
import { rms } from '../../media/pcm.js';
import { decodeWav } from '../../media/wav.js';
import { dbTest } from '../helpers/fixtures.js';
import { afterReply, connected, createCall, localSettings, runTimeline } from './call-harness.js';
import { startFakeOpenAI } from '../fakes/vendors/openai.js';

const it = dbTest.extend('llm', { scope: 'file' }, async ({}, { onCleanup }) => {
  const llm = await startFakeOpenAI(() => ({ text: 'It is noon.' }));
  onCleanup(() => llm.close());
  return llm;
});

function level(samples: Int16Array, rate: number, fromMs: number, toMs: number): number {
  return rms(samples.subarray(Math.floor((fromMs * rate) / 1000), Math.floor((toMs * rate) / 1000)));
}

describe('call recording', () => {
  it('plays the consent prompt first and stores user, assistant and mixed mp3 tracks as long as the call', async ({ db, llm }) => {
    const consent = 'This call is recorded.';
    const call = await createCall(
      db.prisma,
      localSettings(llm.url, {
        recording_settings: { recording_enabled: true, consent_required: true, consent_prompt: consent },
        llm_settings: { welcome_message: 'Hi there.' },
      }),
    );
    // The caller speaks half a second after the consent prompt and the welcome; once answered, they hang up.
    const run = await runTimeline(db.prisma, call.id, [{ after: afterReply(2), atMs: 500, text: 'what time is it' }], { hangupWhen: afterReply(3) });
    const stored = await db.prisma.call.findUniqueOrThrow({ where: { id: call.id }, include: { recordings: true, turns: { orderBy: { position: 'asc' } } } });
    expect(stored.turns.slice(0, 2).map((t) => t.text)).toEqual([consent, 'Hi there.']);
    expect(stored.recordings.map((r) => r.track).sort()).toEqual(['assistant', 'mixed', 'user']);
    for (const recording of stored.recordings) {
      expect(recording.format).toBe('mp3');
      const bytes = await readFile(`${run.dataDir}/${recording.storageKey}`);
      expect(recording.sizeBytes).toBe(bytes.length);
      const info = mp3Info(bytes);
      expect(info.sampleRate).toBe(16_000);
      // LAME pads the stream with up to two frames (72 ms at 16 kHz).
      expect(Math.abs(info.durationMs - recording.durationMs)).toBeLessThan(150);
      // Every track covers the whole call. It is longer only by caller audio that reached the service faster than it
      // was spoken, as a scripted caller catching up on a busy machine sends it: it is kept, never cut.
      expect(recording.durationMs).toBeGreaterThanOrEqual(stored.durationMs! - 50);
    }
    const event = await db.prisma.event.findFirstOrThrow({ where: { type: 'call.completed', organizationId: call.organizationId } });
    expect((event.payload as { recordings: unknown[] }).recordings).toHaveLength(3);
  }, 120_000);

  it('records in wav with the caller and the assistant where each spoke', async ({ db, llm }) => {
    const call = await createCall(
      db.prisma,
      localSettings(llm.url, { recording_settings: { recording_enabled: true, recording_format: 'wav', record_mixed_audio: false } }),
    );
    // A second into the call the caller asks; once the answer has been spoken, they hang up.
    const run = await runTimeline(db.prisma, call.id, [{ after: connected, atMs: 1000, text: 'what time is it' }], { hangupWhen: afterReply(1) });
    const recordings = await db.prisma.callRecording.findMany({ where: { callId: call.id } });
    expect(recordings.map((r) => r.track).sort()).toEqual(['assistant', 'user']);
    const user = decodeWav(await readFile(`${run.dataDir}/${recordings.find((r) => r.track === 'user')!.storageKey}`));
    const assistant = decodeWav(await readFile(`${run.dataDir}/${recordings.find((r) => r.track === 'assistant')!.storageKey}`));
    // Recordings start with the call; the caller's and the player's times count from when the caller started.
    const onCall = (ms: number) => ms - run.callStartMs;
    const spoken = { startMs: onCall(run.caller.spoken[0]!.startMs), endMs: onCall(run.caller.spoken[0]!.endMs) };
    expect(level(user.samples, user.sampleRate, spoken.startMs, spoken.endMs)).toBeGreaterThan(500);
    expect(level(user.samples, user.sampleRate, 0, spoken.startMs - 100)).toBeLessThan(50);
    const firstReply = onCall(run.playedAtMs[0]!);
    expect(firstReply).toBeGreaterThan(spoken.endMs);
    expect(level(assistant.samples, assistant.sampleRate, firstReply, firstReply + 500)).toBeGreaterThan(500);
    expect(level(assistant.samples, assistant.sampleRate, 0, spoken.endMs)).toBeLessThan(50);
  }, 120_000);
});
