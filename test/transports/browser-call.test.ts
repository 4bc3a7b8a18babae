import { initializeLogger } from '@livekit/agents';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audioRunnerOf } from '../../agent/io/audio-link.js';
import { LocalCallRunner } from '../../agent/local-runner.js';
import type { CallAudioRunner } from '../../modules/calls/audio-runner.js';
import { createApiContext, type ApiContext, type Tenant } from '../helpers/api.js';
import { until } from '../helpers/until.js';
import { launchChromiumAsking } from '../helpers/chromium.js';
import { localSettings } from '../runtime/call-harness.js';
import type { FakeOpenAI } from '../fakes/vendors/openai.js';
import { loopbackVendorAccess } from '../helpers/vendor-hosts.js';
import { startFakeCallModel } from '../fakes/vendors/call-model.js';

// A real browser call: Debian's Chromium opens the web-call page with a fake microphone playing a WAV of the caller's
// question, the assistant answers audibly, and the call ends with its transcript, recording and call.completed row.

initializeLogger({ pretty: false, level: 'silent' });

let api: ApiContext;
let llm: FakeOpenAI;
let acme: Tenant;
let base: string;
let browser: Browser;
let dataDir: string | undefined;
let runner: CallAudioRunner | undefined;
let assistantId: number;
/** What the worker says of its load (the real reading is the process's own: agent/load/process-load.ts). */
let atCapacity = false;

beforeAll(async () => {
  llm = await startFakeCallModel('Asked the time.', () => ({ text: 'It is noon.' }));
  const dir = (dataDir = await mkdtemp(path.join(os.tmpdir(), 'browser-call-')));
  api = await createApiContext({ dataDir: dir, callAudioRunner: { open: (id) => runner!.open(id), atCapacity: () => atCapacity } });
  runner = audioRunnerOf(new LocalCallRunner(api.db.prisma, dir, { access: loopbackVendorAccess() }));
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  acme = await api.tenant('Acme');
  assistantId = (
    await api.call(
      acme,
      'POST',
      '/api/assistants',
      localSettings(llm.url, { name: 'Web desk', recording_settings: { recording_enabled: true, recording_format: 'wav' } }),
    )
  ).body.id;

  browser = await launchChromiumAsking(dir, 'what time is it');
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await api?.close();
  await llm?.close();
  // The call's recordings and the fake microphone's file.
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('a browser call on the built-in transport', () => {
  it('hears the caller through the fake microphone, plays the answer, and ends with transcript, recording and call.completed', async () => {
    const response = await fetch(`${base}/api/web-calls/browser`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acme.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ assistant_id: assistantId }),
    });
    expect(response.status).toBe(201);
    const created = (await response.json()) as { data: { call_sid: string; page_url: string; token: string } };
    const { call_sid: callSid, page_url: pageUrl } = created.data;
    expect(pageUrl).toBe(`${base}/call/${callSid}?token=${encodeURIComponent(created.data.token)}`);

    const page = await (await browser.newContext()).newPage();
    await page.goto(pageUrl);
    // The call's token names the assistant the caller is about to talk to.
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Call with Web desk');
    await page.click('#start');
    await page.waitForFunction(() => (globalThis as unknown as { callState: { status: string } }).callState.status === 'In call', undefined, {
      timeout: 10_000,
    });
    // While the assistant's audio plays, the page says the assistant is speaking. Read in the page in one step: a short
    // welcome may have ended by the time a second round trip reads the text on a loaded machine.
    await page.waitForFunction(
      () => {
        const page = globalThis as unknown as {
          callState: { activity: string };
          document: { querySelector(selector: string): { textContent: string | null } | null };
        };
        return page.callState.activity === 'assistant' && page.document.querySelector('#activity')?.textContent === 'Assistant speaking';
      },
      undefined,
      { timeout: 30_000 },
    );
    // The answer is played in the page and shown in its transcript.
    await page.waitForFunction(
      () => {
        const s = (globalThis as unknown as { callState: { playedSamples: number; transcript: Array<{ role: string; text: string }> } }).callState;
        return s.playedSamples > 8000 && s.transcript.some((t) => t.role === 'assistant' && t.text === 'It is noon.');
      },
      undefined,
      { timeout: 30_000 },
    );
    const state = await page.evaluate(
      () => (globalThis as unknown as { callState: { sentSamples: number; transcript: Array<{ role: string; text: string }> } }).callState,
    );
    expect(state.sentSamples).toBeGreaterThan(16_000);
    expect(state.transcript).toEqual(expect.arrayContaining([{ role: 'user', text: 'what time is it' }]));
    expect(await page.locator('#transcript').textContent()).toContain('Assistant: It is noon.');

    // Muted, the caller's side goes on as silence; unmuted, as heard. The page says which.
    await page.getByRole('button', { name: 'Mute' }).click();
    expect(await page.locator('#mute').getAttribute('aria-pressed')).toBe('true');
    await page.waitForFunction(() => (globalThis as unknown as { callState: { mutedSamples: number } }).callState.mutedSamples > 3_200, undefined, {
      timeout: 10_000,
    });
    await page.waitForFunction(() => (globalThis as unknown as { callState: { activity: string } }).callState.activity === 'muted', undefined, {
      timeout: 10_000,
    });
    expect(await page.locator('#activity').textContent()).toBe('Muted: the assistant hears silence');
    // With SCREENSHOTS_DIR set (npm run screenshots runs the page tour; this adds the call page), for review.
    if (process.env.SCREENSHOTS_DIR) await page.screenshot({ path: path.join(path.resolve(process.env.SCREENSHOTS_DIR), 'browser-call-muted.png') });
    await page.getByRole('button', { name: 'Unmute' }).click();
    expect(await page.locator('#mute').getAttribute('aria-pressed')).toBe('false');

    await page.click('#hangup');
    await page.waitForFunction(() => (globalThis as unknown as { callState: { ended: unknown } }).callState.ended !== null, undefined, { timeout: 30_000 });
    // Ended: said so, and nothing left to press.
    expect(await page.locator('#status').textContent()).toBe('Call ended');
    expect(await page.locator('#hangup').isDisabled()).toBe(true);
    expect(await page.locator('#mute').isDisabled()).toBe(true);
    expect(await page.getByRole('link', { name: "See this call's record" }).getAttribute('href')).toBe(`/calls/${callSid}`);

    const call = await until(async () => {
      const c = await api.db.prisma.call.findUnique({ where: { callSid }, include: { turns: { orderBy: { position: 'asc' } }, recordings: true } });
      return c && c.status === 'completed' ? c : null;
    }, 30_000);
    expect(call).toMatchObject({ direction: 'inbound', transport: 'browser', endReason: 'customer_hangup', summary: 'Asked the time.' });
    expect(call.turns.map((t) => [t.role, t.text])).toEqual(
      expect.arrayContaining([
        ['user', 'what time is it'],
        ['assistant', 'It is noon.'],
      ]),
    );
    expect(call.recordings.map((r) => r.track).sort()).toEqual(['assistant', 'mixed', 'user']);
    expect(call.recordings.every((r) => r.durationMs > 2000 && r.sizeBytes > 1000)).toBe(true);
    const events = (await api.db.prisma.event.findMany()).filter((e) => (e.payload as { call_sid?: string }).call_sid === callSid).map((e) => e.type);
    expect(events).toEqual(['call.started', 'call.completed']);
  }, 120_000);

  it('refuses a new call with 503 at_capacity and Retry-After while the worker is at capacity, creating nothing', async () => {
    const before = await api.db.prisma.call.count();
    atCapacity = true;
    try {
      const refused = await api.call(acme, 'POST', '/api/web-calls/browser', { assistant_id: assistantId });
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ success: false, code: 'at_capacity' });
      expect(refused.headers['retry-after']).toBe('5');
      expect(await api.db.prisma.call.count()).toBe(before);
    } finally {
      atCapacity = false;
    }
    expect((await api.call(acme, 'POST', '/api/web-calls/browser', { assistant_id: assistantId })).status).toBe(201);
  });

  it('refuses an audio socket whose token names another call', async () => {
    const a = (await api.call(acme, 'POST', '/api/web-calls/browser', { assistant_id: assistantId })).body.data as { token: string };
    const b = (await api.call(acme, 'POST', '/api/web-calls/browser', { assistant_id: assistantId })).body.data as { call_sid: string };
    const res = await fetch(`${base}/call/${b.call_sid}/audio?token=${encodeURIComponent(a.token)}`, {
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' },
    }).catch((e: Error) => e);
    expect(res instanceof Error ? 403 : res.status).toBe(403);
  });

  it('says the page is disconnected when the server refuses its socket, with nothing to hang up', async () => {
    const a = (await api.call(acme, 'POST', '/api/web-calls/browser', { assistant_id: assistantId })).body.data as { token: string };
    const b = (await api.call(acme, 'POST', '/api/web-calls/browser', { assistant_id: assistantId })).body.data as { call_sid: string };
    // Another call's token: the server refuses the socket.
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${base}/call/${b.call_sid}?token=${encodeURIComponent(a.token)}`);
    // A token of another call names nothing about this one.
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Call');
    await page.click('#start');
    await page.waitForFunction(() => (globalThis as unknown as { callState: { status: string } }).callState.status === 'Disconnected', undefined, {
      timeout: 30_000,
    });
    expect(await page.locator('#hangup').isDisabled()).toBe(true);
    await page.context().close();
  });
});
