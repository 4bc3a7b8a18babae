import pino from 'pino';
import { SecretBox } from '../../lib/secret-box.js';
import { createAssistant } from '../../modules/assistants/index.js';
import { startRollupFolder } from '../../modules/analytics/index.js';
import { campaignTick, CampaignWrite, createCampaign, transitionCampaign } from '../../modules/campaigns/index.js';
import { createPhoneConnection, createPhoneNumber } from '../../modules/telephony/index.js';
import { startBenchDatabase } from '../knowledge/bench-database.js';

// A campaign of 10,000 contacts against instant fakes: two dispatchers tick side by side as two API processes would,
// and a dialler that ends every queued call at once (answered) stands in for the carrier. Prints the dials per second
// sustained, the pacing limits against the most ever seen, the database work per dial (from pg_stat_database), and
// checks that every contact was called exactly once. The charts' rollup folder runs beside them, as in an API process.
//
//   npm run bench:campaigns            (CONTACTS=10000 MAX_CONCURRENT=200 PER_MINUTE=6000 by default)

const CONTACTS = Number(process.env.CONTACTS ?? 10_000);
const MAX_CONCURRENT = Number(process.env.MAX_CONCURRENT ?? 200);
const PER_MINUTE = Number(process.env.PER_MINUTE ?? 6_000);
const TICK_MS = 200;
const AREAS = ['212', '415', '312', '713', '305', '206', '617', '404'];

const log = pino({ level: 'silent' });
const db = await startBenchDatabase('campaigns');
const { prisma, owner } = db;
const organizationId = owner.organization_id;
try {
  await prisma.organization.update({ where: { id: organizationId }, data: { maxConcurrentCalls: 10_000 } });
  const secrets = new SecretBox(Buffer.alloc(32, 1));
  const assistant = await createAssistant(prisma, { organizationId, userId: owner.user_id }, { name: 'Bench' } as never, secrets);
  const connection = await createPhoneConnection(prisma, secrets, organizationId, { name: 'Trunk', sip_address: 'sip.bench.example' });
  await createPhoneNumber(prisma, organizationId, { number: '+16505550100', phone_connection_id: connection.id, label: null, assistant_id: assistant.id });
  const phones = Array.from({ length: CONTACTS }, (_, i) => `+1${AREAS[i % AREAS.length]}${String(2_000_000 + i).slice(-7)}`);
  for (let i = 0; i < CONTACTS; i += 5_000) {
    await prisma.contact.createMany({
      data: phones.slice(i, i + 5_000).map((phoneNumber) => ({ organizationId, phoneNumber, source: 'import', customFields: {} })),
    });
  }
  const ids = (await prisma.contact.findMany({ where: { organizationId }, select: { id: true } })).map((c) => c.id);
  const input = CampaignWrite.parse({
    name: 'Bench',
    assistant_id: assistant.id,
    from_numbers: ['+16505550100'],
    schedule: { use_contact_timezone: false, windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start: '00:00', end: '24:00' }] },
    pacing: { max_concurrent_calls: MAX_CONCURRENT, calls_per_minute: PER_MINUTE, org_share: 1 },
  });
  const campaign = await createCampaign(prisma, organizationId, input);
  for (let i = 0; i < ids.length; i += 5_000)
    await prisma.campaignContact.createMany({ data: ids.slice(i, i + 5_000).map((contactId) => ({ campaignId: campaign.id, contactId })) });
  await transitionCampaign(prisma, organizationId, campaign.id, 'start');

  const stats = async () => {
    const [row] = await prisma.$queryRaw<[{ xact: bigint; fetched: bigint; inserted: bigint; updated: bigint }]>`
      SELECT xact_commit AS xact, tup_fetched AS fetched, tup_inserted AS inserted, tup_updated AS updated FROM pg_stat_database WHERE datname = current_database()`;
    return { xact: Number(row.xact), fetched: Number(row.fetched), inserted: Number(row.inserted), updated: Number(row.updated) };
  };
  const before = await stats();
  const started = performance.now();
  let done = false;
  let maxInFlight = 0;
  let ticks = 0;
  const dispatcher = async () => {
    while (!done) {
      await campaignTick(prisma, log);
      ticks++;
      await new Promise((r) => setTimeout(r, TICK_MS));
    }
  };
  // The instant dialler: every queued call of the campaign is answered and over at once.
  const dialler = async () => {
    while (!done) {
      const inFlight = await prisma.campaignContact.count({ where: { campaignId: campaign.id, state: 'dialling' } });
      maxInFlight = Math.max(maxInFlight, inFlight);
      const now = new Date();
      await prisma.call.updateMany({
        where: { campaignId: campaign.id, status: 'queued' },
        data: { status: 'completed', startedAt: now, endedAt: now, durationMs: 0, endReason: 'customer_hangup' },
      });
      const state = (await prisma.campaign.findUniqueOrThrow({ where: { id: campaign.id } })).state;
      if (state === 'completed') done = true;
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  // The charts' rollups are folded beside them, as each API process does (modules/analytics/fold.ts).
  const folder = startRollupFolder(prisma, { logger: log });
  await Promise.all([dispatcher(), dispatcher(), dialler()]);
  await folder.stop();
  const seconds = (performance.now() - started) / 1000;
  const after = await stats();

  const calls = await prisma.call.findMany({ where: { campaignId: campaign.id }, select: { contactId: true, createdAt: true }, orderBy: { createdAt: 'asc' } });
  const distinct = new Set(calls.map((c) => c.contactId)).size;
  let maxPerMinute = 0;
  for (let i = 0, j = 0; i < calls.length; i++) {
    while (calls[i]!.createdAt.getTime() - calls[j]!.createdAt.getTime() >= 60_000) j++;
    maxPerMinute = Math.max(maxPerMinute, i - j + 1);
  }
  const perDial = (n: number) => (n / calls.length).toFixed(1);
  // Before the per-minute limit binds: how fast the dispatchers place calls when only the concurrency limit holds them.
  const burst = Math.min(PER_MINUTE, calls.length) - 1;
  const burstSeconds = (calls[burst]!.createdAt.getTime() - calls[0]!.createdAt.getTime()) / 1000;
  console.log(`campaign of ${CONTACTS} contacts, two dispatchers ticking every ${TICK_MS} ms, instant dialler`);
  console.log(`  completed in ${seconds.toFixed(1)} s: ${(calls.length / seconds).toFixed(0)} dials/s overall, ${ticks} ticks`);
  console.log(
    `  the first ${burst + 1} calls (before the per-minute limit binds) in ${burstSeconds.toFixed(1)} s: ${((burst + 1) / burstSeconds).toFixed(0)} dials/s sustained`,
  );
  console.log(
    `  calls under way: at most ${maxInFlight} seen (limit ${MAX_CONCURRENT}); calls started in any 60 s: at most ${maxPerMinute} (limit ${PER_MINUTE})`,
  );
  console.log(
    `  database per dial: ${perDial(after.xact - before.xact)} transactions, ${perDial(after.fetched - before.fetched)} rows fetched, ${perDial(after.inserted - before.inserted)} inserted, ${perDial(after.updated - before.updated)} updated (the instant dialler's reads included)`,
  );
  console.log(
    `  calls: ${calls.length}, contacts called: ${distinct} of ${CONTACTS}: ${calls.length === CONTACTS && distinct === CONTACTS ? 'none lost, none twice' : 'MISMATCH'}`,
  );
  if (calls.length !== CONTACTS || distinct !== CONTACTS || maxInFlight > MAX_CONCURRENT || maxPerMinute > PER_MINUTE) process.exitCode = 1;
} finally {
  await db.stop();
}
