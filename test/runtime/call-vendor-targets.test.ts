import dns from 'node:dns/promises';
import os from 'node:os';
import { describe, expect } from 'vitest';
import { isPublicAddress } from '../../lib/net/target-guard.js';
import { dbTest } from '../helpers/fixtures.js';
import { startFakeOpenAI } from '../fakes/vendors/openai.js';
import { afterReply, createCall, localSettings, runTimeline } from './call-harness.js';

// A vendor URL that passes the check at create (a host name, not an address) but resolves inside: the call resolves
// it before it connects, and ends without sending the vendor key, or anything, there.

const it = dbTest.extend('llm', { scope: 'file' }, async ({}, { onCleanup }) => {
  const llm = await startFakeOpenAI(() => ({ text: 'Inside answer.' }));
  onCleanup(() => llm.close());
  return llm;
});

/** The fake LLM's URL under this machine's own host name, which resolves to a loopback or private address. */
async function byHostName(url: string): Promise<string> {
  const name = os.hostname();
  const addresses = await dns.lookup(name, { all: true });
  expect(
    addresses.some((a) => !isPublicAddress(a.address)),
    `${name} resolves to ${JSON.stringify(addresses)}`,
  ).toBe(true);
  const named = new URL(url);
  named.hostname = name;
  return named.href;
}

describe('a call whose LLM URL resolves to a loopback address', () => {
  it('ends failed with vendor_target_refused and sends the LLM nothing when the operator has not allowed the host', async ({ db, llm }) => {
    const url = await byHostName(llm.url);
    const call = await createCall(db.prisma, localSettings(url));
    const before = llm.requests.length;
    const run = await runTimeline(db.prisma, call.id, [{ atMs: 500, text: 'good morning' }], { env: { VENDOR_PRIVATE_HOSTS: '' } });
    expect(run.result).toMatchObject({ status: 'failed', endReason: 'vendor_target_refused' });
    expect(llm.requests.length).toBe(before);
  }, 60_000);

  it('runs when the operator allows the host by name and port', async ({ db, llm }) => {
    const url = await byHostName(llm.url);
    const call = await createCall(db.prisma, localSettings(url));
    const allowed = `${os.hostname()}:${new URL(url).port}`;
    const run = await runTimeline(db.prisma, call.id, [{ atMs: 1_000, text: 'good morning' }], {
      env: { VENDOR_PRIVATE_HOSTS: allowed },
      hangupWhen: afterReply(1),
    });
    expect(run.result.status).toBe('completed');
  }, 120_000);
});
