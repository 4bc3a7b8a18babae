import { z } from 'zod';
import { CatalogueReadError, readJson } from './bounded-read.js';
import { byGroupThenName, describeVoice, previewUrlOf } from './describe.js';
import type { CatalogueAccess, CatalogueVoice, VoiceVendor } from './types.js';

// Cartesia's voices: `GET /voices` with the key in `X-API-Key` and the API version in `Cartesia-Version`, answered a
// page at a time, `{data: [...], has_more, next_page}`, the next page asked for with `starting_after` (the id
// `next_page` names, or the page's last voice). The list holds the public library and the account's own voices
// (`is_owner`), so the account's are read first (`is_owner=true`), then the library, within one budget of pages.
// `expand[]=preview_file_url` adds each voice's preview, which Cartesia serves only with the same key.

/** The version the call runtime's Cartesia client speaks (the date its requests were tested against). */
export const CARTESIA_VERSION = '2025-04-16';
/** Cartesia's largest page. */
const PAGE_SIZE = 100;

const Listed = z.object({
  id: z.string().min(1).max(200),
  name: z.string().nullish(),
  description: z.string().nullish(),
  is_owner: z.boolean().nullish(),
  language: z.string().nullish(),
  gender: z.string().nullish(),
  preview_file_url: z.string().nullish(),
});

const Page = z.object({ data: z.array(z.unknown()), has_more: z.boolean().nullish(), next_page: z.string().nullish() });

const GENDERS: Record<string, string> = { feminine: 'female', masculine: 'male', gender_neutral: 'gender-neutral' };

const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });

function languageOf(code: string | null | undefined): string | undefined {
  if (!code) return undefined;
  try {
    return languageNames.of(code) ?? code;
  } catch {
    return code;
  }
}

function voiceOf(listed: z.output<typeof Listed>): CatalogueVoice {
  const previewUrl = previewUrlOf(listed.preview_file_url);
  return {
    id: listed.id,
    name: listed.name?.trim() || listed.id,
    description: describeVoice([languageOf(listed.language), listed.gender ? (GENDERS[listed.gender] ?? listed.gender) : undefined, listed.description]),
    own: listed.is_owner === true,
    ...(previewUrl ? { previewUrl } : {}),
  };
}

const headersOf = (access: CatalogueAccess) => ({ 'X-API-Key': access.apiKey, 'Cartesia-Version': CARTESIA_VERSION });

export const cartesiaCatalogue: VoiceVendor = {
  label: 'Cartesia',
  defaultBaseUrl: 'https://api.cartesia.ai',
  async read(access, http, limits) {
    const found = new Map<string, CatalogueVoice>();
    let pages = 0;
    let truncated = false;
    const passes: Record<string, string>[] = [{ is_owner: 'true' }, {}];
    for (const filter of passes) {
      let after: string | undefined;
      let more = true;
      while (more) {
        // Another page is wanted: past the budget, what was read is what is shown.
        if (pages >= limits.maxPages || found.size >= limits.maxVoices) {
          truncated = true;
          break;
        }
        const query = new URLSearchParams({ limit: String(PAGE_SIZE), 'expand[]': 'preview_file_url', ...filter, ...(after ? { starting_after: after } : {}) });
        const page = Page.safeParse(await readJson(http, `${access.baseUrl}/voices?${query}`, headersOf(access), limits));
        pages += 1;
        if (!page.success) throw new CatalogueReadError('unanswered', 'the answer is not a page of voices');
        let last: string | undefined;
        for (const item of page.data.data) {
          const listed = Listed.safeParse(item);
          if (!listed.success) continue;
          last = listed.data.id;
          if (!found.has(listed.data.id) && found.size < limits.maxVoices) found.set(listed.data.id, voiceOf(listed.data));
        }
        after = page.data.next_page ?? last;
        more = page.data.has_more === true && after !== undefined;
      }
    }
    return { voices: [...found.values()].sort(byGroupThenName), truncated };
  },
  // A preview on Cartesia's own address wants the key it was listed with; one anywhere else is fetched without it.
  previewHeaders(access, previewUrl) {
    return new URL(previewUrl).origin === new URL(access.baseUrl).origin ? headersOf(access) : {};
  },
};
