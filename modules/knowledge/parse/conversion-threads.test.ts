import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test/helpers/until.js';
import { ConversionThreads } from './conversion-threads.js';
import { DocumentParseError } from './errors.js';

const LIMITS = { timeoutMs: 20_000, heapMb: 512, memoryLimitMb: 768 };
const page = (title: string) =>
  Buffer.from(`<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>Text of ${title}.</p></main></body></html>`);

const pools: ConversionThreads[] = [];
function pool(options: { idleMs?: number } = {}): ConversionThreads {
  const threads = new ConversionThreads(options);
  pools.push(threads);
  return threads;
}

afterEach(() => {
  for (const threads of pools.splice(0)) threads.close();
});

describe('conversion threads', () => {
  it('converts the pages of a crawl one after another in one thread', async () => {
    const threads = pool();
    for (const title of ['One', 'Two', 'Three', 'Four']) {
      expect(await threads.convert(page(title), 'text/html', LIMITS)).toContain(`Text of ${title}.`);
    }
    expect(threads.started).toBe(1);
    expect(threads.idleCount).toBe(1);
  });

  it('keeps the thread after a document refused in words', async () => {
    const threads = pool();
    await expect(threads.convert(Buffer.from('<html><body></body></html>'), 'text/html', LIMITS)).rejects.toMatchObject({ code: 'empty_document' });
    expect(await threads.convert(page('After'), 'text/html', LIMITS)).toContain('Text of After.');
    expect(threads.started).toBe(1);
  });

  it('ends a thread whose conversion broke its bound, and gives the next document a fresh one', async () => {
    const threads = pool();
    // A new thread cannot start and load its parser within a millisecond: the bound is broken and the thread ended.
    const late = await threads.convert(page('Late'), 'text/html', { ...LIMITS, timeoutMs: 0 }).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(DocumentParseError);
    expect((late as DocumentParseError).code).toBe('document_too_complex');
    expect(threads.live).toBe(0);
    expect(await threads.convert(page('Fresh'), 'text/html', LIMITS)).toContain('Text of Fresh.');
    expect(threads.started).toBe(2);
  });

  it('converts documents at once in threads of their own and keeps at most two of them idle', async () => {
    const threads = pool();
    const titles = ['A', 'B', 'C', 'D'];
    const pages = await Promise.all(titles.map((title) => threads.convert(page(title), 'text/html', LIMITS)));
    pages.forEach((markdown, i) => expect(markdown).toContain(`Text of ${titles[i]}.`));
    expect(threads.started).toBe(4);
    await until(() => threads.live === 2, { message: 'two threads kept' });
    expect(threads.idleCount).toBe(2);
  });

  it('ends a thread left idle for its time', async () => {
    const threads = pool({ idleMs: 200 });
    await threads.convert(page('Once'), 'text/html', LIMITS);
    expect(threads.live).toBe(1);
    await until(() => threads.live === 0, { message: 'the idle thread ended' });
    expect(threads.idleCount).toBe(0);
  });
});
