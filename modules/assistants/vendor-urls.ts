import type { ValidationDetail } from '../../lib/errors.js';
import { checkVendorTarget, vendorUrlRefusal, type VendorTargetPolicy } from '../../lib/net/vendor-targets.js';
import type { AssistantSettings } from './settings.js';

// The vendor URLs an assistant's settings carry: where a call or test run sends the assistant's (or the operator's)
// vendor key and reads the answer back. Each is refused at create and update when it names a loopback, private or
// reserved address the operator has not allowed, and checked again on its DNS answers when a call connects.

type VendorUrlHolder = Pick<AssistantSettings, 'llm_provider_config' | 'llm_fallback_providers' | 'tts_settings'> &
  Partial<Pick<AssistantSettings, 'realtime_settings'>>;

export interface VendorUrlSlot {
  /** Where it sits in a request body. */
  loc: (string | number)[];
  url: unknown;
}

/** Every vendor URL the settings name, with its place; `tts_settings.provider_config.base_url` is free-form, so any value. */
export function vendorUrlSlots(s: VendorUrlHolder): VendorUrlSlot[] {
  const slots: VendorUrlSlot[] = [];
  if (s.llm_provider_config.base_url) slots.push({ loc: ['llm_provider_config', 'base_url'], url: s.llm_provider_config.base_url });
  s.llm_fallback_providers.fallbacks.forEach((f, i) => {
    if (f.base_url) slots.push({ loc: ['llm_fallback_providers', 'fallbacks', i, 'base_url'], url: f.base_url });
  });
  const ttsUrl = s.tts_settings.provider_config?.base_url;
  if (ttsUrl !== undefined && ttsUrl !== null) slots.push({ loc: ['tts_settings', 'provider_config', 'base_url'], url: ttsUrl });
  // Judged whether or not the model is enabled: enabling it later is a change of another field, not judged again.
  if (s.realtime_settings?.base_url) slots.push({ loc: ['realtime_settings', 'base_url'], url: s.realtime_settings.base_url });
  return slots;
}

/**
 * The settings' vendor URLs that the service would not call, as 422 detail. On an update, `previous` holds the stored
 * settings: a URL left as it was is not judged again, so that an operator narrowing VENDOR_PRIVATE_HOSTS does not
 * block an unrelated change (the call refuses it all the same).
 */
export function vendorUrlProblems(s: VendorUrlHolder, policy: VendorTargetPolicy, previous?: VendorUrlHolder): ValidationDetail[] {
  const before = new Set(previous ? vendorUrlSlots(previous).map((slot) => `${JSON.stringify(slot.loc)} ${String(slot.url)}`) : []);
  const problems: ValidationDetail[] = [];
  for (const slot of vendorUrlSlots(s)) {
    if (before.has(`${JSON.stringify(slot.loc)} ${String(slot.url)}`)) continue;
    const refusal = typeof slot.url === 'string' && slot.url.length <= 2048 ? vendorUrlRefusal(slot.url, policy) : 'A URL of at most 2048 characters';
    if (refusal) problems.push({ loc: ['body', ...slot.loc], msg: refusal, type: 'value_error' });
  }
  return problems;
}

/** The fields whose URL leads somewhere the policy refuses, once DNS has answered: checked before a call connects. */
export async function refusedVendorUrls(s: VendorUrlHolder, policy: VendorTargetPolicy): Promise<string[]> {
  const refused: string[] = [];
  for (const slot of vendorUrlSlots(s)) {
    try {
      if (typeof slot.url !== 'string') throw new Error('not a URL');
      await checkVendorTarget(slot.url, policy);
    } catch {
      refused.push(slot.loc.join('.'));
    }
  }
  return refused;
}
