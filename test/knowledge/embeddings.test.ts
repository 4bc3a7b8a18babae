import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { EmbeddingError } from '../../modules/knowledge/embeddings/embedder.js';
import { closeLocalModel, LocalEmbedder } from '../../modules/knowledge/embeddings/local.js';
import { batchesOf } from '../../modules/knowledge/embeddings/openai-compatible.js';
import { cachedEmbedder } from '../../modules/knowledge/embeddings/query-cache.js';
import { checkEmbeddingModel, embedderFor } from '../../modules/knowledge/embeddings/resolve.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/vendors/openai.js';
import { fakeEmbedding, type EmbeddingFault } from '../fakes/vendors/openai-embeddings.js';

// Embeddings over OpenAI's wire format, against a fake that speaks it on loopback, and the offline model for real.

const KEY = 'sk-test-embeddings-0042';
const servers: FakeOpenAI[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await closeLocalModel();
});

async function server(fault?: (index: number) => EmbeddingFault | undefined, dimensions?: Record<string, number>) {
  const fake = await startFakeOpenAI(undefined, { apiKey: KEY, ...(fault ? { fault } : {}), ...(dimensions ? { dimensions } : {}) });
  servers.push(fake);
  return fake;
}

const credentials = (url: string, key: string | undefined = KEY) => ({
  apiKey: (v: string) => (v === 'openai' ? key : undefined),
  baseUrl: (v: string) => (v === 'openai' ? url : undefined),
});
const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, v, i) => s + v * b[i]!, 0);

describe("OpenAI's embeddings API", () => {
  it('embeds texts in order, normalised, with the model and key the setting names', async () => {
    const fake = await server();
    const embedder = embedderFor('text-embedding-3-small', credentials(fake.url));
    const texts = ['Refunds take five days.', 'Parking is behind the shop.'];
    const vectors = await embedder.embed(texts);
    expect(vectors.map((v) => v.length)).toEqual([1536, 1536]);
    expect(Math.hypot(...vectors[0]!)).toBeCloseTo(1, 5);
    expect(Array.from(vectors[1]!)).toEqual(fakeEmbedding(texts[1]!, 1536).map((v) => Math.fround(v)));
    expect(fake.embeddings()).toEqual([{ model: 'text-embedding-3-small', input: texts, encoding_format: 'float' }]);
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it("puts each vector back at its text's index when the server answers out of order", async () => {
    const fake = await server(() => ({ shuffle: true }));
    const texts = ['alpha beta', 'gamma delta', 'epsilon'];
    const vectors = await embedderFor('text-embedding-3-small', credentials(fake.url)).embed(texts);
    texts.forEach((t, i) => expect(Array.from(vectors[i]!)).toEqual(fakeEmbedding(t, 1536).map((v) => Math.fround(v))));
  });

  it('splits a long list into requests of at most 2,048 inputs and about 250,000 tokens', () => {
    expect(batchesOf(Array.from({ length: 5000 }, () => 'short')).map((b) => b.length)).toEqual([2048, 2048, 904]);
    const long = 'x'.repeat(100_000); // ~25,000 tokens each, cut to 32,000 characters (8,000 tokens)
    const batches = batchesOf(Array.from({ length: 40 }, () => long));
    expect(batches.every((b) => b.every((t) => t.length === 32_000))).toBe(true);
    expect(batches.map((b) => b.length)).toEqual([31, 9]);
  });

  it('waits as a 429 asks and tries again', async () => {
    const fake = await server((i) => (i === 0 ? { status: 429, message: 'Rate limit reached', retryAfter: '0.05' } : undefined));
    const vectors = await embedderFor('text-embedding-3-small', credentials(fake.url)).embed(['hello']);
    expect(vectors).toHaveLength(1);
    expect(fake.embeddings()).toHaveLength(2);
  });

  it('fails at once on a wrong key, with the vendor’s reason and no key in the message', async () => {
    const fake = await server();
    const error = await embedderFor('text-embedding-3-small', credentials(fake.url, 'sk-wrong-key-9999'))
      .embed(['hello'])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddingError);
    expect((error as EmbeddingError).retryable).toBe(false);
    expect((error as Error).message).toMatch(/^The embedding server \(OpenAI\) refused the request \(401\): Incorrect API key provided/);
    expect((error as Error).message).not.toContain('9999');
    expect(fake.embeddings()).toHaveLength(1);
  });

  it('gives up on a server that keeps failing, as a failure that may pass', async () => {
    const fake = await server(() => ({ status: 503, retryAfter: '0' }));
    const error = (await embedderFor('text-embedding-3-small', credentials(fake.url))
      .embed(['hello'])
      .catch((e: unknown) => e)) as EmbeddingError;
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('(503)');
    expect(fake.embeddings()).toHaveLength(4);
  });

  it('refuses vectors of another size than the model gives, in a sentence saying why', async () => {
    const fake = await server(() => ({ dimensions: 768 }));
    const error = (await embedderFor('text-embedding-3-small', credentials(fake.url))
      .embed(['hello'])
      .catch((e: unknown) => e)) as Error;
    expect(error.message).toBe(
      'The embedding model text-embedding-3-small answered vectors of 768 dimensions where 1536 were expected: it is not the model the documents were embedded with.',
    );
  });

  it('stops when its signal aborts', async () => {
    const fake = await server(() => ({ status: 503, retryAfter: '5' }));
    const abort = new AbortController();
    setTimeout(() => abort.abort(new Error('caller hung up')), 50);
    await expect(embedderFor('text-embedding-3-small', credentials(fake.url)).embed(['hello'], { signal: abort.signal })).rejects.toThrow('caller hung up');
  });
});

describe('the embedding model a setting names', () => {
  const none = { apiKey: () => undefined, baseUrl: () => undefined };

  it('needs an OpenAI key for OpenAI models, saying which variable to set', () => {
    expect(checkEmbeddingModel('text-embedding-3-small', none)).toBe('The embedding model text-embedding-3-small needs an OpenAI key: set OPENAI_API_KEY.');
    expect(() => embedderFor('openai/text-embedding-3-large', none)).toThrow(EmbeddingError);
  });

  it('reaches Ollama on its default address with no key, and another server only at its base URL', () => {
    expect(checkEmbeddingModel('ollama/nomic-embed-text', none)).toBeNull();
    expect(checkEmbeddingModel('vllm/bge-small', none)).toBe(
      'The embedding model vllm/bge-small needs its server: set VLLM_BASE_URL (and VLLM_API_KEY if it takes a key).',
    );
    expect(
      checkEmbeddingModel('vllm/bge-small', { apiKey: () => undefined, baseUrl: (v: string) => (v === 'vllm' ? 'http://127.0.0.1:9/v1' : undefined) }),
    ).toBeNull();
  });

  it('knows one offline model', () => {
    expect(checkEmbeddingModel('local/use-lite', none)).toBeNull();
    expect(checkEmbeddingModel('local/other', none)).toBe('No offline embedding model is named local/other: use local/use-lite.');
  });

  it("sends an Ollama model's name without its prefix", async () => {
    const fake = await startFakeOpenAI(undefined, { dimensions: { 'nomic-embed-text': 768 } });
    servers.push(fake);
    const embedder = embedderFor('ollama/nomic-embed-text', { apiKey: () => undefined, baseUrl: (v: string) => (v === 'ollama' ? fake.url : undefined) });
    expect((await embedder.embed(['hi']))[0]).toHaveLength(768);
    expect(fake.embeddings()[0]).toMatchObject({ model: 'nomic-embed-text' });
    expect(fake.requests[0]!.headers.authorization).toBeUndefined();
  });
});

describe('the query cache', () => {
  it('embeds a query once however often it is asked, and documents every time', async () => {
    const fake = await server();
    const embedder = cachedEmbedder(embedderFor('text-embedding-3-small', credentials(fake.url)), { maxEntries: 2 });
    const [a] = await embedder.embed(['when do you open'], { purpose: 'query' });
    const [b] = await embedder.embed(['when do you open'], { purpose: 'query' });
    expect(b).toBe(a);
    await embedder.embed(['a passage'], { purpose: 'document' });
    await embedder.embed(['a passage'], { purpose: 'document' });
    expect(fake.embeddings()).toHaveLength(3);
  });
});

describe('the offline model', () => {
  const model = new LocalEmbedder();

  it('gives 512-dimension unit vectors that put a question nearer its answer than an unrelated passage', async () => {
    const [question, answer, other] = await model.embed([
      'when does the library open',
      'The library opens at nine in the morning on weekdays.',
      'Parking is free after six in the evening.',
    ]);
    expect(question).toHaveLength(512);
    expect(Math.hypot(...question!)).toBeCloseTo(1, 4);
    expect(dot(question!, answer!)).toBeGreaterThan(dot(question!, other!));
  });

  it('runs off the main thread: timers keep firing while it embeds a batch', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const started = performance.now();
    await model.embed(Array.from({ length: 64 }, (_, i) => `Passage number ${i} about opening hours and refunds.`));
    const elapsed = performance.now() - started;
    clearInterval(timer);
    // A blocked event loop would fire the interval once or twice at the end, not ~elapsed / 10 times.
    expect(ticks).toBeGreaterThan((elapsed / 10) * 0.5);
  });

  it('answers a query on a thread of its own while a long batch of document chunks is embedded', async () => {
    const chunk = 'Our support team answers calls on weekdays from nine to five, and refunds are paid within 30 days. '.repeat(10);
    // Both threads started and their model loaded first, so that what is compared is the work, not a thread's start
    // (on a busy machine a cold thread took longer to load than the batch took to embed).
    await Promise.all([model.embed(['warm up'], { purpose: 'query' }), model.embed(['warm up'], { purpose: 'document' })]);
    let documentsDone = false;
    // Six messages of 8 long chunks: seconds of work for the document thread, ~20 ms for one query on its own thread.
    const documents = model
      .embed(
        Array.from({ length: 48 }, () => chunk),
        { purpose: 'document' },
      )
      .then(() => (documentsDone = true));
    await model.embed(['when do you open'], { purpose: 'query' });
    // Answered while the batch is still being embedded: not queued behind it.
    expect(documentsDone).toBe(false);
    await documents;
  });

  it.runIf(process.platform === 'linux')(
    'embeds documents on threads below normal priority, in the order given, while this thread keeps its own',
    async () => {
      const texts = Array.from({ length: 40 }, (_, i) => `Passage ${i} about delivery days and refunds.`);
      const together = await model.embed(texts, { purpose: 'document' });
      // Batches answered by different threads still come back in their places: each matches its text embedded alone.
      for (const i of [0, 17, 39]) expect(Array.from(together[i]!)).toEqual(Array.from((await model.embed([texts[i]!], { purpose: 'query' }))[0]!));
      const niceOf = (tid: string) => {
        const stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      };
      const nice = readdirSync(`/proc/${process.pid}/task`).map(niceOf);
      expect(nice.filter((n) => n >= 10).length).toBeGreaterThanOrEqual(1);
      // The main thread is the task whose id is the process's: not the first listed, since thread ids wrap around
      // and a thread started later can have a smaller one.
      expect(niceOf(String(process.pid))).toBe(0);
    },
    120_000,
  );

  it('shares one thread between embedders, and answers two at once', async () => {
    const [a, b] = await Promise.all([new LocalEmbedder().embed(['refund policy']), new LocalEmbedder().embed(['refund policy'])]);
    expect(Array.from(a[0]!)).toEqual(Array.from(b[0]!));
  });
});
