import { fork } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { until } from '../../test/helpers/until.js';
import { registry } from '../../lib/metrics/index.js';
import { eotProcess, stopEotProcess } from './eot-process.js';

// The audio end-of-turn model in its own process: it answers predictions, runs below the calls' priority, and is
// started again when it dies.

afterAll(() => stopEotProcess());

/** 1.2 s of 16 kHz PCM, the model's input, as the framework's transport sends it. */
function request(samples: (i: number) => number) {
  const pcm = new Int16Array(19_200);
  for (let i = 0; i < pcm.length; i++) pcm[i] = samples(i);
  return { pcm: Buffer.from(pcm.buffer).toString('base64') };
}

/** The nice value of each thread of a process (field 19 of /proc/<pid>/task/<tid>/stat). */
function threadNiceValues(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

describe('the end-of-turn model process', () => {
  it('answers a prediction with a probability and the time the model took, counted on the metrics', async () => {
    const runner = eotProcess();
    const speechThenSilence = request((i) => (i < 14_400 ? Math.round(6000 * Math.sin(i / 9)) : 0));
    const series = async (suffix: string) =>
      (await registry.getSingleMetric('voice_eot_inference_seconds')!.get()).values.find((v) => (v as { metricName?: string }).metricName?.endsWith(suffix))
        ?.value ?? 0;
    const [countBefore, sumBefore] = [await series('_count'), await series('_sum')];
    const answer = (await runner.doInference('lk_eot_audio', speechThenSilence)) as { probability: number; inferenceDurationMs: number };
    // Each prediction is on the process's metrics, with the time it took. The process is shared by the worker's files,
    // so a call another file left closing may be counted too: at least this one.
    expect((await series('_count')) - countBefore).toBeGreaterThanOrEqual(1);
    expect((await series('_sum')) - sumBefore).toBeGreaterThanOrEqual(answer.inferenceDurationMs / 1000 - 1e-9);
    expect(answer.probability).toBeGreaterThanOrEqual(0);
    expect(answer.probability).toBeLessThanOrEqual(1);
    expect(answer.inferenceDurationMs).toBeGreaterThan(0);
  }, 120_000);

  it.runIf(process.platform === 'linux')(
    'runs every thread below normal priority, so the calls audio pacing goes first',
    async () => {
      const runner = eotProcess();
      await runner.ready;
      const nice = threadNiceValues(runner.pid!);
      expect(nice.length).toBeGreaterThan(1);
      expect(Math.min(...nice)).toBeGreaterThan(0);
    },
    120_000,
  );

  it('gives up on a prediction the process never answers (stopped, not dead) instead of waiting for ever', async () => {
    const runner = eotProcess();
    await runner.ready;
    process.kill(runner.pid!, 'SIGSTOP');
    try {
      const started = Date.now();
      await expect(
        runner.doInference(
          'lk_eot_audio',
          request(() => 0),
        ),
      ).rejects.toThrow('did not answer');
      expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);
    } finally {
      process.kill(runner.pid!, 'SIGCONT');
    }
  }, 120_000);

  it('is started again after it died, and the next prediction is answered', async () => {
    const first = eotProcess();
    await first.ready;
    process.kill(first.pid!, 'SIGKILL');
    // The death is noticed when the process's exit event comes, later on a busy machine: wait for it, within a bound.
    const second = await until(() => {
      const current = eotProcess();
      return current.pid !== first.pid && current;
    }, 10_000);
    expect(second.pid).not.toBe(first.pid);
    const answer = (await second.doInference(
      'lk_eot_audio',
      request(() => 0),
    )) as { probability: number };
    expect(typeof answer.probability).toBe('number');
  }, 120_000);

  it('leaves quietly, exit code 0 and nothing on stderr, when the service stops while the model is still loading', async () => {
    const child = fork(fileURLToPath(new URL('./eot-process-entry.mjs', import.meta.url)), [], {
      env: { ...process.env, EOT_PROCESS_NICE: '0', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // As a service stopping at once after its start does: the channel closes before the model has loaded.
    child.disconnect();
    expect(await exited).toBe(0);
    expect(stderr).toBe('');
  }, 120_000);
});
