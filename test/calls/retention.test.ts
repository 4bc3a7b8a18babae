import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { peaksKey } from '../../media/recording/peaks.js';
import { LocalFileStorage } from '../../media/recording/storage.js';
import { applyRetention } from '../../modules/organizations/retention.js';
import { apiTest } from '../helpers/fixtures.js';

// Retention on a clock the test controls: an organisation's windows set through the API, the job run at chosen
// instants, and what remains afterwards read from the disk and the database, and the audit through the API.

const DAY = 86_400_000;
const it = apiTest;

describe('retention of recordings and transcripts', () => {
  it('deletes what is past each window at the job’s pass, keeps the rest, and audits every deletion', async ({ api, tenant, onTestFinished }) => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'retention-'));
    onTestFinished(() => rm(dataDir, { recursive: true, force: true }));
    const storage = new LocalFileStorage(dataDir);
    const other = await api.tenant('Keeps everything');
    const endedAt = new Date('2026-06-01T12:00:00Z');
    const makeCall = async (organizationId: number, callSid: string, ended: Date) => {
      const call = await api.db.prisma.call.create({
        data: {
          callSid,
          organizationId,
          direction: 'inbound',
          status: 'completed',
          startedAt: ended,
          endedAt: ended,
          summary: 'Ada asked about her order.',
          outcomes: { goal_achieved: true },
        },
      });
      for (const track of ['user', 'mixed']) {
        const storageKey = `recordings/${callSid}/${track}.mp3`;
        await storage.put(storageKey, Buffer.from(`voice of ${callSid}`));
        await api.db.prisma.callRecording.create({ data: { callId: call.id, track, format: 'mp3', storageKey, durationMs: 1_000, sizeBytes: 20 } });
      }
      await storage.put(peaksKey(callSid), Buffer.from('{"version":1}'));
      await api.db.prisma.callTurn.createMany({
        data: [
          { callId: call.id, position: 0, role: 'user', text: 'Where is my order A-17?', startMs: 0, endMs: 900 },
          {
            callId: call.id,
            position: 1,
            role: 'assistant',
            text: 'It shipped on Friday.',
            startMs: 1200,
            endMs: 2400,
            e2eLatencyMs: 640,
            toolCalls: [{ name: 'lookup' }],
          },
        ],
      });
      return call;
    };
    const old = await makeCall(tenant.organizationId, 'CAret00000000000000000000000000001', endedAt);
    const recent = await makeCall(tenant.organizationId, 'CAret00000000000000000000000000002', new Date(endedAt.getTime() + 20 * DAY));
    const elsewhere = await makeCall(other.organizationId, 'CAret00000000000000000000000000003', endedAt);

    const set = await api.call(tenant, 'PATCH', '/api/organization/settings', { recording_retention_days: 30, transcript_retention_days: 60 });
    expect(set.body.data).toMatchObject({ recording_retention_days: 30, transcript_retention_days: 60 });
    expect((await api.call(tenant, 'PATCH', '/api/organization/settings', { recording_retention_days: 0 })).status).toBe(422);

    // 40 days after the old call ended: its recordings are past 30 days; its transcript is not past 60.
    await applyRetention(api.db.prisma, storage, new Date(endedAt.getTime() + 40 * DAY));
    const recordingsOf = (callId: number) => api.db.prisma.callRecording.count({ where: { callId } });
    expect(await recordingsOf(old.id)).toBe(0);
    expect(await storage.size(`recordings/${old.callSid}/mixed.mp3`)).toBeNull();
    expect(await storage.size(peaksKey(old.callSid))).toBeNull();
    expect(await recordingsOf(recent.id)).toBe(2);
    expect(await recordingsOf(elsewhere.id)).toBe(2);
    expect(await storage.size(`recordings/${elsewhere.callSid}/mixed.mp3`)).toBeGreaterThan(0);
    expect((await api.db.prisma.callTurn.findFirstOrThrow({ where: { callId: old.id, position: 0 } })).text).toBe('Where is my order A-17?');

    // 70 days after: the old call's transcript goes too (its timings stay); the recent one's recordings now.
    await applyRetention(api.db.prisma, storage, new Date(endedAt.getTime() + 70 * DAY));
    const turns = await api.db.prisma.callTurn.findMany({ where: { callId: old.id }, orderBy: { position: 'asc' } });
    expect(turns.map((t) => [t.text, t.toolCalls, t.endMs, t.e2eLatencyMs])).toEqual([
      ['', null, 900, null],
      ['', null, 2400, 640],
    ]);
    const oldRow = await api.db.prisma.call.findUniqueOrThrow({ where: { id: old.id } });
    expect(oldRow).toMatchObject({ summary: null, outcomes: null });
    expect(oldRow.transcriptDeletedAt).not.toBeNull();
    expect(await recordingsOf(recent.id)).toBe(0);
    expect((await api.db.prisma.callTurn.findFirstOrThrow({ where: { callId: recent.id, position: 0 } })).text).toBe('Where is my order A-17?');
    expect((await api.db.prisma.callTurn.findFirstOrThrow({ where: { callId: elsewhere.id, position: 0 } })).text).toBe('Where is my order A-17?');
    // Nothing of the deleted words is left in the call's rows.
    expect(JSON.stringify(await api.db.prisma.call.findUniqueOrThrow({ where: { id: old.id }, include: { turns: true, recordings: true } }))).not.toMatch(
      /order A-17|shipped|Ada/,
    );

    // A pass with nothing left to do deletes nothing more.
    expect(await applyRetention(api.db.prisma, storage, new Date(endedAt.getTime() + 71 * DAY))).toBe(0);
    const audit = await api.call(tenant, 'GET', '/api/organization/data-deletions');
    expect(audit.body.data.map((d: { call_sid: string; kind: string; items: number }) => [d.call_sid, d.kind, d.items])).toEqual([
      [recent.callSid, 'recordings', 2],
      [old.callSid, 'transcript', 2],
      [old.callSid, 'recordings', 2],
    ]);
    expect(audit.body.data[2]).toMatchObject({ reason: 'retention', deleted_at: new Date(endedAt.getTime() + 40 * DAY).toISOString() });
    expect((await api.call(other, 'GET', '/api/organization/data-deletions')).body.data).toEqual([]);
    // The call's record says its recordings and transcript are gone.
    const read = await api.call(tenant, 'GET', `/api/calls/${old.callSid}`);
    expect(read.body.data).toMatchObject({ recordings: [], summary: null });
  });
});
