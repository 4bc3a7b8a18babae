import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The order test files start in. Vitest hands files to its workers in the order the sequencer gives, and by default
// that is the longest first (by the last run's durations, or by file size on a fresh clone). On this 2-core machine
// that put Chromium's page tour and the four files that start the whole service with `npm start` side by side at the
// start, each wanting a core, while the call tests, which mostly wait for audio, queued behind them: the suite took
// 11 minutes where a better order takes far less.
//
// This order keeps one file that keeps a core busy running at a time where it can, beside files that mostly wait, and
// otherwise starts the longest first. It is planned on the durations below, measured alone on an idle machine; a file
// not listed counts as short. A test that fails does not depend on it: every file passes in any order.

interface Known {
  seconds: number;
  /**
   * Keeps a core busy most of the time it runs (Chromium, a whole service started, Postgres working hard), or needs the
   * cores it shares to be free (the voicemail calls, whose verdicts follow the offline recogniser's real-time work; the
   * turn-taking calls, where the voice detector's inference races the audio).
   */
  busy?: true;
}

const KNOWN: Record<string, Known> = {
  'test/dashboard/pages.test.ts': { seconds: 70, busy: true },
  'test/startup/signals.test.ts': { seconds: 55, busy: true },
  'test/service-start.test.ts': { seconds: 32, busy: true },
  'test/startup/drain-on-sigterm.test.ts': { seconds: 28, busy: true },
  'test/api/fuzz.test.ts': { seconds: 30, busy: true },
  'modules/knowledge/parse/index.test.ts': { seconds: 22, busy: true },
  'test/calls/call-export.test.ts': { seconds: 16, busy: true },
  'test/analytics/histograms.test.ts': { seconds: 15, busy: true },
  'test/dashboard/browser.test.ts': { seconds: 15, busy: true },
  'test/dashboard/builder.test.ts': { seconds: 18, busy: true },
  'test/dashboard/test-call.test.ts': { seconds: 12, busy: true },
  'test/dashboard/passkeys.test.ts': { seconds: 10, busy: true },
  'test/dashboard/campaign-form.test.ts': { seconds: 18, busy: true },
  'test/dashboard/chart-form.test.ts': { seconds: 32, busy: true },
  'test/dashboard/contact-fields.test.ts': { seconds: 28, busy: true },
  'test/dashboard/tool-form.test.ts': { seconds: 40, busy: true },
  'test/dashboard/call-review.test.ts': { seconds: 15, busy: true },
  'test/dashboard/phone-numbers.test.ts': { seconds: 15, busy: true },
  'test/dashboard/organization-settings.test.ts': { seconds: 14, busy: true },
  'test/dashboard/builder-voices.test.ts': { seconds: 10, busy: true },
  'test/transports/browser-call.test.ts': { seconds: 12, busy: true },
  'test/widgets/widget-browser.test.ts': { seconds: 17, busy: true },
  'test/dashboard/widgets.test.ts': { seconds: 13, busy: true },
  'test/transports/stray-upgrades.test.ts': { seconds: 12, busy: true },
  'test/campaigns/campaign-process-death.test.ts': { seconds: 10, busy: true },
  'agent/livekit-worker.test.ts': { seconds: 12, busy: true },
  'test/knowledge/url-source.test.ts': { seconds: 35 },
  'test/runtime/call-transfer.test.ts': { seconds: 28 },
  'test/telephony/carrier-outbound-call.test.ts': { seconds: 28 },
  'test/runtime/call-timeline.test.ts': { seconds: 22 },
  'test/knowledge/search.test.ts': { seconds: 20 },
  'test/runtime/call-recovery.test.ts': { seconds: 15 },
  'test/knowledge/rag-call.test.ts': { seconds: 15 },
  'test/knowledge/retrieval-api.test.ts': { seconds: 15 },
  'test/webhooks/delivery.test.ts': { seconds: 15 },
  'test/knowledge/pgvector.test.ts': { seconds: 13 },
  'test/runtime/caller-over-welcome.test.ts': { seconds: 12 },
  'test/api/rate-limit.test.ts': { seconds: 12 },
  'test/campaigns/voicemail-in-call.test.ts': { seconds: 30, busy: true },
  'test/campaigns/campaign-carrier.test.ts': { seconds: 12 },
  'test/turns/turn-taking.test.ts': { seconds: 32, busy: true },
  'test/knowledge/embeddings.test.ts': { seconds: 10 },
  'test/knowledge/documents-api.test.ts': { seconds: 10 },
  'agent/turn/eot-process.test.ts': { seconds: 10 },
  'test/test-runs/test-runs-worker.test.ts': { seconds: 10 },
  'test/knowledge/document-upload.test.ts': { seconds: 8 },
  'test/telephony/outbound-calls.test.ts': { seconds: 8 },
  'test/contacts/contact-import.test.ts': { seconds: 8 },
  'test/campaigns/campaign-dispatch.test.ts': { seconds: 5 },
};
const SHORT: Known = { seconds: 2 };

/**
 * How many busy files may run at once while there are others to run beside them. Two, on four workers: the Chromium
 * files, in the headless shell, leave most of a core idle while pages load, and one at a time made the busy files,
 * not the machine's cores, the length of the run (measured on this 2-core machine: 707 s with one on three workers,
 * 497 s with two on four, the cores then busy 95 % of the run).
 */
export const BUSY_AT_ONCE = 2;

/**
 * The order to start `files` in on `workers` workers. Those `last` says (files that each get a process of their own)
 * start after the others, together, longest first: a worker of the shared files that gave its slot to one of them would
 * be started again and load every module again (interleaving them doubled the suite's import time), and they keep
 * the cores busy (documents converted, the embedding model run), so the files that need free cores run before them.
 */
export function planOrder<T>(
  files: T[],
  keyOf: (file: T) => string,
  workers: number,
  last: (file: T) => boolean = () => false,
  busyAtOnce = BUSY_AT_ONCE,
): T[] {
  const known = (file: T) => KNOWN[keyOf(file)] ?? SHORT;
  const longestFirst = (a: T, b: T) => known(b).seconds - known(a).seconds;
  const trailing = files.filter(last).sort(longestFirst);
  const rest = files.filter((f) => !last(f));
  const busy = rest.filter((f) => known(f).busy).sort(longestFirst);
  const others = rest.filter((f) => !known(f).busy).sort(longestFirst);
  const lanes = Array.from({ length: Math.max(1, workers) }, () => ({ freeAt: 0, busy: false }));
  const order: T[] = [];
  while (busy.length + others.length > 0) {
    const lane = lanes.reduce((a, b) => (b.freeAt < a.freeAt ? b : a));
    const now = lane.freeAt;
    const busyRunning = lanes.filter((l) => l !== lane && l.busy && l.freeAt > now).length;
    const next = (busyRunning < busyAtOnce && busy.length > 0) || others.length === 0 ? busy.shift()! : others.shift()!;
    order.push(next);
    lane.freeAt = now + known(next).seconds;
    lane.busy = known(next).busy === true;
  }
  return [...order, ...trailing];
}

export default class SuiteSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const workers = Number(this.ctx.config.maxWorkers) || 1;
    return planOrder(
      files,
      (spec) => path.relative(root, spec.moduleId).split(path.sep).join('/'),
      workers,
      (spec) => spec.project.config.isolate === true,
    );
  }
}
