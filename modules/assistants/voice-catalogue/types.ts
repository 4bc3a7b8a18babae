import type { Voice } from '../voices.js';

// What a vendor's voice catalogue is read as, and the bounds every read keeps: a catalogue is read on a person's
// behalf while they wait in the builder, so a slow or oversized answer is given up on rather than waited for.

/** A voice of a vendor's catalogue, in the builder's terms. */
export interface CatalogueVoice extends Voice {
  /** The account's own voice (cloned, designed, added from a library) rather than one of the vendor's stock voices. */
  own: boolean;
}

/** The key a catalogue is read with, and the address it is sent to (no trailing slash). */
export interface CatalogueAccess {
  apiKey: string;
  baseUrl: string;
}

export interface CatalogueLimits {
  /** The whole of one request, its answer's body included. */
  timeoutMs: number;
  /** Bytes of one answer; a longer one is not read further. */
  maxBytes: number;
  /** Voices kept from a catalogue. */
  maxVoices: number;
  /** Requests made for a paginated catalogue. */
  maxPages: number;
}

/**
 * 8 s a request: a vendor's list answers in well under a second; 5 MiB an answer: ElevenLabs lists every voice of an
 * account with its samples and settings in one answer, a few KB each; 500 voices is more than a select can usefully
 * offer (any other id can still be typed in).
 */
export const CATALOGUE_LIMITS: CatalogueLimits = { timeoutMs: 8_000, maxBytes: 5 * 1024 * 1024, maxVoices: 500, maxPages: 5 };

/** A catalogue as read: its voices and whether the vendor had more than the bounds let in. */
export interface CatalogueRead {
  voices: CatalogueVoice[];
  truncated: boolean;
}

/** One vendor's catalogue: where it is, how it is read, and how its previews are fetched. */
export interface VoiceVendor {
  /** The vendor's name as people know it. */
  label: string;
  /** The vendor's own address, in the form `<VENDOR>_BASE_URL` overrides it (the call runtime's). */
  defaultBaseUrl: string;
  read(access: CatalogueAccess, http: typeof fetch, limits: CatalogueLimits): Promise<CatalogueRead>;
  /** The headers a preview URL of this vendor's catalogue is fetched with: the key only where the vendor asks for it. */
  previewHeaders(access: CatalogueAccess, previewUrl: string): Record<string, string>;
}
