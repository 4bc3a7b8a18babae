import type { VendorCredentials } from '../../../lib/vendor-credentials.js';
import type { CatalogueAccess } from './types.js';

// Which key reads a catalogue, and where it is sent, as the call runtime chooses for a call: the assistant's own key
// (`tts_settings.provider_config.api_key`, opened server-side) when it has one for this vendor, else this service's
// (`<VENDOR>_API_KEY`). A key goes only where it is sent for calls: the assistant's own key to its own `base_url` (or
// the service's address), the service's key to the service's address (`<VENDOR>_BASE_URL`, or the vendor's own),
// never to an address an assistant names.

export interface TtsKeyHolder {
  provider: string;
  provider_config: Record<string, unknown>;
}

function text(record: Record<string, unknown> | null | undefined, key: string): string | undefined {
  const value = record?.[key];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** The HTTP form of a vendor address given for its sockets too (`wss://api.deepgram.com`), without a trailing slash. */
export function httpBaseOf(address: string): string {
  return address.replace(/^ws(s?):/i, 'http$1:').replace(/\/+$/, '');
}

/** The key and address to read `provider`'s catalogue with; null when neither the assistant nor the service has a key. */
export function catalogueAccess(provider: string, tts: TtsKeyHolder, credentials: VendorCredentials, vendorAddress: string): CatalogueAccess | null {
  const serviceAddress = credentials.baseUrl(provider) ?? vendorAddress;
  // The assistant's key was given for the vendor its settings name; another vendor never sees it.
  const own = tts.provider === provider ? text(tts.provider_config, 'api_key') : undefined;
  if (own) return { apiKey: own, baseUrl: httpBaseOf(text(tts.provider_config, 'base_url') ?? serviceAddress) };
  const service = credentials.apiKey(provider);
  return service ? { apiKey: service, baseUrl: httpBaseOf(serviceAddress) } : null;
}
