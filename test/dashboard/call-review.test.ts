import { AudioFrame } from '@livekit/rtc-node';
import type { Page } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { CallRecorder, RECORDING_RATE } from '../../media/recording/recorder.js';
import { peaksKey } from '../../media/recording/peaks.js';
import { spoolDirOf } from '../../media/recording/spool.js';
import { LocalFileStorage } from '../../media/recording/storage.js';
import { encodeWav } from '../../media/wav.js';
import { speechSamples } from '../fakes/scripted-caller.js';
import { BrowserSession } from '../helpers/browser-session.js';
import { hasChromium, launchChromium } from '../helpers/chromium.js';
import { apiTestWith } from '../helpers/fixtures.js';
import type { ApiContext, Tenant } from '../helpers/api.js';
import { addPerson, type Person } from '../helpers/people.js';
import { signIn } from '../helpers/sign-in.js';
import { until } from '../helpers/until.js';

/**
 * The recording's audio element as the page has it, read by a function: a string predicate is evaluated in the page,
 * and the page's Content-Security-Policy (script-src 'self') refuses that.
 */
async function audioState(page: Page): Promise<{ readyState: number; currentTime: number }> {
  return page.locator('#call-audio').evaluate((element) => {
    const audio = element as unknown as { readyState: number; currentTime: number };
    return { readyState: audio.readyState, currentTime: audio.currentTime };
  });
}

// A call's review with its waveforms: a call recorded by the recorder, its tracks and peaks rendered into storage as
// at the end of a call, read in the dashboard with a marker per turn; calls without peaks read without waveforms. In
// Chromium, a marker and a click on the picture seek the player, and the page fits a phone. With SCREENSHOTS_DIR set,
// the page is saved there at both widths.

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'call-review-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const shotsDir = process.env.SCREENSHOTS_DIR ? path.resolve(process.env.SCREENSHOTS_DIR) : undefined;

/** 20 ms at the recording rate. */
const FRAME = RECORDING_RATE / 50;

/** The conversation, each line where it starts: the caller's third line begins before the assistant has finished. */
const SCRIPT: { role: 'user' | 'assistant'; text: string; at: 'after' | 'over'; gapMs: number }[] = [
  { role: 'user', text: 'Hello, is this the bakery on Main Street?', at: 'after', gapMs: 400 },
  { role: 'assistant', text: 'Yes, this is the bakery. How can I help you today?', at: 'after', gapMs: 800 },
  { role: 'user', text: 'I would like to order a birthday cake for Saturday.', at: 'over', gapMs: 600 },
  { role: 'assistant', text: 'Of course. What flavour would you like?', at: 'after', gapMs: 700 },
  { role: 'user', text: 'Chocolate, please.', at: 'after', gapMs: 4_500 },
  { role: 'assistant', text: 'Lovely. A chocolate cake for Saturday, ready at noon.', at: 'after', gapMs: 600 },
];

interface SpokenTurn {
  role: 'user' | 'assistant';
  text: string;
  start_ms: number;
  end_ms: number;
}

function frameOf(samples: Int16Array): AudioFrame {
  const data = new Int16Array(FRAME);
  data.set(samples.subarray(0, FRAME));
  return new AudioFrame(data, RECORDING_RATE, 1, FRAME);
}

/**
 * Records SCRIPT as a call does: the caller's audio frame after frame from the start, the assistant's where it played;
 * then stores its tracks and peaks, and its record with the transcript, as the end of a call does.
 */
async function recordedCall(api: ApiContext, tenant: Tenant, callSid: string): Promise<SpokenTurn[]> {
  const turns: SpokenTurn[] = [];
  const audio: Int16Array[] = [];
  let end = 0;
  for (const line of SCRIPT) {
    const samples = await speechSamples(line.text);
    const start = line.at === 'over' ? end - line.gapMs : end + line.gapMs;
    const durationMs = Math.round((samples.length * 1000) / RECORDING_RATE);
    turns.push({ role: line.role, text: line.text, start_ms: start, end_ms: start + durationMs });
    audio.push(samples);
    end = Math.max(end, start + durationMs);
  }
  const callMs = end + 1_000;
  const startedAt = Date.now() - 3_600_000;
  const recorder = new CallRecorder(startedAt, spoolDirOf(dataDir, callSid));
  const caller = new Int16Array((callMs * RECORDING_RATE) / 1000);
  turns.forEach((t, i) => {
    if (t.role === 'user') caller.set(audio[i]!, (t.start_ms * RECORDING_RATE) / 1000);
  });
  for (let at = 0; at < caller.length; at += FRAME) recorder.addUser(frameOf(caller.subarray(at)));
  turns.forEach((t, i) => {
    if (t.role !== 'assistant') return;
    for (let at = 0; at < audio[i]!.length; at += FRAME)
      recorder.addAssistant(frameOf(audio[i]!.subarray(at)), startedAt + t.start_ms + (at * 1000) / RECORDING_RATE);
  });
  recorder.stop(startedAt + callMs);
  const stored = await recorder.save(new LocalFileStorage(dataDir), callSid, ['user', 'assistant', 'mixed'], 'mp3');
  await recorder.discard();

  const call = await api.db.prisma.call.create({
    data: {
      callSid,
      organizationId: tenant.organizationId,
      direction: 'inbound',
      transport: 'browser',
      status: 'completed',
      fromNumber: '+14155550100',
      startedAt: new Date(startedAt),
      endedAt: new Date(startedAt + callMs),
      durationMs: callMs,
      endReason: 'customer_hangup',
      summary: 'The caller ordered a chocolate birthday cake for Saturday.',
    },
  });
  for (const [position, t] of turns.entries()) {
    await api.db.prisma.callTurn.create({
      data: { callId: call.id, position, role: t.role, text: t.text, startMs: t.start_ms, endMs: t.end_ms, interrupted: false },
    });
  }
  for (const t of stored) {
    await api.db.prisma.callRecording.create({
      data: { callId: call.id, track: t.track, format: t.format, storageKey: t.storageKey, durationMs: t.durationMs, sizeBytes: t.sizeBytes },
    });
  }
  return turns;
}

/** A call recorded before peaks were kept: one stored track, and no peaks beside it. */
async function callWithoutPeaks(api: ApiContext, tenant: Tenant, callSid: string): Promise<void> {
  const wav = encodeWav({ samples: new Int16Array(RECORDING_RATE), sampleRate: RECORDING_RATE, channels: 1 });
  const storageKey = `recordings/${callSid}/mixed.wav`;
  await new LocalFileStorage(dataDir).put(storageKey, wav);
  const call = await api.db.prisma.call.create({
    data: { callSid, organizationId: tenant.organizationId, direction: 'inbound', transport: 'browser', status: 'completed', durationMs: 1_000 },
  });
  await api.db.prisma.callTurn.create({ data: { callId: call.id, position: 0, role: 'user', text: 'Hello?', startMs: 100, endMs: 600, interrupted: false } });
  await api.db.prisma.callRecording.create({ data: { callId: call.id, track: 'mixed', format: 'wav', storageKey, durationMs: 1_000, sizeBytes: wav.length } });
}

const it = apiTestWith({ dataDir })
  .extend('turns', { scope: 'file' }, async ({ api, tenant }) => {
    await callWithoutPeaks(api, tenant, 'CAbefore0001');
    // The same, with a peaks file of a version this dashboard does not know.
    await callWithoutPeaks(api, tenant, 'CAunknown0001');
    await new LocalFileStorage(dataDir).put(peaksKey('CAunknown0001'), Buffer.from('{"version":9}'));
    return recordedCall(api, tenant, 'CAwaves0001');
  })
  .extend('owner', { scope: 'file' }, async ({ api, tenant }) => addPerson(api, tenant.organizationId, 'owner'));

async function signedIn(api: ApiContext, owner: Person): Promise<BrowserSession> {
  const browser = new BrowserSession(api.app);
  await browser.signIn(owner.email, owner.password);
  return browser;
}

const LABELS = (turns: SpokenTurn[]) =>
  turns.map((t, i) => `Turn ${i + 1}, ${t.role === 'user' ? 'caller' : 'assistant'}, 0:${String(Math.floor(t.start_ms / 1000)).padStart(2, '0')}`);

describe("a call's review with its waveforms", () => {
  it('shows both sides of a recorded call as waveforms with a marker per turn, each leading to its row of the transcript', async ({ api, owner, turns }) => {
    const browser = await signedIn(api, owner);
    const page = await browser.get('/calls/CAwaves0001');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<path class="wave user"');
    expect(page.body).toContain('<path class="wave assistant"');
    const markers = [...page.body.matchAll(/<a href="#(turn-\d+)" class="marker (user|assistant)" data-ms="(\d+)" aria-label="([^"]+)">/g)];
    expect(markers.map((m) => m[4])).toEqual(LABELS(turns));
    expect(markers.map((m) => [m[2], Number(m[3])])).toEqual(turns.map((t) => [t.role, t.start_ms]));
    for (const [, anchor] of markers) expect(page.body).toContain(`<tr id="${anchor}">`);
    // The caller's third line began before the assistant's reply ended; the quiet before the caller's last line is long.
    expect(page.body).toContain('Both talked at once 1 time, 0.6 s in all.');
    expect(page.body).toMatch(/1 silence of 3\.0 s or more, the longest 4\.5 s at 0:\d\d\./);
    expect(page.body).toContain('<script src="/assets/call-waveform.js" defer></script>');
    const script = await browser.get('/assets/call-waveform.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toMatch(/^text\/javascript/);
  });

  it('shows a call recorded before peaks were kept, or with peaks it cannot read, with its player and without waveforms', async ({ api, owner }) => {
    const browser = await signedIn(api, owner);
    for (const sid of ['CAbefore0001', 'CAunknown0001']) {
      const page = await browser.get(`/calls/${sid}`);
      expect(page.status).toBe(200);
      expect(page.body).toContain(`<audio id="call-audio" controls preload="metadata" src="/calls/${sid}/recordings/mixed">`);
      expect(page.body).toContain('<tr id="turn-1">');
      expect(page.body).not.toContain('data-waveform');
      expect(page.body).not.toContain('call-waveform.js');
    }
  });

  it.skipIf(!hasChromium)(
    'seeks the player from a marker, by keyboard too, and from a click on the picture, and fits a phone',
    async ({ api, owner, turns }) => {
      await api.app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
      const chromium = await launchChromium();
      try {
        for (const viewport of [
          { width: 1280, height: 800 },
          { width: 390, height: 844 },
        ]) {
          const context = await chromium.newContext({ viewport });
          const page = await context.newPage();
          const problems: string[] = [];
          page.on('console', (m) => {
            if (m.type() === 'error') problems.push(m.text());
          });
          page.on('pageerror', (e) => problems.push(e.message));
          await signIn(page, base, owner);
          await page.goto(`${base}/calls/CAwaves0001`);
          await page.waitForSelector('figure.waveform.live');
          await until(async () => (await audioState(page)).readyState >= 1, { message: 'the recording not loaded' });

          const third = turns[2]!;
          await page.getByRole('link', { name: LABELS(turns)[2]! }).click();
          await until(async () => Math.abs((await audioState(page)).currentTime - third.start_ms / 1000) < 0.05, { message: 'not seeked to the turn' });
          const duration = Number(await page.locator('figure.waveform').getAttribute('data-duration-ms'));
          expect(await page.locator('.playhead').getAttribute('x1')).toBe(`${((third.start_ms / duration) * 100).toFixed(2)}%`);

          const last = turns.at(-1)!;
          await page.getByRole('link', { name: LABELS(turns).at(-1)! }).focus();
          await page.keyboard.press('Enter');
          await until(async () => Math.abs((await audioState(page)).currentTime - last.start_ms / 1000) < 0.05, { message: 'not seeked to the turn' });
          // Pressing a marker seeks; it does not scroll the page away to the transcript.
          expect(new URL(page.url()).hash).toBe('');
          if (shotsDir) await page.locator('figure.waveform').screenshot({ path: path.join(shotsDir, `call-waveform-focus-${viewport.width}.png`) });

          // Halfway through the long silence, where no marker is near.
          const quiet = (turns[3]!.end_ms + turns[4]!.start_ms) / 2;
          const box = (await page.locator('figure.waveform > svg').boundingBox())!;
          await page.mouse.click(box.x + (box.width * quiet) / duration, box.y + 60);
          await until(async () => Math.abs((await audioState(page)).currentTime - quiet / 1000) < 0.2, { message: 'not seeked to the click' });

          const fit = (await page.evaluate(`({ overflow: document.documentElement.scrollWidth - window.innerWidth })`)) as { overflow: number };
          expect(fit.overflow).toBeLessThanOrEqual(0);
          expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
          expect(problems).toEqual([]);
          if (shotsDir) {
            await mkdir(shotsDir, { recursive: true });
            // The playhead a little way into the assistant's second reply.
            await page.evaluate(`new Promise((seeked) => {
            const audio = document.getElementById('call-audio');
            audio.addEventListener('seeked', seeked, { once: true });
            audio.currentTime = ${(turns[3]!.start_ms + 900) / 1000};
          })`);
            await page.screenshot({ path: path.join(shotsDir, `call-waveform-${viewport.width}.png`), fullPage: true });
          }
          await context.close();
        }
      } finally {
        await chromium.close();
      }
    },
  );
});
