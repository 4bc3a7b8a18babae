import { createVoicePlatformClient } from '@voice-platform/client';

/** Last week's calls as CSV: a download is read as text, not JSON. */
export async function exportLastWeek(baseUrl: string, apiKey: string): Promise<string> {
  const api = createVoicePlatformClient({ baseUrl, apiKey });
  const since = new Date(Date.now() - 7 * 24 * 3600 * 1000).toISOString();
  const { data, error } = await api.GET('/api/calls/export', { params: { query: { format: 'csv', created_after: since } }, parseAs: 'text' });
  if (error) throw new Error(`export refused: ${JSON.stringify(error)}`);
  return data;
}
