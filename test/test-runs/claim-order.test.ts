import { describe, expect } from 'vitest';
import { bootstrap } from '../../modules/organizations/bootstrap.js';
import { claimTestRun, renewLease } from '../../modules/test-runs/queue.js';
import { dbTest as it } from '../helpers/fixtures.js';

// The order in which workers take queued runs, claimed directly (no worker runs in this file).

describe('claiming test runs', () => {
  it('takes the oldest run of the organisation with the fewest runs under way, each run once', async ({ db }) => {
    const orgs = [];
    for (const name of ['Busy', 'Quiet']) orgs.push((await bootstrap(db.prisma, { organizationName: name, email: `${name}@example.com` })).organization_id);
    const [busy, quiet] = orgs as [number, number];
    const at = (s: number) => new Date(Date.UTC(2026, 10, 23, 12, 0, s));
    const make = (organizationId: number, created: Date) =>
      db.prisma.testRun.create({ data: { organizationId, request: { script: ['Hi'] }, createdAt: created } });
    const busy1 = await make(busy, at(1));
    const busy2 = await make(busy, at(2));
    const busy3 = await make(busy, at(3));
    const quiet1 = await make(quiet, at(4));

    const first = await claimTestRun(db.prisma, 30_000);
    expect(first?.id).toBe(busy1.id);
    // Busy has a run under way now: Quiet's later run goes before Busy's older ones.
    const second = await claimTestRun(db.prisma, 30_000);
    expect(second?.id).toBe(quiet1.id);
    const third = await claimTestRun(db.prisma, 30_000);
    expect(third?.id).toBe(busy2.id);
    expect(await renewLease(db.prisma, third!, 30_000)).toBe(true);
    const fourth = await claimTestRun(db.prisma, 30_000);
    expect(fourth?.id).toBe(busy3.id);
    expect(await claimTestRun(db.prisma, 30_000)).toBeNull();
  });

  it('never hands one run to two claims at once', async ({ db }) => {
    const org = (await bootstrap(db.prisma, { organizationName: 'Race', email: 'race@example.com' })).organization_id;
    const runs = await Promise.all(Array.from({ length: 5 }, () => db.prisma.testRun.create({ data: { organizationId: org, request: { script: ['Hi'] } } })));
    const claimed = await Promise.all(Array.from({ length: 8 }, () => claimTestRun(db.prisma, 30_000)));
    const ids = claimed.flatMap((c) => (c ? [c.id] : []));
    expect(ids.sort()).toEqual(runs.map((r) => r.id).sort());
  });
});
