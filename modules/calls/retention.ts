import { z } from 'zod';
import type { Db, PrismaClient } from '../../prisma/client.js';
import { Prisma } from '../../prisma/generated/client.js';
import type { RecordingStorage } from '../../media/recording/storage.js';
import { peaksKey } from '../../media/recording/peaks.js';
import { paginationOf } from '../../lib/pagination.js';

// A call's recordings and transcript deleted once its organisation's retention window has passed since it ended
// (modules/organizations/retention.ts runs the job). Recordings go from the storage, then their rows; a transcript
// loses its words (each turn's text, its tool calls and the passages it was given, the call's summary and outcomes),
// while its timings stay, so the latency charts of past periods do not change. Each deletion is recorded in
// data_deletions, the audit a compliance officer reads. A call is handled in a transaction of its own, so a job that
// dies leaves every call either done, with its audit row, or untouched.

/** Calls handled in one pass: the job goes again at once while there are more. */
export const RETENTION_BATCH = 100;

export interface Expiry {
  organizationId: number;
  /** Calls that ended before this lose their recordings; null keeps them. */
  recordingsEndedBefore: Date | null;
  /** Calls that ended before this lose their transcript; null keeps it. */
  transcriptsEndedBefore: Date | null;
}

/** Deletes what is past the windows, up to a batch of calls; answers how many calls were handled. */
export async function expireCallData(prisma: PrismaClient, storage: RecordingStorage, expiry: Expiry, now: Date): Promise<number> {
  const { organizationId, recordingsEndedBefore: recordings, transcriptsEndedBefore: transcripts } = expiry;
  if (!recordings && !transcripts) return 0;
  const due = await prisma.call.findMany({
    where: {
      organizationId,
      OR: [
        ...(recordings ? [{ endedAt: { lt: recordings }, recordingsDeletedAt: null }] : []),
        ...(transcripts ? [{ endedAt: { lt: transcripts }, transcriptDeletedAt: null }] : []),
      ],
    },
    select: { id: true, callSid: true, endedAt: true, recordingsDeletedAt: true, transcriptDeletedAt: true, recordings: { select: { storageKey: true } } },
    orderBy: { endedAt: 'asc' },
    take: RETENTION_BATCH,
  });
  for (const call of due) {
    const dropRecordings = recordings !== null && call.recordingsDeletedAt === null && call.endedAt! < recordings;
    const dropTranscript = transcripts !== null && call.transcriptDeletedAt === null && call.endedAt! < transcripts;
    // The files first: a job that dies after them finds the rows still there and removes them again (no error).
    if (dropRecordings) {
      for (const r of call.recordings) await storage.remove(r.storageKey);
      // The waveform stored beside the tracks says when the caller spoke: it goes with them.
      await storage.remove(peaksKey(call.callSid));
    }
    await prisma.$transaction(async (tx) => {
      if (dropRecordings) {
        const { count } = await tx.callRecording.deleteMany({ where: { callId: call.id } });
        await tx.call.update({ where: { id: call.id }, data: { recordingsDeletedAt: now } });
        await tx.dataDeletion.create({
          data: { organizationId, callSid: call.callSid, kind: 'recordings', reason: 'retention', items: count, deletedAt: now },
        });
      }
      if (dropTranscript) {
        const { count } = await tx.callTurn.updateMany({
          where: { callId: call.id },
          data: { text: '', toolCalls: Prisma.DbNull, retrieval: Prisma.DbNull, turnDecision: Prisma.DbNull },
        });
        await tx.call.update({
          where: { id: call.id },
          data: { transcriptDeletedAt: now, summary: null, outcomes: Prisma.DbNull, analysisError: null },
        });
        await tx.dataDeletion.create({
          data: { organizationId, callSid: call.callSid, kind: 'transcript', reason: 'retention', items: count, deletedAt: now },
        });
      }
    });
  }
  return due.length;
}

export const DataDeletion = z
  .object({
    call_sid: z.string(),
    kind: z.enum(['recordings', 'transcript']),
    reason: z.enum(['retention']).describe("retention: the organisation's window had passed since the call ended"),
    items: z.int().describe('How many recordings, or transcript turns, were deleted'),
    deleted_at: z.iso.datetime(),
  })
  .meta({ id: 'DataDeletion' });

/** The organisation's deletions, newest first. */
export async function listDataDeletions(db: Db, organizationId: number, page: number, perPage: number) {
  const where = { organizationId };
  const [rows, total] = await Promise.all([
    db.dataDeletion.findMany({ where, orderBy: { id: 'desc' }, skip: (page - 1) * perPage, take: perPage }),
    db.dataDeletion.count({ where }),
  ]);
  return {
    data: rows.map((r) => ({
      call_sid: r.callSid,
      kind: r.kind as 'recordings' | 'transcript',
      reason: r.reason as 'retention',
      items: r.items,
      deleted_at: r.deletedAt.toISOString(),
    })),
    pagination: paginationOf(page, perPage, total),
  };
}
