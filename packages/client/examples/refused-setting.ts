import { createVoicePlatformClient, isValidationError } from '@voice-platform/client';

/** A setting out of its bounds: no exception, a 422 whose `detail` says which field and why. */
export async function refusedSetting(baseUrl: string, apiKey: string) {
  const api = createVoicePlatformClient({ baseUrl, apiKey });
  const { error, response } = await api.POST('/api/assistants', { body: { name: 'Too hot', llm_settings: { temperature: 3 } } });
  if (response.status === 422 && isValidationError(error)) return error.detail.map((d) => ({ field: d.loc.join('.'), problem: d.msg }));
  return [];
}
