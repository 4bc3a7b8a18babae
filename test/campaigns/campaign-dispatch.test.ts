import { describe, expect } from 'vitest';
import pino from 'pino';
import { campaignTick } from '../../modules/campaigns/dispatcher.js';
import { getCampaign, replaceCampaign, transitionCampaign } from '../../modules/campaigns/service.js';
import { CampaignWrite } from '../../modules/campaigns/schemas.js';
import { dbTest as it } from '../helpers/fixtures.js';
import { ALWAYS, campaignCalls, campaignWorld, endCall } from './campaign-world.js';

// The campaign dispatcher on a clock the test controls: ticks are run directly with the instant they read the
// schedule at, and the calls they queue are ended as the dialler would end them.

const log = pino({ level: 'silent' });
const at = (iso: string) => new Date(iso);
const minutes = (from: Date, n: number) => new Date(from.getTime() + n * 60_000);

describe("calling hours in each contact's own zone", () => {
  it('dials only the contacts inside their window now, and each of the others when theirs opens', async ({ db }) => {
    const world = await campaignWorld(
      db.prisma,
      [
        { phone: '+12125550101' }, // New York, from the number: 09:30 on Tuesday
        { phone: '+14155550102' }, // Los Angeles, from the number: 06:30
        { phone: '+442079460103' }, // London, from the number: 14:30
        { phone: '+14155550104', timezone: 'Asia/Tokyo' }, // its own zone wins over the number's: 23:30
      ],
      { schedule: { windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' }] } },
    );
    const tuesday = at('2026-11-24T14:30:00Z');
    expect(await campaignTick(db.prisma, log, tuesday)).toMatchObject({ queued: 2 });
    expect((await campaignCalls(db.prisma, world.campaignId)).map((c) => c.toNumber).sort()).toEqual(['+12125550101', '+442079460103']);
    const progress = (await getCampaign(db.prisma, world.organizationId, world.campaignId, tuesday)).progress;
    expect(progress.contacts).toMatchObject({ dialling: 2, scheduled: 2 });
    // Los Angeles opens at 09:00 PST, 17:00 UTC; Tokyo at 09:00 JST, 00:00 UTC on Wednesday.
    const scheduled = await db.prisma.campaignContact.findMany({ where: { campaignId: world.campaignId, state: 'scheduled' }, orderBy: { contactId: 'asc' } });
    expect(scheduled.map((c) => c.nextAttemptAt!.toISOString())).toEqual(['2026-11-24T17:00:00.000Z', '2026-11-25T00:00:00.000Z']);
    expect(progress.next_window_opens_at).toBe('2026-11-24T17:00:00.000Z');

    expect(await campaignTick(db.prisma, log, at('2026-11-24T16:59:00Z'))).toMatchObject({ queued: 0 });
    expect(await campaignTick(db.prisma, log, at('2026-11-24T17:00:00Z'))).toMatchObject({ queued: 1 });
    expect(await campaignTick(db.prisma, log, at('2026-11-25T00:00:30Z'))).toMatchObject({ queued: 1 });
    expect((await campaignCalls(db.prisma, world.campaignId)).map((c) => c.toNumber)).toEqual([
      '+12125550101',
      '+442079460103',
      '+14155550102',
      '+14155550104',
    ]);
  });
});

describe('pacing', () => {
  it('never has more calls under way than max_concurrent_calls, nor starts more per minute than calls_per_minute, with two dispatchers', async ({ db }) => {
    const people = Array.from({ length: 30 }, (_, i) => ({ phone: `+1202555${String(1000 + i)}` }));
    const world = await campaignWorld(
      db.prisma,
      people,
      { schedule: ALWAYS, pacing: { max_concurrent_calls: 5, calls_per_minute: 8, org_share: 1 } },
      { maxConcurrentCalls: 100 },
    );
    let now = at('2026-11-24T12:00:00Z');
    const inFlight = async () => db.prisma.campaignContact.count({ where: { campaignId: world.campaignId, state: 'dialling' } });
    for (let round = 0; round < 12; round++) {
      // Two processes tick at the same moment.
      await Promise.all([campaignTick(db.prisma, log, now), campaignTick(db.prisma, log, now)]);
      expect(await inFlight()).toBeLessThanOrEqual(5);
      const calls = await campaignCalls(db.prisma, world.campaignId);
      const lastMinute = calls.filter((c) => c.createdAt.getTime() > now.getTime() - 60_000).length;
      expect(lastMinute).toBeLessThanOrEqual(8);
      for (const call of calls.filter((c) => c.status === 'queued')) await endCall(db.prisma, call.id, 'answered');
      // Twenty seconds a round: three rounds share each minute's budget.
      now = new Date(now.getTime() + 20_000);
    }
    const calls = await campaignCalls(db.prisma, world.campaignId);
    expect(calls.length).toBeGreaterThan(8);
    expect(new Set(calls.map((c) => c.contactId)).size).toBe(calls.length);
  });
});

describe('retries', () => {
  it('calls a busy contact again after its delay, and an unanswered one after its own, until their attempts run out', async ({ db }) => {
    const world = await campaignWorld(db.prisma, [{ phone: '+12025552001' }, { phone: '+12025552002' }], {
      schedule: ALWAYS,
      retry: { busy: { attempts: 2, delay_minutes: 15 }, no_answer: { attempts: 1, delay_minutes: 60 } },
    });
    const [busy, silent] = world.contactIds as [number, number];
    let now = at('2026-11-24T12:00:00Z');
    const attemptsOf = async (contactId: number) => (await campaignCalls(db.prisma, world.campaignId)).filter((c) => c.contactId === contactId);
    const endLatest = async (contactId: number, how: 'busy' | 'no_answer') => endCall(db.prisma, (await attemptsOf(contactId)).at(-1)!.id, how, now);

    await campaignTick(db.prisma, log, now);
    await endLatest(busy, 'busy');
    await endLatest(silent, 'no_answer');
    await campaignTick(db.prisma, log, now); // settles both: scheduled
    const contact = (id: number) =>
      db.prisma.campaignContact.findUniqueOrThrow({ where: { campaignId_contactId: { campaignId: world.campaignId, contactId: id } } });
    expect(await contact(busy)).toMatchObject({ state: 'scheduled', attempts: 1, lastOutcome: 'busy', nextAttemptAt: minutes(now, 15) });
    expect(await contact(silent)).toMatchObject({ state: 'scheduled', attempts: 1, lastOutcome: 'no_answer', nextAttemptAt: minutes(now, 60) });

    const start = now;
    now = minutes(start, 14);
    expect(await campaignTick(db.prisma, log, now)).toMatchObject({ queued: 0 });
    now = minutes(start, 15);
    expect(await campaignTick(db.prisma, log, now)).toMatchObject({ queued: 1 });
    await endLatest(busy, 'busy');
    await campaignTick(db.prisma, log, now);
    now = minutes(start, 30);
    await campaignTick(db.prisma, log, now);
    await endLatest(busy, 'busy');
    await campaignTick(db.prisma, log, now);
    // Three calls: the first and its two retries; then exhausted.
    expect((await attemptsOf(busy)).map((c) => [c.campaignAttempt, c.status])).toEqual([
      [1, 'busy'],
      [2, 'busy'],
      [3, 'busy'],
    ]);
    expect(await contact(busy)).toMatchObject({ state: 'exhausted', attempts: 3, nextAttemptAt: null });

    now = minutes(start, 60);
    expect(await campaignTick(db.prisma, log, now)).toMatchObject({ queued: 1 });
    await endLatest(silent, 'no_answer');
    await campaignTick(db.prisma, log, now);
    expect(await contact(silent)).toMatchObject({ state: 'exhausted', attempts: 2 });
    // Nobody is left: the campaign completes on the next tick, with its event.
    await campaignTick(db.prisma, log, now);
    const campaign = await getCampaign(db.prisma, world.organizationId, world.campaignId);
    expect(campaign).toMatchObject({ state: 'completed', progress: { contacts: { exhausted: 2 }, outcomes: { busy: 3, no_answer: 2 }, attempts: 5 } });
    const events = await db.prisma.event.findMany({
      where: { organizationId: world.organizationId, type: { startsWith: 'campaign.' } },
      orderBy: { createdAt: 'asc' },
    });
    expect(events.map((e) => [e.type, (e.payload as { reason?: string }).reason])).toEqual([
      ['campaign.started', undefined],
      ['campaign.completed', 'all_contacts_called'],
    ]);
  });
});

describe('pausing', () => {
  it('lets calls under way finish and dials nobody new until resumed', async ({ db }) => {
    const people = Array.from({ length: 6 }, (_, i) => ({ phone: `+1202555${3000 + i}` }));
    const world = await campaignWorld(db.prisma, people, { schedule: ALWAYS, pacing: { max_concurrent_calls: 2 } });
    const now = at('2026-11-24T12:00:00Z');
    await campaignTick(db.prisma, log, now);
    const first = await campaignCalls(db.prisma, world.campaignId);
    expect(first).toHaveLength(2);
    await transitionCampaign(db.prisma, world.organizationId, world.campaignId, 'pause', now);
    for (const call of first) await endCall(db.prisma, call.id, 'answered', now);
    expect(await campaignTick(db.prisma, log, now)).toMatchObject({ queued: 0, settled: 2 });
    expect((await getCampaign(db.prisma, world.organizationId, world.campaignId)).progress.contacts).toMatchObject({ done: 2, pending: 4, dialling: 0 });
    await transitionCampaign(db.prisma, world.organizationId, world.campaignId, 'resume', now);
    expect(await campaignTick(db.prisma, log, now)).toMatchObject({ queued: 2 });
  });
});

describe('the circuit breaker', () => {
  it('pauses the campaign with its reason when most recent attempts fail', async ({ db }) => {
    const people = Array.from({ length: 8 }, (_, i) => ({ phone: `+1202555${4000 + i}` }));
    const world = await campaignWorld(db.prisma, people, {
      schedule: ALWAYS,
      pacing: { max_concurrent_calls: 4 },
      circuit_breaker: { min_attempts: 4, failure_ratio: 0.75 },
      retry: { failed: { attempts: 0 } },
    });
    const now = at('2026-11-24T12:00:00Z');
    await campaignTick(db.prisma, log, now);
    const calls = await campaignCalls(db.prisma, world.campaignId);
    for (const [i, call] of calls.entries()) await endCall(db.prisma, call.id, i === 0 ? 'answered' : 'failed', now);
    await campaignTick(db.prisma, log, now);
    const campaign = await getCampaign(db.prisma, world.organizationId, world.campaignId);
    expect(campaign).toMatchObject({
      state: 'paused',
      state_reason: 'circuit_breaker',
      progress: { circuit_breaker: { state: 'open', recent_attempts: 4, recent_failures: 3 }, contacts: { pending: 4 } },
    });
    const paused = await db.prisma.event.findFirstOrThrow({ where: { organizationId: world.organizationId, type: 'campaign.paused' } });
    expect(paused.payload).toMatchObject({ campaign_id: world.campaignId, reason: 'circuit_breaker', recent_attempts: 4, recent_failures: 3 });
    expect(await campaignTick(db.prisma, log, now)).toMatchObject({ queued: 0 });
  });
});

describe('a running campaign changed with PUT', () => {
  it('applies new pacing and calling hours on the next tick, without a restart', async ({ db }) => {
    const people = Array.from({ length: 10 }, (_, i) => ({ phone: `+1202555${7000 + i}` }));
    const world = await campaignWorld(db.prisma, people, { schedule: ALWAYS, pacing: { max_concurrent_calls: 2 } });
    const now = at('2026-11-24T12:00:00Z'); // a Tuesday
    expect(await campaignTick(db.prisma, log, now)).toMatchObject({ queued: 2 });
    const row = await db.prisma.campaign.findUniqueOrThrow({ where: { id: world.campaignId } });
    const input = CampaignWrite.parse({
      name: row.name,
      assistant_id: row.assistantId,
      from_numbers: row.fromNumbers,
      schedule: ALWAYS,
      pacing: { max_concurrent_calls: 5 },
    });
    await replaceCampaign(db.prisma, world.organizationId, world.campaignId, input);
    expect(await campaignTick(db.prisma, log, now)).toMatchObject({ queued: 3 });
    // Calling hours narrowed to weekends: nobody else is called on this Tuesday, even with room to dial.
    await replaceCampaign(db.prisma, world.organizationId, world.campaignId, {
      ...input,
      pacing: { ...input.pacing, max_concurrent_calls: 10 },
      schedule: { ...input.schedule, windows: [{ days: ['sat', 'sun'], start: '09:00', end: '17:00' }] },
    });
    expect(await campaignTick(db.prisma, log, now)).toMatchObject({ queued: 0 });
    expect((await getCampaign(db.prisma, world.organizationId, world.campaignId, now)).progress.next_window_opens_at).toBe('2026-11-28T14:00:00.000Z'); // 09:00 in Washington (202)
  });
});

describe('a running campaign that can no longer place calls', () => {
  it('pauses with the reason when its numbers or its assistant are deleted', async ({ db }) => {
    const numbersGone = await campaignWorld(db.prisma, [{ phone: '+12025558001' }], { schedule: ALWAYS });
    await db.prisma.phoneNumber.deleteMany({ where: { organizationId: numbersGone.organizationId } });
    const assistantGone = await campaignWorld(db.prisma, [{ phone: '+12025558002' }], { schedule: ALWAYS });
    await db.prisma.assistant.deleteMany({ where: { organizationId: assistantGone.organizationId } });
    expect(await campaignTick(db.prisma, log, at('2026-11-24T12:00:00Z'))).toMatchObject({ queued: 0 });
    for (const [world, reason] of [
      [numbersGone, 'no_calling_number'],
      [assistantGone, 'assistant_deleted'],
    ] as const) {
      expect(await getCampaign(db.prisma, world.organizationId, world.campaignId)).toMatchObject({
        state: 'paused',
        state_reason: reason,
        progress: { contacts: { pending: 1 } },
      });
      const paused = await db.prisma.event.findFirstOrThrow({ where: { organizationId: world.organizationId, type: 'campaign.paused' } });
      expect(paused.payload).toMatchObject({ campaign_id: world.campaignId, reason });
    }
  });
});
