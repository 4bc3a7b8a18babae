import { RateLimiterPrisma, RateLimiterRes } from 'rate-limiter-flexible';
import type { PrismaClient } from '../../prisma/client.js';
import { HttpError } from '../http/errors.js';

/**
 * Failed sign-ins are limited twice: 10 per email in 15 minutes (guessing one person's password: 40 guesses an hour
 * against a 10-character minimum), and 100 per client address (spraying one password over many emails). A success
 * clears the email's count. Counted in Postgres (the `rate_limits` table, through rate-limiter-flexible's Prisma
 * store), so the limit is the same behind a load balancer of any number of API processes: a guesser spreading attempts
 * over them gets no more. A sign-in is a few requests a day per person, so the two rows it touches cost nothing.
 */
export interface SignInLimitOptions {
  perEmail: number;
  perAddress: number;
  windowS: number;
}

export const DEFAULT_SIGN_IN_LIMIT: SignInLimitOptions = { perEmail: 10, perAddress: 100, windowS: 15 * 60 };

export class SignInLimit {
  private readonly byEmail: RateLimiterPrisma;
  private readonly byAddress: RateLimiterPrisma;

  constructor(prisma: PrismaClient, options: SignInLimitOptions = DEFAULT_SIGN_IN_LIMIT) {
    // Expired counts are swept by the API's job (api/jobs.ts, `clearExpiredSignInCounts`), which stops with the app,
    // instead of the store's own timer, which nothing stops.
    const store = { storeClient: prisma, tableName: 'rateLimit', duration: options.windowS, clearExpiredByTimeout: false };
    this.byEmail = new RateLimiterPrisma({ ...store, keyPrefix: 'sign_in_email', points: options.perEmail });
    this.byAddress = new RateLimiterPrisma({ ...store, keyPrefix: 'sign_in_address', points: options.perAddress });
  }

  /** Throws 429 with Retry-After when either limit is spent; call before checking the password. */
  async check(email: string, address: string): Promise<void> {
    const [e, a] = await Promise.all([this.byEmail.get(email), this.byAddress.get(address)]);
    const spent = [e, a].filter((r): r is RateLimiterRes => r !== null && r.remainingPoints <= 0);
    if (spent.length === 0) return;
    const retryS = Math.max(1, Math.ceil(Math.max(...spent.map((r) => r.msBeforeNext)) / 1000));
    throw new HttpError(
      'rate_limited',
      `Too many failed sign-ins: try again in ${Math.ceil(retryS / 60)} minutes`,
      { retry_after_s: retryS },
      { 'Retry-After': String(retryS) },
    );
  }

  async failed(email: string, address: string): Promise<void> {
    await Promise.all([this.byEmail.penalty(email, 1), this.byAddress.penalty(address, 1)]);
  }

  async succeeded(email: string): Promise<void> {
    await this.byEmail.delete(email);
  }
}

/** Deletes the counts that expired over an hour ago (what the store's own sweep deleted); answers how many. */
export async function clearExpiredSignInCounts(prisma: PrismaClient): Promise<number> {
  const { count } = await prisma.rateLimit.deleteMany({ where: { expire: { lt: new Date(Date.now() - 3_600_000) } } });
  return count;
}
