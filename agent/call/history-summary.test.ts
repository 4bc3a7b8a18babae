import { initializeLogger, llm } from '@livekit/agents';
import { afterAll, describe, expect, it } from 'vitest';
import { buildLlm } from './session-config.js';
import { AssistantSettings } from '../../modules/assistants/settings.js';
import { vendorAccessFromEnv } from '../providers/speech-providers.js';
import { startFakeOpenAI } from '../../test/fakes/vendors/openai.js';
import { HistorySummary } from './history-summary.js';

// The `summarize` history strategy: turns that fall out of the window are summarised by the call's model in the
// background, and the summary covers more as more falls out.

// A call process has the framework's logger; a bare test starts it.
initializeLogger({ pretty: false, level: 'silent' });

const asked: string[] = [];
const openai = await startFakeOpenAI((body) => {
  const messages = body.messages as Array<{ role: string; content: string }>;
  asked.push(messages.at(-1)!.content);
  return { text: `Summary ${asked.length}: the caller is Ana and wants a refund.` };
});
afterAll(() => openai.close());
const model = await buildLlm(
  AssistantSettings.parse({
    name: 'Summary',
    llm_provider: 'custom',
    llm_provider_config: { base_url: openai.url, model: 'fake', custom_config: { api_key: 'k' } },
  }),
  vendorAccessFromEnv({ VENDOR_PRIVATE_HOSTS: '127.0.0.1' }),
);

const turn = (user: string, assistant: string): llm.ChatItem[] => [
  llm.ChatMessage.create({ role: 'user', content: [user] }),
  llm.ChatMessage.create({ role: 'assistant', content: [assistant] }),
];

describe('HistorySummary', () => {
  it('summarises the turns that fell out, in the background, and again with the summary so far when more fall out', async () => {
    const summary = new HistorySummary(model);
    expect(summary.text).toBeUndefined();
    summary.update([turn('Hi, I am Ana.', 'Hello Ana.')]);
    await summary.pending;
    expect(summary.text).toBe('Summary 1: the caller is Ana and wants a refund.');
    expect(asked[0]).toBe('Caller: Hi, I am Ana.\nAssistant: Hello Ana.');
    // The same turns again: nothing new to summarise.
    summary.update([turn('Hi, I am Ana.', 'Hello Ana.')]);
    expect(summary.pending).toBeUndefined();
    summary.update([turn('Hi, I am Ana.', 'Hello Ana.'), turn('I want a refund.', 'Of course.')]);
    await summary.pending;
    expect(asked[1]).toBe('Summary so far: Summary 1: the caller is Ana and wants a refund.\nCaller: I want a refund.\nAssistant: Of course.');
    expect(summary.text).toBe('Summary 2: the caller is Ana and wants a refund.');
  });
});
