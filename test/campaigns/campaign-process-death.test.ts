import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect } from 'vitest';
import pino from 'pino';
import { campaignTick } from '../../modules/campaigns/dispatcher.js';
import { getCampaign } from '../../modules/campaigns/service.js';
import { dbTest as it } from '../helpers/fixtures.js';
import { ALWAYS, campaignCalls, campaignWorld, endCall } from './campaign-world.js';

// A dispatcher process killed (SIGKILL) while it works through a campaign, its calls being answered or found busy
// meanwhile, and this process finishing the campaign: every contact is called exactly once for its one attempt, and
// none is left behind.

const SCRIPT = path.join(import.meta.dirname, 'dispatcher-process.ts');
const CLOCK = '2026-11-24T12:00:00Z';
const log = pino({ level: 'silent' });

describe('a campaign whose dispatcher process is killed', () => {
  it('is finished by another process with each contact dialled once per attempt and nobody skipped', async ({ db }) => {
    const people = Array.from({ length: 120 }, (_, i) => ({ phone: `+1202555${5000 + i}` }));
    const world = await campaignWorld(
      db.prisma,
      people,
      {
        schedule: ALWAYS,
        pacing: { max_concurrent_calls: 25, calls_per_minute: 6000, org_share: 1 },
        retry: { busy: { attempts: 0 }, no_answer: { attempts: 0 }, failed: { attempts: 0 }, voicemail: { attempts: 0 } },
      },
      { maxConcurrentCalls: 10_000 },
    );
    const index = new Map(world.contactIds.map((id, i) => [id, i]));
    // The dialler's part: every queued call ends, answered for even contacts and busy for odd ones.
    const settle = async () => {
      for (const call of (await campaignCalls(db.prisma, world.campaignId)).filter((c) => c.status === 'queued')) {
        await endCall(db.prisma, call.id, index.get(call.contactId!)! % 2 === 0 ? 'answered' : 'busy', new Date(CLOCK));
      }
    };

    const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], {
      env: { ...process.env, DATABASE_URL: db.url, CLOCK },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
      child.once('exit', () => reject(new Error('dispatcher process exited before it was ready')));
    });
    // Killed at an arbitrary moment once it has placed some of the campaign's calls.
    const deadline = Date.now() + 30_000;
    while ((await db.prisma.call.count({ where: { campaignId: world.campaignId } })) < 30 && Date.now() < deadline) await settle();
    await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 300)));
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const placedBefore = await db.prisma.call.count({ where: { campaignId: world.campaignId } });
    expect(placedBefore).toBeGreaterThanOrEqual(30);
    expect(placedBefore).toBeLessThan(120);

    for (let round = 0; round < 40; round++) {
      await settle();
      await campaignTick(db.prisma, log, new Date(CLOCK));
      if ((await db.prisma.campaign.findUniqueOrThrow({ where: { id: world.campaignId } })).state === 'completed') break;
    }
    const campaign = await getCampaign(db.prisma, world.organizationId, world.campaignId);
    expect(campaign.state).toBe('completed');
    expect(campaign.progress.contacts).toMatchObject({ total: 120, done: 60, exhausted: 60, pending: 0, scheduled: 0, dialling: 0, skipped: 0 });
    const calls = await campaignCalls(db.prisma, world.campaignId);
    expect(calls).toHaveLength(120);
    expect(new Set(calls.map((c) => c.contactId)).size).toBe(120);
    expect(calls.every((c) => c.campaignAttempt === 1)).toBe(true);
    const rows = await db.prisma.campaignContact.findMany({ where: { campaignId: world.campaignId } });
    expect(rows.every((r) => r.attempts === 1)).toBe(true);
  }, 120_000);
});
