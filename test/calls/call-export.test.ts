import { parse } from 'csv-parse/sync';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect } from 'vitest';
import { neutralizeFormula } from '../../modules/calls/export.js';
import { apiTest } from '../helpers/fixtures.js';

const it = apiTest
  .extend('acme', { scope: 'file' }, async ({ api }) => api.tenant('Acme'))
  .extend('other', { scope: 'file' }, async ({ api }) => api.tenant('Other'))
  .extend(
    'exportOf',
    { scope: 'file' },
    async ({ api, acme }) =>
      (query: string, tenant = acme) =>
        api.app.inject({ method: 'GET', url: `/api/calls/export?${query}`, headers: { authorization: `Bearer ${tenant.key}` } }),
  );

it.beforeAll(async ({ api, acme, other }) => {
  const rows = [
    {
      callSid: 'CAexport0000000000000000000000001',
      status: 'completed',
      summary: '=HYPERLINK("http://evil.example","x")',
      toNumber: '+14155550111',
      createdAt: new Date('2026-11-01T00:00:00Z'),
    },
    {
      callSid: 'CAexport0000000000000000000000002',
      status: 'failed',
      summary: 'Plain, with "quotes"\nand a newline',
      toNumber: '+14155550112',
      createdAt: new Date('2026-11-02T00:00:00Z'),
    },
    { callSid: 'CAexport0000000000000000000000003', status: 'busy', summary: null, toNumber: '+14155550113', createdAt: new Date('2026-11-03T00:00:00Z') },
  ];
  for (const r of rows)
    await api.db.prisma.call.create({ data: { ...r, organizationId: acme.organizationId, direction: 'outbound', outcomes: { goal_achieved: true } } });
  await api.db.prisma.call.create({
    data: { callSid: 'CAexportother00000000000000000001', organizationId: other.organizationId, direction: 'outbound', status: 'completed' },
  });
});

describe('GET /api/calls/export', () => {
  it("writes the filtered calls as CSV with a header row, quoting, neutralised formulas, and none of another organisation's", async ({ exportOf }) => {
    const res = await exportOf('format=csv&status=completed&status=failed');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="calls-\d{4}-\d{2}-\d{2}\.csv"$/);
    const records = parse(res.body, { columns: true }) as Record<string, string>[];
    expect(records.map((r) => r.call_sid)).toEqual(['CAexport0000000000000000000000002', 'CAexport0000000000000000000000001']);
    expect(records[0]).toMatchObject({
      status: 'failed',
      summary: 'Plain, with "quotes"\nand a newline',
      to_number: '+14155550112',
      outcomes: '{"goal_achieved":true}',
    });
    expect(records[1]!.summary).toBe(`'=HYPERLINK("http://evil.example","x")`);
    expect(res.body).not.toContain('CAexportother');
  });

  it('writes JSON Lines of call records', async ({ exportOf }) => {
    const res = await exportOf('format=jsonl');
    expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    const lines = res.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.status)).toEqual(['busy', 'failed', 'completed']);
    expect(lines[0]).toMatchObject({
      call_sid: 'CAexport0000000000000000000000003',
      direction: 'outbound',
      transcript_url: '/api/calls/CAexport0000000000000000000000003/transcript',
    });
  });

  it('refuses an unknown format with the 422 of the parameter', async ({ exportOf }) => {
    const res = await exportOf('format=xlsx');
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc).toEqual(['query', 'format']);
  });

  it('leaves numbers alone and prefixes what a spreadsheet would run', () => {
    expect(neutralizeFormula('+14155550123')).toBe('+14155550123');
    expect(neutralizeFormula('-3.5')).toBe('-3.5');
    expect(neutralizeFormula('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(neutralizeFormula('+cmd|calc')).toBe("'+cmd|calc");
  });
});

describe('exporting 100,000 calls', () => {
  it('streams every row, and reads no further ahead of a client that stops reading than a few batches', async ({ api }) => {
    const big = await api.tenant('Big');
    // Without the analytics triggers, which this file never reads: they cost most of the file's time otherwise.
    await api.db.prisma.$transaction([
      api.db.prisma.$executeRaw`SET LOCAL session_replication_role = replica`,
      api.db.prisma.$executeRaw`
      INSERT INTO calls (call_sid, organization_id, direction, status, to_number, summary, created_at, updated_at)
      SELECT 'CAbulk' || lpad(g::text, 26, '0'), ${big.organizationId}, 'outbound', 'completed', '+14155550199',
             'A summary of about sixty characters, repeated for every call.', now() - g * interval '1 second', now()
      FROM generate_series(1, 100000) g`,
    ]);
    // Counts the batches the export reads from the database.
    const calls = api.db.prisma.call as unknown as { findMany: (...args: unknown[]) => Promise<unknown> };
    const findMany = calls.findMany.bind(calls);
    let batches = 0;
    calls.findMany = (...args) => {
      batches += 1;
      return findMany(...args);
    };
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    let response: http.IncomingMessage | undefined;
    try {
      const { port } = api.app.server.address() as AddressInfo;
      response = await new Promise<http.IncomingMessage>((resolve, reject) =>
        http
          .get({ host: '127.0.0.1', port, path: '/api/calls/export?format=csv', headers: { authorization: `Bearer ${big.key}` } }, resolve)
          .on('error', reject),
      );
      expect(response.statusCode).toBe(200);
      // The client reads one chunk, then stops for a while: the export must stop with it (TCP backpressure).
      const paused = response;
      const first = await new Promise<Buffer>((resolve) =>
        paused.once('data', (chunk: Buffer) => {
          // Paused in the handler itself: a flowing stream with no listener would drop what comes next.
          paused.pause();
          resolve(chunk);
        }),
      );
      await new Promise((r) => setTimeout(r, 1500));
      const readWhilePaused = batches;
      // Kernel socket buffers on loopback hold a few MB (a few dozen batches); the other ~75 wait for the client.
      expect(readWhilePaused).toBeLessThan(50);
      let lines = 0;
      let bytes = first.length;
      for (const c of first) if (c === 10) lines += 1;
      paused.resume();
      for await (const chunk of paused) {
        bytes += (chunk as Buffer).length;
        for (const c of chunk as Buffer) if (c === 10) lines += 1;
      }
      // The header and 100,000 rows, each line ended by a newline; each batch of 1,000 read once.
      expect(lines).toBe(100_001);
      expect(batches).toBe(101);
      expect(bytes).toBeGreaterThan(10_000_000);
    } finally {
      response?.destroy();
      calls.findMany = findMany;
    }
  }, 120_000);
});
