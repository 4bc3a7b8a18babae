import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { HttpError } from '../http/errors.js';

/**
 * Failed sign-ins are limited twice: 10 per email in 15 minutes (guessing one person's password: 40 guesses an hour
 * against a 10-character minimum), and 100 per client address (spraying one password over many emails). A success
 * clears the email's count. Counted per API process, like the API's rate limits; behind a load balancer of N
 * processes a guesser gets N times as many, still nowhere near a usable rate.
 */
export interface SignInLimitOptions {
  perEmail: number;
  perAddress: number;
  windowS: number;
}

export const DEFAULT_SIGN_IN_LIMIT: SignInLimitOptions = { perEmail: 10, perAddress: 100, windowS: 15 * 60 };

export class SignInLimit {
  private readonly byEmail: RateLimiterMemory;
  private readonly byAddress: RateLimiterMemory;

  constructor(options: SignInLimitOptions = DEFAULT_SIGN_IN_LIMIT) {
    this.byEmail = new RateLimiterMemory({ points: options.perEmail, duration: options.windowS });
    this.byAddress = new RateLimiterMemory({ points: options.perAddress, duration: options.windowS });
  }

  /** Throws 429 with Retry-After when either limit is spent; call before checking the password. */
  async check(email: string, address: string): Promise<void> {
    const [e, a] = await Promise.all([this.byEmail.get(email), this.byAddress.get(address)]);
    const spent = [e, a].filter((r): r is RateLimiterRes => r !== null && r.remainingPoints <= 0);
    if (spent.length === 0) return;
    const retryS = Math.max(1, Math.ceil(Math.max(...spent.map((r) => r.msBeforeNext)) / 1000));
    throw new HttpError('rate_limited', `Too many failed sign-ins: try again in ${Math.ceil(retryS / 60)} minutes`, { retry_after_s: retryS }, { 'Retry-After': String(retryS) });
  }

  async failed(email: string, address: string): Promise<void> {
    await Promise.all([this.byEmail.penalty(email, 1), this.byAddress.penalty(address, 1)]);
  }

  async succeeded(email: string): Promise<void> {
    await this.byEmail.delete(email);
  }
}
