import { z } from 'zod';
import { CatalogueReadError, readJson } from './bounded-read.js';
import { byGroupThenName, describeVoice, previewUrlOf } from './describe.js';
import type { CatalogueVoice, VoiceVendor } from './types.js';

// Deepgram's voices are its text-to-speech models: `GET /v1/models` with `Authorization: Token <key>` answers
// `{stt: [...], tts: [...]}`, each voice model with `name` ("thalia"), `canonical_name` (the id a call asks for,
// "aura-2-thalia-en"), `architecture` ("aura-2"), `languages` and `metadata` (accent, age, tags, and `sample`, a public
// recording of the voice). Every voice is Deepgram's own: none belongs to the account.

const Model = z.object({
  name: z.string().nullish(),
  canonical_name: z.string().min(1).max(200),
  architecture: z.string().nullish(),
  languages: z.array(z.string()).nullish(),
  metadata: z
    .object({
      display_name: z.string().nullish(),
      accent: z.string().nullish(),
      gender: z.string().nullish(),
      age: z.string().nullish(),
      tags: z.array(z.unknown()).nullish(),
      sample: z.string().nullish(),
    })
    .nullish(),
});

const Answer = z.object({ tts: z.array(z.unknown()).nullish() });

/** "aura-2" as people say it: "Aura 2". */
function architectureOf(architecture: string | null | undefined): string | undefined {
  if (!architecture) return undefined;
  const words = architecture.replace(/-/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function voiceOf(model: z.output<typeof Model>): CatalogueVoice {
  const meta = model.metadata ?? {};
  const named = meta.display_name?.trim() || model.name?.trim();
  const previewUrl = previewUrlOf(meta.sample);
  return {
    id: model.canonical_name,
    name: named ? named.charAt(0).toUpperCase() + named.slice(1) : model.canonical_name,
    description: describeVoice([architectureOf(model.architecture), meta.accent, meta.gender, meta.age, ...(meta.tags ?? []).slice(0, 2)]),
    own: false,
    ...(previewUrl ? { previewUrl } : {}),
  };
}

export const deepgramCatalogue: VoiceVendor = {
  label: 'Deepgram',
  defaultBaseUrl: 'https://api.deepgram.com',
  async read(access, http, limits) {
    const answer = Answer.safeParse(await readJson(http, `${access.baseUrl}/v1/models`, { authorization: `Token ${access.apiKey}` }, limits));
    if (!answer.success) throw new CatalogueReadError('unanswered', 'the answer is not a list of models');
    const voices = (answer.data.tts ?? []).flatMap((item) => {
      const model = Model.safeParse(item);
      return model.success ? [voiceOf(model.data)] : [];
    });
    voices.sort(byGroupThenName);
    return { voices: voices.slice(0, limits.maxVoices), truncated: voices.length > limits.maxVoices };
  },
  // Samples are public files: the key stays with the API.
  previewHeaders: () => ({}),
};
