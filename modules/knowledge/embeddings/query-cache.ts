import type { EmbedOptions, Embedder } from './embedder.js';

// Query embeddings cached by their exact text: a caller who asks the same thing twice, or the follow-up search of a turn
// already searched early (agent/call/turn-prompt.ts), costs no second model call. Documents are not cached.

/** 1,000 queries of 1,536 floats are 6 MB. */
const DEFAULT_MAX_ENTRIES = 1000;

export function cachedEmbedder(embedder: Embedder, options: { maxEntries?: number } = {}): Embedder {
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const cache = new Map<string, Promise<Float32Array>>();
  return {
    model: embedder.model,
    get dimensions() {
      return embedder.dimensions;
    },
    async embed(texts: string[], embedOptions: EmbedOptions = {}) {
      if (embedOptions.purpose !== 'query' || texts.length !== 1) return embedder.embed(texts, embedOptions);
      const text = texts[0]!;
      let hit = cache.get(text);
      if (hit) {
        // Most recently used last: a Map keeps insertion order.
        cache.delete(text);
        cache.set(text, hit);
      } else {
        hit = embedder.embed([text], embedOptions).then(([vector]) => vector!);
        cache.set(text, hit);
        // A failure is not remembered: the next ask tries again.
        hit.catch(() => cache.get(text) === hit && cache.delete(text));
        if (cache.size > maxEntries) cache.delete(cache.keys().next().value!);
      }
      return [await hit];
    },
    ...(embedder.close ? { close: () => embedder.close!() } : {}),
  };
}
