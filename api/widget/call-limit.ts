import { RateLimiterMemory, RateLimiterPrisma, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { PrismaClient } from '../../prisma/client.js';
import { HttpError } from '../http/errors.js';

// A widget key's calls per minute, counted where every API process counts (the `rate_limits` table, through
// rate-limiter-flexible's Prisma store, as the sign-in limit is), so a site behind ten API processes gets the key's
// limit, not ten times it. Each key has its own limit, which can change at any time: the store counts every request
// of the key in the window and the key's limit is compared with that count, so a changed limit holds at once. Should
// the database not answer, each process counts in its own memory until it does. Expired counts are swept with the
// sign-in limit's (api/jobs.ts).

/** The store's own ceiling: far above any key's limit (at most 1,000), it never refuses by itself. */
const STORE_POINTS = 1_000_000;
const WINDOW_S = 60;

export class WidgetCallLimit {
  private readonly limiter: RateLimiterAbstract;

  constructor(prisma: PrismaClient) {
    const common = { keyPrefix: 'widget_key', points: STORE_POINTS, duration: WINDOW_S };
    this.limiter = new RateLimiterPrisma({
      ...common,
      storeClient: prisma,
      tableName: 'rateLimit',
      clearExpiredByTimeout: false,
      insuranceLimiter: new RateLimiterMemory(common),
    });
  }

  /** Counts one call of the key, or throws 429 `rate_limited` with Retry-After once its limit for the minute is spent. */
  async admit(widgetKeyId: number, perMinute: number): Promise<void> {
    let res: RateLimiterRes;
    try {
      res = await this.limiter.consume(String(widgetKeyId));
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      res = rejection;
    }
    if (res.consumedPoints <= perMinute) return;
    const retryAfterS = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    throw new HttpError(
      'rate_limited',
      `This widget has started its ${perMinute} calls for this minute: try again in ${retryAfterS} s`,
      { retry_after_s: retryAfterS },
      { 'Retry-After': String(retryAfterS) },
    );
  }
}
