import { createVoicePlatformClient, isValidationError } from '@voice-platform/client';

/** Creates an assistant and reads it back; a refused setting comes back typed, with the field it names. */
export async function createAssistant(baseUrl: string, apiKey: string) {
  const api = createVoicePlatformClient({ baseUrl, apiKey });
  const { data: created, error } = await api.POST('/api/assistants', {
    body: { name: 'Front desk', llm_settings: { welcome_message: 'Thanks for calling. How can I help?', temperature: 0.4 } },
  });
  if (error) {
    const why = isValidationError(error) ? error.detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; ') : error.message;
    throw new Error(`assistant not created: ${why}`);
  }
  const { data: assistant } = await api.GET('/api/assistants/{assistant_id}', { params: { path: { assistant_id: created.id } } });
  return assistant;
}
