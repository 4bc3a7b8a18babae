import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { dbTest } from '../helpers/fixtures.js';
import { afterReply, createCall, localSettings, runTimeline, runtimeOrganization } from './call-harness.js';
import { startFakeOpenAI } from '../fakes/vendors/openai.js';

// A whole call of an organisation that keeps calls as metadata only: the model hears everything, and afterwards
// nothing of what was said is in the database or on disk; the call's metadata and timings are.

const SAID = /appointment|tuesday|\bAda\b|hello, how can i help/i;

const it = dbTest.extend('llm', { scope: 'file' }, async ({}, { onCleanup }) => {
  const llm = await startFakeOpenAI(() => ({ text: 'Your appointment is on Tuesday, Ada.' }));
  onCleanup(() => llm.close());
  return llm;
});

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

describe('a call of an organisation that keeps calls as metadata only', () => {
  it('stores its metadata and timings, and not a word, a recording, an analysis or a variable of it', async ({ db, llm }) => {
    const organizationId = await runtimeOrganization(db.prisma);
    await db.prisma.organization.update({ where: { id: organizationId }, data: { privacyMode: 'metadata_only' } });
    const call = await createCall(
      db.prisma,
      localSettings(llm.url, { llm_settings: { welcome_message: 'Hello, how can I help?' }, recording_settings: { recording_enabled: true } }),
      { variables: { first_name: 'Ada' } },
    );
    const run = await runTimeline(db.prisma, call.id, [{ after: afterReply(1), atMs: 500, text: 'book an appointment' }], { hangupWhen: afterReply(2) });
    // The model heard the call as ever.
    expect(run.result.transcript.map((t) => t.text)).toEqual(['Hello, how can I help?', 'book an appointment', 'Your appointment is on Tuesday, Ada.']);
    expect(JSON.stringify(llm.chats())).toContain('book an appointment');

    const row = await db.prisma.call.findUniqueOrThrow({ where: { id: call.id }, include: { turns: { orderBy: { position: 'asc' } }, recordings: true } });
    expect(row).toMatchObject({ status: 'completed', summary: null, outcomes: null, collectedValues: null, variables: {} });
    expect(row.analysisError).toMatch(/metadata only/);
    expect(row.recordings).toEqual([]);
    expect(row.turns.map((t) => [t.role, t.text])).toEqual([
      ['assistant', ''],
      ['user', ''],
      ['assistant', ''],
    ]);
    expect(row.turns.every((t) => t.endMs >= t.startMs)).toBe(true);
    expect(row.durationMs).toBeGreaterThan(0);
    const events = await db.prisma.event.findMany({ where: { organizationId } });
    expect(events.map((e) => e.type)).toContain('call.completed');
    // Nothing of what was said anywhere in the call's rows or its events.
    const text = JSON.stringify({ row, events }, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value));
    expect(text).not.toMatch(SAID);
    // Nor on disk: no recording was made, so nothing was spooled (the service's sealing key is all DATA_DIR holds).
    expect((await filesUnder(run.dataDir)).map((f) => path.relative(run.dataDir, f))).toEqual(['secrets.key']);
  }, 120_000);
});
