import crypto from 'node:crypto';
import { describe, expect } from 'vitest';
import { SecretBox } from '../../lib/secret-box.js';
import { createAssistant } from '../../modules/assistants/service.js';
import { bootstrap } from '../../modules/organizations/bootstrap.js';
import type { PrismaClient } from '../../prisma/client.js';
import { callModelTest } from '../helpers/fixtures.js';
import { afterReply, localSettings, runTimeline } from './call-harness.js';
import { LOOPBACK_VENDOR_HOSTS } from '../helpers/vendor-hosts.js';

// An assistant's own LLM key, sealed at rest by the API, reaches the vendor opened: the call's requests carry it as
// the bearer token. A key stored in the clear by an earlier release reaches it the same way.

const secrets = new SecretBox(crypto.randomBytes(32));
const KEY = 'sk-own-assistant-key-4242';

const it = callModelTest('Greeted.', () => ({ text: 'Good morning to you.' }));

async function callWith(prisma: PrismaClient, llmUrl: string, box: SecretBox | undefined) {
  const org = await bootstrap(prisma, { organizationName: 'Keys', email: `keys-${crypto.randomUUID()}@example.com` });
  const settings = localSettings(llmUrl, { llm_provider_config: { base_url: llmUrl, model: 'fake-model', custom_config: { api_key: KEY } } });
  const assistant = await createAssistant(
    prisma,
    { organizationId: org.organization_id, userId: org.user_id },
    { name: 'Own key', ...settings } as never,
    box,
    LOOPBACK_VENDOR_HOSTS,
  );
  const call = await prisma.call.create({
    data: {
      callSid: `CA${crypto.randomBytes(6).toString('hex')}`,
      organizationId: org.organization_id,
      assistantId: assistant.id,
      direction: 'inbound',
      variables: {},
    },
  });
  return { call, assistant };
}

describe("an assistant's own LLM key in a call", () => {
  it('is sealed in the row and sent to the LLM opened, as the bearer token', async ({ db, llm }) => {
    const { call, assistant } = await callWith(db.prisma, llm.url, secrets);
    const row = await db.prisma.assistant.findUniqueOrThrow({ where: { id: assistant.id } });
    expect(JSON.stringify(row)).not.toContain(KEY);
    const before = llm.requests.length;
    // Once the reply to the caller's greeting has been spoken, they hang up.
    const run = await runTimeline(db.prisma, call.id, [{ atMs: 1_000, text: 'good morning' }], { hangupWhen: afterReply(1), secrets });
    expect(run.result.status).toBe('completed');
    const sent = llm.requests.slice(before);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
  }, 120_000);

  it('stored in the clear by an earlier release is sent the same way', async ({ db, llm }) => {
    const { call, assistant } = await callWith(db.prisma, llm.url, undefined);
    const row = await db.prisma.assistant.findUniqueOrThrow({ where: { id: assistant.id } });
    expect(JSON.stringify(row)).toContain(KEY);
    const before = llm.requests.length;
    // Once the reply to the caller's greeting has been spoken, they hang up.
    const run = await runTimeline(db.prisma, call.id, [{ atMs: 1_000, text: 'good morning' }], { hangupWhen: afterReply(1), secrets });
    expect(run.result.status).toBe('completed');
    const sent = llm.requests.slice(before);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
  }, 120_000);
});
