import { describe, expect, it } from 'vitest';
import { fallbacksOfForm } from './fallback-rows.js';

const KEY = 'llm_fallback_providers.fallbacks';

describe('fallback rows posted by the builder', () => {
  it('become the API list in row order, rows left Not used dropped, empty parts null', () => {
    const form = {
      [`${KEY}.0.provider`]: '',
      [`${KEY}.0.model`]: 'ignored',
      [`${KEY}.1.provider`]: 'anthropic',
      [`${KEY}.1.model`]: ' claude-haiku ',
      [`${KEY}.1.base_url`]: '',
      [`${KEY}.1.api_key`]: '',
      [`${KEY}.2.provider`]: 'groq',
      [`${KEY}.2.model`]: 'llama-3.3',
      [`${KEY}.2.base_url`]: 'https://proxy.example.com/v1',
      [`${KEY}.2.api_key`]: 'gsk-new',
    };
    expect(fallbacksOfForm(KEY, form)).toEqual([
      { provider: 'anthropic', model: 'claude-haiku', base_url: null, api_key: null },
      { provider: 'groq', model: 'llama-3.3', base_url: 'https://proxy.example.com/v1', api_key: 'gsk-new' },
    ]);
  });

  it('send the saved key’s mask back when the key field is left empty, and a typed key instead of it', () => {
    const form = {
      [`${KEY}.0.provider`]: 'anthropic',
      [`${KEY}.0.api_key`]: '',
      [`${KEY}.0.api_key.kept`]: '****0001',
      [`${KEY}.1.provider`]: 'groq',
      [`${KEY}.1.api_key`]: 'gsk-replaced',
      [`${KEY}.1.api_key.kept`]: '****0002',
    };
    expect(fallbacksOfForm(KEY, form).map((f) => f.api_key)).toEqual(['****0001', 'gsk-replaced']);
  });
});
