import crypto from 'node:crypto';
import type { VendorCredentials } from '../../../lib/vendor-credentials.js';
import { vendorFetch, type VendorTargetPolicy } from '../../../lib/net/vendor-targets.js';
import type { TtsProvider } from '../vendors.js';
import { VOICES } from '../voices.js';
import { catalogueAccess, type TtsKeyHolder } from './access.js';
import { CatalogueReadError, type ReadBounds, type ReadFailure } from './bounded-read.js';
import { cartesiaCatalogue } from './cartesia.js';
import { deepgramCatalogue } from './deepgram.js';
import { elevenLabsCatalogue } from './elevenlabs.js';
import { PREVIEW_BOUNDS, readPreview, type PreviewAudio } from './preview.js';
import { CATALOGUE_LIMITS, type CatalogueLimits, type CatalogueRead, type CatalogueVoice, type VoiceVendor } from './types.js';

// The voices the builder offers for a provider: the account's own catalogue when a key reaches the vendor, else the
// curated stock list with a sentence saying why. A catalogue read is kept a short while per organisation, assistant and
// provider, so that flipping between providers in the builder does not ask the vendor again, and under the key and
// address it was read with, so that a new key is read at once. Every request goes through the vendor guard.

export const VENDOR_CATALOGUES: Partial<Record<TtsProvider, VoiceVendor>> = {
  elevenlabs: elevenLabsCatalogue,
  cartesia: cartesiaCatalogue,
  deepgram: deepgramCatalogue,
};

export interface CatalogueAnswer {
  /** `account`: the vendor's answer to the key; `curated`: the stock voices this service lists. */
  source: 'account' | 'curated';
  voices: CatalogueVoice[];
  /** Why the stock list is shown, or what the account's list leaves out, in a person's words. */
  note?: string;
}

/** Whose catalogue is asked for: the assistant, its stored voice settings (keys opened), and the service's keys. */
export interface CatalogueRequest {
  organizationId: number;
  assistantId: number;
  provider: TtsProvider;
  tts: TtsKeyHolder;
  credentials: VendorCredentials;
}

export interface VoiceCatalogueOptions {
  /** Where vendor requests may lead (the service's vendor guard). */
  policy: VendorTargetPolicy;
  /** How long a read catalogue is kept; a failed read is kept a sixth of it. Default 60 s. */
  ttlMs?: number;
  maxEntries?: number;
  limits?: Partial<CatalogueLimits>;
  previewBounds?: Partial<ReadBounds>;
  now?: () => number;
}

type Reading = { ok: true; read: CatalogueRead } | { ok: false; reason: ReadFailure };

interface Entry {
  fingerprint: string;
  expiresAt: number;
  reading: Promise<Reading>;
}

const NOTES: Record<ReadFailure | 'no_key', (label: string) => string> = {
  no_key: (label) => `No ${label} key: showing stock voices`,
  refused_key: (label) => `${label} refused the key: showing stock voices`,
  unanswered: (label) => `${label} did not answer: showing stock voices`,
  too_large: (label) => `${label}’s list was too long to read: showing stock voices`,
  refused_address: (label) => `${label}’s address is not one this service calls: showing stock voices`,
};

function curated(provider: TtsProvider, note?: string): CatalogueAnswer {
  return { source: 'curated', voices: VOICES[provider].map((v) => ({ ...v, own: false })), ...(note ? { note } : {}) };
}

export class VoiceCatalogue {
  private readonly entries = new Map<string, Entry>();
  private readonly http: typeof fetch;
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly limits: CatalogueLimits;
  private readonly previewBounds: ReadBounds;
  private readonly now: () => number;

  constructor(options: VoiceCatalogueOptions) {
    this.http = vendorFetch(options.policy);
    this.ttlMs = options.ttlMs ?? 60_000;
    // Each entry is at most `maxVoices` short records: 1,000 of them is a few MB.
    this.maxEntries = options.maxEntries ?? 1_000;
    this.limits = { ...CATALOGUE_LIMITS, ...options.limits };
    this.previewBounds = { ...PREVIEW_BOUNDS, ...options.previewBounds };
    this.now = options.now ?? Date.now;
  }

  /** The voices to offer for `request.provider`; never throws for anything the vendor does. */
  async voices(request: CatalogueRequest): Promise<CatalogueAnswer> {
    const vendor = VENDOR_CATALOGUES[request.provider];
    if (!vendor) return curated(request.provider);
    const access = catalogueAccess(request.provider, request.tts, request.credentials, vendor.defaultBaseUrl);
    if (!access) return curated(request.provider, NOTES.no_key(vendor.label));
    const reading = await this.reading(request, vendor, access);
    if (!reading.ok) return curated(request.provider, NOTES[reading.reason](vendor.label));
    if (reading.read.voices.length === 0) return curated(request.provider, `${vendor.label} lists no voices for this key: showing stock voices`);
    return {
      source: 'account',
      voices: reading.read.voices,
      ...(reading.read.truncated ? { note: `Showing the first ${reading.read.voices.length} of your ${vendor.label} voices: type any other voice id` } : {}),
    };
  }

  /**
   * The preview recording of a voice of the account's catalogue, fetched from the address that catalogue gave for it
   * (read again if it is no longer kept); undefined when the voice is not in it, has no preview, or the recording
   * could not be read as audio.
   */
  async preview(request: CatalogueRequest, voiceId: string): Promise<PreviewAudio | undefined> {
    const vendor = VENDOR_CATALOGUES[request.provider];
    const access = vendor ? catalogueAccess(request.provider, request.tts, request.credentials, vendor.defaultBaseUrl) : null;
    if (!vendor || !access) return undefined;
    const reading = await this.reading(request, vendor, access);
    const url = reading.ok ? reading.read.voices.find((v) => v.id === voiceId)?.previewUrl : undefined;
    if (!url) return undefined;
    try {
      return await readPreview(this.http, url, vendor.previewHeaders(access, url), this.previewBounds);
    } catch {
      return undefined;
    }
  }

  private reading(request: CatalogueRequest, vendor: VoiceVendor, access: { apiKey: string; baseUrl: string }): Promise<Reading> {
    const key = `${request.organizationId}:${request.assistantId}:${request.provider}`;
    // A digest, not the key: the entry outlives the request that opened the key.
    const fingerprint = crypto.createHash('sha256').update(`${access.baseUrl}\n${access.apiKey}`).digest('base64url');
    const now = this.now();
    const kept = this.entries.get(key);
    if (kept && kept.fingerprint === fingerprint && kept.expiresAt > now) return kept.reading;
    this.entries.delete(key);
    const entry: Entry = { fingerprint, expiresAt: now + this.ttlMs, reading: this.read(vendor, access) };
    // A failed read is tried again sooner: the vendor may be back, or the key fixed at the vendor's end.
    void entry.reading.then((r) => {
      if (!r.ok) entry.expiresAt = Math.min(entry.expiresAt, this.now() + this.ttlMs / 6);
    });
    this.evictFor(now);
    this.entries.set(key, entry);
    return entry.reading;
  }

  private async read(vendor: VoiceVendor, access: { apiKey: string; baseUrl: string }): Promise<Reading> {
    try {
      return { ok: true, read: await vendor.read(access, this.http, this.limits) };
    } catch (error) {
      return { ok: false, reason: error instanceof CatalogueReadError ? error.reason : 'unanswered' };
    }
  }

  private evictFor(now: number): void {
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }
}
