// How long to wait before trying again, for everything the service retries: a webhook delivery, a carrier report, an
// embedding request, the LISTEN connection. One schedule of nominal waits per use, read here with optional jitter, so
// each use says only its numbers.

export interface BackoffOptions {
  /** ±ratio of random spread, so that things that failed together are not all tried again in the same instant. */
  jitterRatio?: number;
  /** Past the schedule's end: `give_up` (null: no more tries, the default) or `repeat_last`. */
  afterLast?: 'give_up' | 'repeat_last';
  random?: () => number;
}

/**
 * The wait before the next try after `failures` consecutive failures (1 after the first), from `scheduleMs` (index 0
 * is the wait after the first failure); null when the schedule is exhausted and the caller gives up.
 */
export function backoffMs(scheduleMs: readonly number[], failures: number, options: BackoffOptions = {}): number | null {
  if (scheduleMs.length === 0) return null;
  const index = Math.max(0, failures - 1);
  const nominal = index < scheduleMs.length ? scheduleMs[index]! : options.afterLast === 'repeat_last' ? scheduleMs[scheduleMs.length - 1]! : undefined;
  if (nominal === undefined) return null;
  const ratio = options.jitterRatio ?? 0;
  const factor = 1 + ratio * (2 * (options.random ?? Math.random)() - 1);
  return Math.max(0, Math.round(nominal * factor));
}

/** A schedule that starts at `firstMs` and multiplies by `factor` up to `maxMs`, then stays there: `steps` entries. */
export function growingSchedule(firstMs: number, factor: number, maxMs: number, steps: number): number[] {
  return Array.from({ length: steps }, (_, i) => Math.min(maxMs, Math.round(firstMs * factor ** i)));
}
