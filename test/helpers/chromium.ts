import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { encodeWav } from '../../media/wav.js';
import { speechSamples } from '../fakes/scripted-caller.js';

// Debian's Chromium driven by playwright-core: nothing is downloaded. Each launch has a fresh profile (playwright makes
// a temporary user data directory), no network of its own (no component updates, sync or QUIC), and no GPU.
//
// Debian's headless shell (`chromium-headless-shell`, the same engine without the browser's windowing layer, which is
// also what playwright runs for headless Chromium) comes first: measured side by side on this 2-core machine, it
// starts in half the time and loads, fills and submits the dashboard's pages two to three times faster than the full
// browser's headless mode. The full browser serves where the shell is not installed.

const CANDIDATES = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'];
export const CHROMIUM = process.env.CHROMIUM_PATH ?? CANDIDATES.find((candidate) => existsSync(candidate)) ?? CANDIDATES[1]!;
export const hasChromium = existsSync(CHROMIUM);

export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}

/**
 * Chromium whose fake microphone asks `question` in the offline voice: two seconds of quiet, the question, then eight
 * of quiet while the assistant answers, looped. The fake microphone starts playing when a page opens it, which can be
 * seconds before a call's socket carries audio on a busy machine; the 10 s loop asks again within a test's wait if
 * the first question went out before anyone listened. The sound file is written into `dir`.
 */
export async function launchChromiumAsking(dir: string, question: string): Promise<Browser> {
  const spoken = await speechSamples(question);
  const samples = new Int16Array(16_000 * 2 + spoken.length + 16_000 * 8);
  samples.set(spoken, 16_000 * 2);
  const wavPath = path.join(dir, 'caller.wav');
  await writeFile(wavPath, encodeWav({ samples, sampleRate: 16_000, channels: 1 }));
  return launchChromium([
    '--autoplay-policy=no-user-gesture-required',
    '--use-fake-ui-for-media-stream',
    '--use-fake-device-for-media-stream',
    `--use-file-for-fake-audio-capture=${wavPath}`,
  ]);
}
