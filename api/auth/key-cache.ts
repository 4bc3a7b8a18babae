import type { KeyIdentity } from '../../modules/organizations/index.js';

/**
 * Remembers key lookups for a few seconds so that an authenticated request costs no database round trip. A revoked key
 * keeps working at most `ttlMs` on a process that had it cached: that is the documented revocation delay.
 * Unknown keys are remembered too (as null), so a client hammering with a bad key cannot hammer the database.
 */
export class KeyCache {
  private readonly entries = new Map<string, { identity: KeyIdentity | null; expiresAt: number }>();

  constructor(
    readonly ttlMs: number,
    // 10,000 entries is ~2 MB; far more distinct live keys than one process sees in a TTL.
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(keyHash: string): KeyIdentity | null | undefined {
    const entry = this.entries.get(keyHash);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(keyHash);
      return undefined;
    }
    return entry.identity;
  }

  set(keyHash: string, identity: KeyIdentity | null): void {
    if (this.entries.size >= this.maxEntries) {
      // Map iterates in insertion order: drop the oldest entry.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(keyHash, { identity, expiresAt: this.now() + this.ttlMs });
  }

  clear(): void {
    this.entries.clear();
  }
}
