// When a failed delivery is tried again. The nominal delays grow fourfold from 10 s and are capped at 10 h, which
// spreads 9 attempts over about a day (23.8 h nominal): quick retries ride out a blip or a deploy, the long tail rides
// out an outage of most of a day. docs/webhooks.md lists the schedule.

import { backoffMs } from '../../lib/backoff.js';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Delay before retry n (index 0 is the wait after the first failed attempt). */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  10 * SECOND,
  40 * SECOND,
  160 * SECOND,
  640 * SECOND, // 10 min 40 s
  2_560 * SECOND, // 42 min 40 s
  10_240 * SECOND, // 2 h 50 min 40 s
  10 * HOUR, // 40 960 s would be 11.4 h: capped
  10 * HOUR,
];

/**
 * ±20 % jitter: endpoints that failed together (one receiver outage) are retried spread over a window instead of all
 * in the same instant, which would knock a recovering receiver over again.
 */
export const DEFAULT_JITTER_RATIO = 0.2;

/**
 * The wait before the next attempt after `failedAttempts` consecutive failures (1 after the first failure), or null
 * when the schedule is exhausted and the delivery gives up.
 */
export function retryDelayMs(
  failedAttempts: number,
  schedule: readonly number[] = DEFAULT_RETRY_SCHEDULE_MS,
  jitterRatio = DEFAULT_JITTER_RATIO,
  random: () => number = Math.random,
): number | null {
  return backoffMs(schedule, failedAttempts, { jitterRatio, random });
}

/** Attempts a delivery gets before it gives up: the first one plus one per scheduled retry. */
export function maxAttempts(schedule: readonly number[] = DEFAULT_RETRY_SCHEDULE_MS): number {
  return schedule.length + 1;
}
