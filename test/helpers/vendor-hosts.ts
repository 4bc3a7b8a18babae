import type { VendorTargetPolicy } from '../../lib/net/vendor-targets.js';
import { vendorAccessFromEnv } from '../../agent/providers/speech-providers.js';

/**
 * The fake vendors of the tests listen on 127.0.0.1, as an operator's own LLM server would: the tests allow that host
 * the way an operator does (VENDOR_PRIVATE_HOSTS=127.0.0.1). Tests of the refusal itself use no allowance.
 */
export const LOOPBACK_VENDOR_HOSTS: VendorTargetPolicy = { privateHosts: [{ host: '127.0.0.1', port: null }] };

/** A call runner's vendor access with the same allowance, and no vendor key (the fakes need none). */
export const loopbackVendorAccess = () => vendorAccessFromEnv({ VENDOR_PRIVATE_HOSTS: '127.0.0.1' });
