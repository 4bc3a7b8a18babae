import { apiKeyVariable, baseUrlVariable } from '../../../lib/config.js';
import type { VendorCredentials } from '../../../lib/vendor-credentials.js';
import { EmbeddingError, type Embedder } from './embedder.js';
import { LOCAL_EMBEDDING_MODEL, LocalEmbedder } from './local.js';
import { OpenAICompatibleEmbedder } from './openai-compatible.js';

// `rag_settings.embedding_model` to an embedder: the offline model, OpenAI's models by their names (or
// `openai/<model>`), or `<vendor>/<model>` on any OpenAI-compatible server at `<VENDOR>_BASE_URL`.

export { LOCAL_EMBEDDING_MODEL };

const OPENAI_MODELS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};
const OPENAI_BASE_URL = 'https://api.openai.com/v1';
/** Ollama's OpenAI-compatible endpoint where it runs by default; it takes no key. */
const OLLAMA_BASE_URL = 'http://127.0.0.1:11434/v1';

interface Target {
  vendor: string;
  remoteModel: string;
}

function targetOf(model: string): Target | 'local' {
  if (model === LOCAL_EMBEDDING_MODEL) return 'local';
  if (Object.hasOwn(OPENAI_MODELS, model)) return { vendor: 'openai', remoteModel: model };
  const slash = model.indexOf('/');
  if (slash <= 0 || slash === model.length - 1) return { vendor: 'openai', remoteModel: model };
  return { vendor: model.slice(0, slash).toLowerCase(), remoteModel: model.slice(slash + 1) };
}

/** Why `model` cannot be used with these credentials (a sentence naming what to set), or null when it can. */
export function checkEmbeddingModel(model: string, credentials: VendorCredentials): string | null {
  const target = targetOf(model);
  if (target === 'local')
    return model.startsWith('local/') && model !== LOCAL_EMBEDDING_MODEL ? `No offline embedding model is named ${model}: use ${LOCAL_EMBEDDING_MODEL}.` : null;
  if (target.vendor === 'local') return `No offline embedding model is named ${model}: use ${LOCAL_EMBEDDING_MODEL}.`;
  if (target.vendor === 'openai')
    return credentials.apiKey('openai') ? null : `The embedding model ${model} needs an OpenAI key: set ${apiKeyVariable('openai')}.`;
  if (target.vendor === 'ollama') return null;
  return credentials.baseUrl(target.vendor)
    ? null
    : `The embedding model ${model} needs its server: set ${baseUrlVariable(target.vendor)} (and ${apiKeyVariable(target.vendor)} if it takes a key).`;
}

export function embedderFor(model: string, credentials: VendorCredentials, options: { fetch?: typeof fetch; timeoutMs?: number } = {}): Embedder {
  const problem = checkEmbeddingModel(model, credentials);
  if (problem) throw new EmbeddingError(problem, false);
  const target = targetOf(model);
  if (target === 'local') return new LocalEmbedder();
  const baseUrl = credentials.baseUrl(target.vendor) ?? (target.vendor === 'openai' ? OPENAI_BASE_URL : OLLAMA_BASE_URL);
  return new OpenAICompatibleEmbedder({
    model,
    remoteModel: target.remoteModel,
    baseUrl,
    apiKey: credentials.apiKey(target.vendor),
    dimensions: target.vendor === 'openai' ? OPENAI_MODELS[target.remoteModel] : undefined,
    vendorName: target.vendor === 'openai' ? 'OpenAI' : `the ${target.vendor} server`,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  });
}
