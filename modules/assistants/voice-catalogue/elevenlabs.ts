import { z } from 'zod';
import { CatalogueReadError, readJson } from './bounded-read.js';
import { byGroupThenName, describeVoice, previewUrlOf } from './describe.js';
import type { CatalogueVoice, VoiceVendor } from './types.js';

// ElevenLabs' voices of an account: `GET /v1/voices` with the key in `xi-api-key`, answered `{voices: [...]}` in one
// piece: the stock ("premade") voices and the account's own (cloned, generated, professional, added from the voice
// library), each with `labels` (accent, gender, age, description, use_case) and a public `preview_url`.
// `ELEVENLABS_BASE_URL` names the API's `/v1` root, as the call runtime's client takes it, so the list is `{base}/voices`.

const Listed = z.object({
  voice_id: z.string().min(1).max(200),
  name: z.string().nullish(),
  category: z.string().nullish(),
  labels: z.record(z.string(), z.unknown()).nullish(),
  description: z.string().nullish(),
  preview_url: z.string().nullish(),
});

const Answer = z.object({ voices: z.array(z.unknown()) });

function voiceOf(listed: z.output<typeof Listed>): CatalogueVoice {
  const labels = listed.labels ?? {};
  const described = describeVoice([labels.accent, labels.descriptive, labels.description, labels.gender, labels.age, labels.use_case]);
  const previewUrl = previewUrlOf(listed.preview_url);
  return {
    id: listed.voice_id,
    name: listed.name?.trim() || listed.voice_id,
    description: described || describeVoice([listed.description]),
    own: listed.category !== 'premade',
    ...(previewUrl ? { previewUrl } : {}),
  };
}

export const elevenLabsCatalogue: VoiceVendor = {
  label: 'ElevenLabs',
  defaultBaseUrl: 'https://api.elevenlabs.io/v1',
  async read(access, http, limits) {
    const answer = Answer.safeParse(await readJson(http, `${access.baseUrl}/voices`, { 'xi-api-key': access.apiKey }, limits));
    if (!answer.success) throw new CatalogueReadError('unanswered', 'the answer is not a voice list');
    const voices = answer.data.voices.flatMap((item) => {
      const listed = Listed.safeParse(item);
      return listed.success ? [voiceOf(listed.data)] : [];
    });
    voices.sort(byGroupThenName);
    return { voices: voices.slice(0, limits.maxVoices), truncated: voices.length > limits.maxVoices };
  },
  // Previews are public files: the key stays with the API.
  previewHeaders: () => ({}),
};
