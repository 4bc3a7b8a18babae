import { vendorSettingsOf, type VendorSettings } from './config.js';
import { allowanceOfUrl, type HostAllowance, type VendorTargetPolicy } from './net/vendor-targets.js';

// Where a process finds the keys and endpoints of the vendors it talks to: its own environment, read once at start-up
// or as it is now. Both processes and several capabilities read keys the same way, so the lookup lives here, apart
// from any of them.

/** Where a process finds vendor keys and endpoint overrides (`DEEPGRAM_API_KEY`, `DEEPGRAM_BASE_URL`, ...). */
export interface VendorCredentials {
  apiKey(vendor: string): string | undefined;
  baseUrl(vendor: string): string | undefined;
  /** Where an assistant's own vendor URLs may lead besides public addresses; absent, nowhere else. */
  targets?: VendorTargetPolicy;
}

/** The keys and endpoints of a process's configuration (`Config.vendors`, checked at start-up). */
export function vendorCredentialsOf(vendors: VendorSettings): VendorCredentials {
  // Own properties only: a vendor named like an Object method must not find that method.
  return {
    apiKey: (v) => (Object.hasOwn(vendors.apiKeys, v) ? vendors.apiKeys[v] : undefined),
    baseUrl: (v) => (Object.hasOwn(vendors.baseUrls, v) ? vendors.baseUrls[v] : undefined),
    targets: vendorTargetPolicyOf(vendors),
  };
}

/**
 * The hosts an assistant's vendor URLs may name although they are not public: VENDOR_PRIVATE_HOSTS, and the host and
 * port of each of the operator's own `*_BASE_URL` variables (the operator chose those).
 */
export function vendorTargetPolicyOf(vendors: Pick<VendorSettings, 'baseUrls' | 'privateHosts'>): VendorTargetPolicy {
  const own = Object.values(vendors.baseUrls)
    .map(allowanceOfUrl)
    .filter((a): a is HostAllowance => a !== null);
  return { privateHosts: [...(vendors.privateHosts ?? []), ...own] };
}

/** The keys and endpoints in `env` as it is now, for a reader that must see a change made after start-up. */
export function vendorCredentialsFromEnv(env: Record<string, string | undefined> = process.env): VendorCredentials {
  return vendorCredentialsOf(vendorSettingsOf(env));
}
