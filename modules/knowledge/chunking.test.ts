import { describe, expect, it } from 'vitest';
import { chunkMarkdown, estimateTokens, sectionsOf } from './chunking.js';

const policy = [
  '# Store policy',
  '',
  'We sell shoes.',
  '',
  '## Returns',
  '',
  'Return within 30 days.',
  '',
  '### Refunds',
  '',
  'Refunds reach your card in 5 days.',
  '',
  '```',
  '# not a heading',
  '```',
  '',
  '## Shipping',
  '',
  'We ship worldwide.',
].join('\n');

describe('chunking', () => {
  it('cuts sections at headings, outside code fences, each chunk carrying its heading path and exact offsets', () => {
    expect(sectionsOf(policy).map((s) => s.headingPath)).toEqual([
      ['Store policy'],
      ['Store policy', 'Returns'],
      ['Store policy', 'Returns', 'Refunds'],
      ['Store policy', 'Shipping'],
    ]);
    const chunks = chunkMarkdown(policy);
    expect(chunks.map((c) => c.headingPath)).toEqual([
      ['Store policy'],
      ['Store policy', 'Returns'],
      ['Store policy', 'Returns', 'Refunds'],
      ['Store policy', 'Shipping'],
    ]);
    expect(chunks[2]!.content).toContain('# not a heading');
    for (const c of chunks) {
      expect(policy.slice(c.start, c.end)).toBe(c.content);
      expect(c.tokenCount).toBe(estimateTokens(c.content));
    }
  });

  it('recursive: no chunk longer than chunk_size characters, paragraphs kept whole where they fit, overlap repeated', () => {
    const paragraphs = Array.from({ length: 12 }, (_, i) => `Paragraph ${i}. ` + 'word '.repeat(30).trim() + '.');
    const md = '# Guide\n\n' + paragraphs.join('\n\n');
    const chunks = chunkMarkdown(md, { strategy: 'recursive', chunkSize: 400, chunkOverlap: 200 });
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) {
      expect(c.content.length).toBeLessThanOrEqual(400);
      expect(c.headingPath).toEqual(['Guide']);
      expect(md.slice(c.start, c.end)).toBe(c.content);
    }
    // Each chunk after the first starts before the previous one ended: the overlap.
    for (let i = 1; i < chunks.length; i++) expect(chunks[i]!.start).toBeLessThan(chunks[i - 1]!.end);
    // Every paragraph is found whole in some chunk.
    for (const p of paragraphs) expect(chunks.some((c) => c.content.includes(p))).toBe(true);
  });

  it('recursive: a paragraph longer than a chunk is cut at sentences, then words, then characters', () => {
    const sentences = Array.from({ length: 20 }, (_, i) => `Sentence number ${i} is here.`).join(' ');
    const bySentence = chunkMarkdown(sentences, { strategy: 'recursive', chunkSize: 100, chunkOverlap: 0 });
    for (const c of bySentence) expect(c.content).toMatch(/^Sentence number \d+ is here\..*\.$/);
    const oneWord = 'x'.repeat(250);
    const cut = chunkMarkdown(oneWord, { strategy: 'recursive', chunkSize: 100, chunkOverlap: 0 });
    expect(cut.map((c) => c.content.length)).toEqual([100, 100, 50]);
  });

  it('markdown: one chunk per section; sentence: whole sentences; fixed: windows of chunk_size stepping by size minus overlap', () => {
    expect(chunkMarkdown(policy, { strategy: 'markdown', chunkSize: 1000, chunkOverlap: 200 }).map((c) => c.headingPath.at(-1))).toEqual([
      'Store policy',
      'Returns',
      'Refunds',
      'Shipping',
    ]);
    const text = 'One is first. Two is second! Three is third? Four is last.';
    const sentences = chunkMarkdown(text, { strategy: 'sentence', chunkSize: 30, chunkOverlap: 0 });
    expect(sentences.map((c) => c.content)).toEqual(['One is first. Two is second!', 'Three is third? Four is last.']);
    const fixed = chunkMarkdown('a'.repeat(25), { strategy: 'fixed', chunkSize: 10, chunkOverlap: 5 });
    expect(fixed.map((c) => [c.start, c.end])).toEqual([
      [0, 10],
      [5, 15],
      [10, 20],
      [15, 25],
    ]);
  });

  it('skips headings with nothing under them and empty documents', () => {
    expect(chunkMarkdown('')).toEqual([]);
    expect(chunkMarkdown('# Only a title\n\n## And a subtitle\n')).toEqual([]);
    expect(chunkMarkdown('Plain text, no heading.')).toEqual([{ content: 'Plain text, no heading.', headingPath: [], start: 0, end: 23, tokenCount: 6 }]);
  });
});
