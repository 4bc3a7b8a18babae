import crypto from 'node:crypto';
import { describe, expect } from 'vitest';
import { dbTest } from '../helpers/fixtures.js';
import { afterReply, createCall, localSettings, runTimeline } from './call-harness.js';
import { startFakeOpenAI } from '../fakes/vendors/openai.js';
import { startHttpServer } from '../fakes/http-server.js';
import { signatureValid } from '../fakes/webhook-receiver.js';

// The caller known before the greeting: whole calls (audio in, audio out) whose assistant asks the team's server about
// the call as it starts. What the server answers is in the greeting, the prompt and the call's record; a server that
// does not answer in time leaves the call as it was placed, and the call records why.

const SECRET = `whsec_${crypto.randomBytes(32).toString('base64')}`;

const it = dbTest.extend('llm', { scope: 'file' }, async ({}, { onCleanup }) => {
  const llm = await startFakeOpenAI(() => ({ text: 'It is nine o clock.' }));
  onCleanup(() => llm.close());
  return llm;
});

async function lookupServer(answer: () => { status: number; body?: unknown; holdUntil?: Promise<void> }) {
  const server = await startHttpServer(async (_req, res) => {
    const { status, body, holdUntil } = answer();
    if (holdUntil) await holdUntil;
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body === undefined ? '' : JSON.stringify(body));
  });
  return server;
}

describe('a call whose assistant looks the caller up as it starts', () => {
  it("greets with what the team's server answered, prompts with it, and records it on the call", async ({ db, llm, onTestFinished }) => {
    const server = await lookupServer(() => ({
      status: 200,
      body: {
        variables: { first_name: 'Ada', order: 'A-1042' },
        welcome_message: 'Hello {{var.first_name}}, your order {{var.order}} has shipped.',
        system_prompt: 'You help {{var.first_name}} with the order {{var.order}} of plan {{var.plan}}.',
      },
    }));
    onTestFinished(() => server.close());
    const call = await createCall(
      db.prisma,
      localSettings(llm.url, {
        llm_settings: { welcome_message: 'Hello, how can I help?' },
        call_start_lookup: { url: `${server.url}/lookup`, secret: SECRET, timeout_ms: 5000 },
      }),
      { variables: { plan: 'gold' } },
    );
    const run = await runTimeline(db.prisma, call.id, [{ after: afterReply(1), atMs: 500, text: 'what time is it' }], {
      hangupWhen: afterReply(2),
      allowPrivateToolTargets: true,
    });

    expect(run.result.transcript.map((t) => t.text)).toEqual(['Hello Ada, your order A-1042 has shipped.', 'what time is it', 'It is nine o clock.']);
    const system = (llm.chats()[0]!.messages as { role: string; content: string }[]).find((m) => m.role === 'system')!.content;
    expect(system).toContain('You help «Ada» with the order «A-1042» of plan «gold».');

    const request = server.requests[0]!;
    const headers = { id: request.headers['webhook-id'] as string, timestamp: request.headers['webhook-timestamp'] as string, body: request.body };
    expect((request.headers['webhook-signature'] as string).split(' ').some((s) => signatureValid(SECRET, headers, s))).toBe(true);
    expect(request.json).toMatchObject({ type: 'call.starting', data: { call_sid: call.callSid, direction: 'inbound', variables: { plan: 'gold' } } });

    const row = await db.prisma.call.findUniqueOrThrow({ where: { id: call.id } });
    expect(row.variables).toEqual({ plan: 'gold', first_name: 'Ada', order: 'A-1042' });
    expect(row.callStartLookup).toMatchObject({
      status: 'applied',
      http_status: 200,
      error: null,
      variables: ['first_name', 'order'],
      overrides: ['welcome_message', 'system_prompt'],
    });
    expect(row.missingVariables).toEqual([]);
    // The call records the version of its assistant it ran.
    expect(row.assistantVersion).toBe(1);
  }, 120_000);

  it('goes on past a server that does not answer by the deadline, greeting as placed and recording the time-out', async ({ db, llm, onTestFinished }) => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const server = await lookupServer(() => ({ status: 200, body: { welcome_message: 'Too late' }, holdUntil: held }));
    onTestFinished(async () => {
      release();
      await server.close();
    });
    const call = await createCall(
      db.prisma,
      localSettings(llm.url, {
        llm_settings: { welcome_message: 'Hello, how can I help?' },
        call_start_lookup: { url: `${server.url}/lookup`, secret: SECRET, timeout_ms: 300 },
      }),
    );
    const run = await runTimeline(db.prisma, call.id, [], { hangupWhen: afterReply(1), allowPrivateToolTargets: true });
    expect(run.result.transcript.map((t) => t.text)).toEqual(['Hello, how can I help?']);
    expect(server.requests).toHaveLength(1);
    const row = await db.prisma.call.findUniqueOrThrow({ where: { id: call.id } });
    expect(row.callStartLookup).toMatchObject({ status: 'timed_out', http_status: null, error: 'timed out after 300 ms', variables: [], overrides: [] });
    expect(row.variables).toEqual({});
  }, 120_000);

  it('sends nothing to a private address the service does not allow, and greets as placed', async ({ db, llm, onTestFinished }) => {
    const server = await lookupServer(() => ({ status: 200, body: { welcome_message: 'Should not be heard' } }));
    onTestFinished(() => server.close());
    const call = await createCall(
      db.prisma,
      localSettings(llm.url, {
        llm_settings: { welcome_message: 'Hello, how can I help?' },
        call_start_lookup: { url: `${server.url}/lookup`, secret: SECRET },
      }),
    );
    const run = await runTimeline(db.prisma, call.id, [], { hangupWhen: afterReply(1), allowPrivateToolTargets: false });
    expect(run.result.transcript.map((t) => t.text)).toEqual(['Hello, how can I help?']);
    expect(server.requests).toHaveLength(0);
    expect((await db.prisma.call.findUniqueOrThrow({ where: { id: call.id } })).callStartLookup).toMatchObject({
      status: 'failed',
      error: 'target address is not public',
    });
  }, 120_000);
});
